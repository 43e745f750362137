import SondeCore

/// A GraphQL subscription over WebSocket (`graphql-transport-ws`, docs/graphql.md) on one attempt
/// of a soak: what its protocol exchanged (`attempts[].subscription`, a part of the attempt:
/// `GraphQLSubscriptionPart`). Counts only grow while the attempt is open; the attempt's last
/// journal line holds the final ones.
public struct GraphQLSubscriptionRecord: Sendable, Equatable {
    /// From `connection_init` sent to `connection_ack` received, ms; nil while no ack came.
    public var ackMs: Double?
    /// `subscribe` messages sent: the first, and one after each `complete` or `error`.
    public var subscribes = 0
    /// `next` messages (the subscription's events).
    public var nexts = 0
    /// `next` messages whose payload held a non-empty `errors` list (counted in `nexts` too).
    public var nextErrors = 0
    /// `error` messages: the operation failed (no `complete` follows one).
    public var errors = 0
    /// `complete` messages from the server: the subscription ended.
    public var completes = 0
    /// The first error's message (of an `error`, or of a `next` with errors): one line, secrets
    /// redacted, at most 300 characters; nil when there was none.
    public var firstError: String?
    /// The protocol's name of the close code that ended the attempt (`subscriberAlreadyExists` for
    /// 4409…), either side's; nil when the code is not one of the protocol's.
    public var closeName: String?

    public init() {}
}

extension GraphQLSubscriptionRecord: FieldModel {
    public static let blank = GraphQLSubscriptionRecord()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("ackMs", &ackMs, .milliseconds)
        try v.visit("closeName", &closeName, .field)
        try v.visit("completes", &completes, .count)
        try v.visit("errors", &errors, .count)
        try v.visit("firstError", &firstError, .field)
        try v.visit("nextErrors", &nextErrors, .count)
        try v.visit("nexts", &nexts, .count)
        try v.visit("subscribes", &subscribes, .count)
    }
}
