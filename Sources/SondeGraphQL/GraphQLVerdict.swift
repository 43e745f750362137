import Foundation

/// What a GraphQL response body says (GraphQL, October 2021, 7.1 Response Format: a map with
/// `data` and/or a non-empty `errors` list), read with JSONSerialization. Pure: no redaction or
/// bounding here (`GraphQLResponseJudge` does both).
public enum GraphQLVerdict: Equatable, Sendable {
    /// `data` and no errors.
    case data
    /// A non-empty `errors` list and `data` absent or null: `count` errors, the first one's message.
    case errors(count: Int, firstMessage: String)
    /// A non-empty `errors` list beside non-null `data` (partial data).
    case partial(count: Int, firstMessage: String)
    /// The body is not JSON.
    case notJSON
    /// The body is JSON, but not an object (its kind in words: "an array").
    case notObject(String)
    /// An object with neither non-null `data` nor a non-empty `errors` list.
    case noData

    /// The verdict of a whole body (not cut).
    public init(body: [UInt8]) {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) else {
            self = .notJSON
            return
        }
        guard let object = parsed as? [String: Any] else {
            self = .notObject(GraphQLOperation.kind(of: parsed))
            return
        }
        let hasData = object["data"].map { !($0 is NSNull) } ?? false
        if let errors = object["errors"] as? [Any], let first = errors.first {
            let message = ((first as? [String: Any])?["message"] as? String) ?? "(the error has no message)"
            self = hasData ? .partial(count: errors.count, firstMessage: message) : .errors(count: errors.count, firstMessage: message)
            return
        }
        self = hasData ? .data : .noData
    }
}
