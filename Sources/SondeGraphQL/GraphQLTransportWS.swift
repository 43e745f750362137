import Foundation

/// The messages of the GraphQL over WebSocket protocol, `graphql-transport-ws`
/// (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md), as a client writes and
/// reads them: JSON objects with a `type`. Pure: no state (`GraphQLSubscriptionSession` keeps it).
public enum GraphQLTransportWS {
    /// The subprotocol's name, offered in `Sec-WebSocket-Protocol` and required in the answer.
    public static let subprotocol = "graphql-transport-ws"

    /// `{"type":"connection_init"}`, with `payload` (a JSON object's text) when given.
    public static func connectionInit(payload: String? = nil) -> String {
        payload.map { "{\"type\":\"connection_init\",\"payload\":\($0)}" } ?? "{\"type\":\"connection_init\"}"
    }

    /// `{"id":…,"type":"subscribe","payload":{"query":…,"variables":…,"operationName":…}}`.
    public static func subscribe(id: String, operation: GraphQLOperation) -> String {
        "{\"id\":\(GraphQLOperation.jsonString(id)),\"type\":\"subscribe\",\"payload\":\(String(decoding: operation.requestBody, as: UTF8.self))}"
    }

    public static let ping = "{\"type\":\"ping\"}"
    public static let pong = "{\"type\":\"pong\"}"

    /// A message from the server, as far as the client needs it.
    public enum ServerMessage: Equatable, Sendable {
        case connectionAck
        case ping
        case pong
        /// An event of operation `id`: the first error's message when its payload holds a non-empty `errors` list.
        case next(id: String, firstError: String?)
        /// Operation `id` failed: its errors' first message.
        case error(id: String, firstMessage: String)
        /// Operation `id` is over (the server will send nothing more for it).
        case complete(id: String)
    }

    /// Why a server's message breaks the protocol (PROTOCOL.md: "a message of a type or format
    /// which is not specified in this document" closes the socket with 4400), in words.
    public struct Violation: Error, Equatable, Sendable {
        public var reason: String
    }

    /// Reads one message. Throws for anything PROTOCOL.md does not specify: not JSON, not an
    /// object, no `type`, an unknown type, `next`/`error`/`complete` without an `id`, an `error`
    /// whose payload is not a list.
    public static func read(_ message: [UInt8]) throws(Violation) -> ServerMessage {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(message), options: [.fragmentsAllowed]) else {
            throw Violation(reason: "a message that is not JSON (\(message.count) bytes)")
        }
        guard let object = parsed as? [String: Any] else { throw Violation(reason: "a message that is \(GraphQLOperation.kind(of: parsed)), not a JSON object") }
        guard let type = object["type"] as? String else { throw Violation(reason: "a message without a type") }
        switch type {
        case "connection_ack": return .connectionAck
        case "ping": return .ping
        case "pong": return .pong
        case "next", "error", "complete":
            guard let id = object["id"] as? String else { throw Violation(reason: "a \(type) message without an id") }
            switch type {
            case "next":
                let errors = (object["payload"] as? [String: Any])?["errors"] as? [Any]
                return .next(id: id, firstError: errors?.first.map(message(of:)))
            case "error":
                guard let errors = object["payload"] as? [Any] else { throw Violation(reason: "an error message whose payload is not a list of errors") }
                return .error(id: id, firstMessage: errors.first.map(message(of:)) ?? "(an empty list of errors)")
            default:
                return .complete(id: id)
            }
        default:
            throw Violation(reason: "a message of unknown type '\(String(type.prefix(40)))'")
        }
    }

    private static func message(of error: Any) -> String {
        ((error as? [String: Any])?["message"] as? String) ?? "(the error has no message)"
    }

    /// The protocol's close codes (graphql-ws's `CloseCode`, PROTOCOL.md) by their names; nil
    /// for a code that is not one of them.
    public static func closeName(_ code: Int) -> String? {
        switch code {
        case 4004: return "badResponse"
        case 4005: return "internalClientError"
        case 4400: return "badRequest"
        case 4401: return "unauthorized"
        case 4403: return "forbidden"
        case 4406: return "subprotocolNotAcceptable"
        case 4408: return "connectionInitialisationTimeout"
        case 4409: return "subscriberAlreadyExists"
        case 4429: return "tooManyInitialisationRequests"
        case 4499: return "terminated"
        case 4500: return "internalServerError"
        case 4504: return "connectionAcknowledgementTimeout"
        default: return nil
        }
    }
}
