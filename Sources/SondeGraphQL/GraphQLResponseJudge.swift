import Foundation
import SondeCore
import SondeHTTP

/// The verdict on a GraphQL operation's response (`ResponseBodyJudge`, set as
/// `ProbeOptions.bodyJudge`): a body whose `errors` list is not empty fails the task, as
/// `graphqlError` (no data) or `graphqlPartial` (data beside errors), with the first error's
/// message as the cause; a body that is not a GraphQL response fails as `graphqlError` with a
/// reason (`notJSON`, `notObject`, `noData`, `bodyTooLarge`).
///
/// A status the status rule refused (`httpStatus`) stays the failure unless the body is a
/// GraphQL response with errors (GraphQL over HTTP answers request errors with 4xx and such a
/// body): then `graphqlError` says the status and the message.
///
/// Messages come from the server: their control characters become spaces, the secret
/// variables' values and secret URL parameters are redacted, and they are cut to
/// `maxMessageCharacters`.
public struct GraphQLResponseJudge: ResponseBodyJudge {
    /// 4 MiB of a body are kept; a longer one is received in full but not judged (`bodyTooLarge`).
    public static let defaultMaxBodyBytes = 4 << 20
    /// The longest server message a cause quotes, in characters.
    public static let maxMessageCharacters = 300

    public let maxBodyBytes: Int
    /// The variables' string values: those under secret names are masked in the server's messages.
    public let stringVariables: [GraphQLOperation.StringVariable]

    public init(operation: GraphQLOperation, maxBodyBytes: Int = Self.defaultMaxBodyBytes) {
        self.maxBodyBytes = max(0, maxBodyBytes)
        stringVariables = operation.stringVariables
    }

    public func judge(_ response: JudgedResponse, statusFailure: TaskError?, redactor: Redactor) -> TaskError? {
        let statusNote = statusFailure == nil ? "" : " (HTTP \(response.status))"
        guard !response.bodyExceeded else {
            return statusFailure ?? TaskError(code: .graphqlError, message: "the response body is larger than \(Self.size(maxBodyBytes)), "
                + "the most sonde reads of a GraphQL response: not judged", reason: "bodyTooLarge")
        }
        switch GraphQLVerdict(body: response.body) {
        case .errors(let count, let first):
            return TaskError(code: .graphqlError,
                             message: "the GraphQL server answered \(Self.errors(count))\(statusNote); the first: \(shown(first, redactor: redactor))")
        case .partial(let count, let first):
            return TaskError(code: .graphqlPartial,
                             message: "partial data: \(Self.errors(count)) beside the data\(statusNote); the first: \(shown(first, redactor: redactor))")
        case _ where statusFailure != nil:
            return statusFailure
        case .data:
            return nil
        case .notJSON:
            let type = response.value(of: "content-type").map { "Content-Type: \(shown($0, redactor: redactor))" } ?? "no Content-Type"
            return TaskError(code: .graphqlError, message: "the response body is not JSON (\(type), \(response.body.count) bytes): not a GraphQL response",
                             reason: "notJSON")
        case .notObject(let kind):
            return TaskError(code: .graphqlError, message: "the response body is \(kind), not a JSON object: not a GraphQL response", reason: "notObject")
        case .noData:
            return TaskError(code: .graphqlError, message: "the response has neither data nor an errors list: not a GraphQL response", reason: "noData")
        }
    }

    /// A server's text as a cause shows it: one line, secrets masked, at most `maxMessageCharacters`.
    func shown(_ text: String, redactor: Redactor) -> String {
        var line = String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        if redactor.isEnabled {
            for variable in stringVariables where redactor.isSecret(name: variable.name) {
                line = line.replacingOccurrences(of: variable.value, with: Redactor.mask)
            }
            line = redactor.redact(urlsIn: line)
        }
        guard line.count > Self.maxMessageCharacters else { return line }
        return String(line.prefix(Self.maxMessageCharacters)) + "…"
    }

    private static func errors(_ count: Int) -> String { count == 1 ? "1 error" : "\(count) errors" }

    private static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
