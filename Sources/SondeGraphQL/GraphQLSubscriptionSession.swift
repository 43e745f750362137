import SondeCore
import SondeWebSocket

/// One GraphQL subscription held on one connection of a soak, speaking `graphql-transport-ws`
/// (`GraphQLTransportWS`; docs/graphql.md "Subscriptions over WebSocket"):
///
/// 1. on open, `connection_init`, and a wake-up at the ack timeout: without `connection_ack` by
///    then sonde closes with 4504 (graphql-ws's `ConnectionAcknowledgementTimeout`);
/// 2. on `connection_ack`, `subscribe` with id "1";
/// 3. `next` is counted, with the time since the previous `next` of the same subscription (an
///    `.eventGap`); one whose payload holds errors is also counted in `nextErrors`; `error` and
///    `complete` end the operation: after `resubscribeDelayNanos` sonde subscribes again with the
///    next id ("2", "3", …) on the same connection;
/// 4. the server's `ping` is answered with `pong`; a `pong` answers sonde's `ping` (the soak's
///    keepalive, `pingMessage`), the oldest outstanding one: pongs carry no id (ariadne's carry
///    no payload);
/// 5. anything PROTOCOL.md does not specify (not JSON, an unknown type, `next` before the ack)
///    closes with 4400 and the reason; a message over `maxMessageBytes` with 1009.
///
/// Invariant: at most one operation is active; messages for another id are ignored (a late one
/// of an operation already over). Threading: the session's event loop only (`SoakSubprotocol`).
public final class GraphQLSubscriptionSession: SoakSubprotocol {
    /// The most bytes of one message sonde reads (as a probe reads a GraphQL response).
    public static let maxMessageBytes = GraphQLResponseJudge.defaultMaxBodyBytes

    private let operation: GraphQLOperation
    private let judge: GraphQLResponseJudge
    private let redactor: Redactor
    private let ackTimeoutNanos: UInt64
    private let resubscribeDelayNanos: UInt64

    private enum State: Equatable {
        case opening
        /// `connection_init` sent at this instant (monotonic ns).
        case awaitingAck(sentAt: UInt64)
        /// Operation `id` is active; the instant of its last `next`, if any.
        case subscribed(id: Int, lastNext: UInt64?)
        /// The operation ended; the next one is due at this instant.
        case resubscribing(due: UInt64)
    }

    private var state = State.opening
    private var lastID = 0
    /// The exchange so far (`parts` holds it as the attempt's part).
    public private(set) var record = GraphQLSubscriptionRecord()

    public var parts: ModelParts {
        var parts = ModelParts()
        parts.set(GraphQLSubscriptionPart.attemptKey, record)
        return parts
    }

    public var pingMessage: String { GraphQLTransportWS.ping }

    /// - Parameters:
    ///   - ackTimeoutS: how long `connection_ack` may take (the soak's connect timeout), seconds.
    ///   - resubscribeDelayS: the wait after `complete` or `error` before subscribing again, seconds.
    public init(operation: GraphQLOperation, redactor: Redactor, ackTimeoutS: Double, resubscribeDelayS: Double) {
        self.operation = operation
        judge = GraphQLResponseJudge(operation: operation)
        self.redactor = redactor
        ackTimeoutNanos = Self.nanos(ackTimeoutS)
        resubscribeDelayNanos = Self.nanos(resubscribeDelayS)
    }

    /// Seconds as ns, within 0…a day (the soak's settings are bounded so; this keeps any value safe).
    private static func nanos(_ seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, 86_400) * 1e9)
    }

    public func opened(atNanos nanos: UInt64) -> [SoakSubprotocolAction] {
        state = .awaitingAck(sentAt: nanos)
        return [.send(GraphQLTransportWS.connectionInit()), .wake(afterNanos: ackTimeoutNanos)]
    }

    public func woke(atNanos nanos: UInt64) -> [SoakSubprotocolAction] {
        switch state {
        case .awaitingAck:
            return [Self.close(4504, "connection_ack did not come within \(Self.seconds(ackTimeoutNanos))", cause: .protocolError)]
        case .resubscribing(let due) where nanos >= due:
            return subscribe()
        case .resubscribing(let due):
            return [.wake(afterNanos: due - nanos)]
        case .opening, .subscribed:
            return []
        }
    }

    public func received(_ message: [UInt8], text: Bool, atNanos nanos: UInt64) -> [SoakSubprotocolAction] {
        guard message.count <= Self.maxMessageBytes else {
            return [Self.close(1009, "a GraphQL message over \(Self.maxMessageBytes >> 20) MiB", cause: .frameTooLarge)]
        }
        let read: GraphQLTransportWS.ServerMessage
        do throws(GraphQLTransportWS.Violation) { read = try GraphQLTransportWS.read(message) } catch {
            return [Self.close(4400, error.reason, cause: .protocolError)]
        }
        switch read {
        case .ping:
            return [.send(GraphQLTransportWS.pong)]
        case .pong:
            return [.pong]
        case .connectionAck:
            guard case .awaitingAck(let sentAt) = state else { return [] }  // a repeated ack changes nothing
            record.ackMs = Double(nanos &- sentAt) / 1e6
            return subscribe()
        case .next, .error, .complete:
            if case .awaitingAck = state {
                return [Self.close(4400, "a \(Self.type(of: read)) message before connection_ack", cause: .protocolError)]
            }
            guard case .subscribed(let active, let lastNext) = state, read.id == String(active) else { return [] }
            return operationMessage(read, id: active, lastNext: lastNext, at: nanos)
        }
    }

    private func operationMessage(_ message: GraphQLTransportWS.ServerMessage, id: Int, lastNext: UInt64?,
                                  at nanos: UInt64) -> [SoakSubprotocolAction] {
        switch message {
        case .next(_, let firstError):
            record.nexts += 1
            if let firstError {
                record.nextErrors += 1
                noteError(firstError)
            }
            state = .subscribed(id: id, lastNext: nanos)
            return lastNext.map { [.eventGap(nanos: nanos &- $0)] } ?? []
        case .error(_, let firstMessage):
            record.errors += 1
            noteError(firstMessage)
            return operationEnded(at: nanos)
        case .complete:
            record.completes += 1
            return operationEnded(at: nanos)
        case .connectionAck, .ping, .pong:
            return []
        }
    }

    private func operationEnded(at nanos: UInt64) -> [SoakSubprotocolAction] {
        state = .resubscribing(due: nanos &+ resubscribeDelayNanos)
        return [.wake(afterNanos: resubscribeDelayNanos)]
    }

    private func subscribe() -> [SoakSubprotocolAction] {
        lastID += 1
        record.subscribes += 1
        state = .subscribed(id: lastID, lastNext: nil)
        return [.send(GraphQLTransportWS.subscribe(id: String(lastID), operation: operation))]
    }

    private func noteError(_ message: String) {
        if record.firstError == nil { record.firstError = judge.shown(message, redactor: redactor) }
    }

    public func closed(code: Int?) {
        record.closeName = code.flatMap(GraphQLTransportWS.closeName)
    }

    private static func close(_ code: UInt16, _ reason: String, cause: DisconnectCause) -> SoakSubprotocolAction {
        .close(code: code, reason: reason, cause: cause)
    }

    private static func type(of message: GraphQLTransportWS.ServerMessage) -> String {
        switch message {
        case .connectionAck: return "connection_ack"
        case .ping: return "ping"
        case .pong: return "pong"
        case .next: return "next"
        case .error: return "error"
        case .complete: return "complete"
        }
    }

    private static func seconds(_ nanos: UInt64) -> String {
        let seconds = Double(nanos) / 1e9
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }
}

extension GraphQLTransportWS.ServerMessage {
    /// The operation's id of `next`, `error` and `complete`; nil for the others.
    var id: String? {
        switch self {
        case .next(let id, _), .error(let id, _), .complete(let id): return id
        case .connectionAck, .ping, .pong: return nil
        }
    }
}

extension GraphQLSubscriptionSession {
    /// The factory a soak's options carry: one session per attempt, `graphql-transport-ws` required.
    public static func factory(operation: GraphQLOperation, redactor: Redactor, ackTimeoutS: Double,
                               resubscribeDelayS: Double) -> SoakSubprotocolFactory {
        SoakSubprotocolFactory(name: GraphQLTransportWS.subprotocol) {
            GraphQLSubscriptionSession(operation: operation, redactor: redactor, ackTimeoutS: ackTimeoutS, resubscribeDelayS: resubscribeDelayS)
        }
    }
}
