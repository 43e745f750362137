import SondeCore

/// A GraphQL subscription's figures over every attempt of a soak (graphql-transport-ws): the
/// soak's part `subscription` (`GraphQLSubscriptionPart`). The soak's `pings` are then the
/// protocol's `ping`/`pong` messages, not WebSocket ping frames.
public struct GraphQLSubscriptionSummary: Sendable, Equatable {
    /// The operation's name (given, or the document's first), nil for an anonymous one.
    public var operationName: String?
    /// Attempts whose `connection_ack` came, and the time from `connection_init` to it.
    public var acked = 0
    public var ackMs: DistributionSummary?
    public var subscribes = 0
    public var nexts = 0
    public var nextErrors = 0
    public var errors = 0
    public var completes = 0
    /// The time between consecutive `next` messages of one subscription, ms.
    public var nextGapMs: DistributionSummary?
    /// The first error's message (redacted, one line, at most 300 characters), nil without one.
    public var firstError: String?
    /// Attempts ended by one of the protocol's close codes, by the code's name (`subscriberAlreadyExists`…).
    public var closes: [String: Int] = [:]

    public init(operationName: String? = nil) {
        self.operationName = operationName
    }

    /// Adds one attempt's exchange (journalled values: wrapping arithmetic).
    mutating func add(_ counts: GraphQLSubscriptionRecord, ackTimes: inout LatencyDistribution) {
        if let ack = counts.ackMs {
            acked &+= 1
            ackTimes.record(milliseconds: ack)
        }
        subscribes &+= counts.subscribes
        nexts &+= counts.nexts
        nextErrors &+= counts.nextErrors
        errors &+= counts.errors
        completes &+= counts.completes
        if firstError == nil { firstError = counts.firstError }
        if let name = counts.closeName { closes[name, default: 0] &+= 1 }
    }

    /// Why the subscription fails the soak, in words (an `error`, or a `next` with errors), or nil.
    var problem: String? {
        let failed = errors &+ nextErrors
        guard failed > 0 else { return nil }
        let what = [errors > 0 ? "\(errors) error message\(errors == 1 ? "" : "s")" : nil,
                    nextErrors > 0 ? "\(nextErrors) next message\(nextErrors == 1 ? "" : "s") with errors" : nil].compactMap { $0 }
        return "the GraphQL subscription got " + what.joined(separator: " and ") + (firstError.map { "; the first: \($0)" } ?? "")
    }
}

extension GraphQLSubscriptionSummary: FieldModel {
    public static let blank = GraphQLSubscriptionSummary()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("ackMs", &ackMs, .field)
        try v.visit("acked", &acked, .requiredCount)
        try v.visit("closes", &closes, .requiredCount)
        try v.visit("completes", &completes, .requiredCount)
        try v.visit("errors", &errors, .requiredCount)
        try v.visit("firstError", &firstError, .field)
        try v.visit("nextErrors", &nextErrors, .requiredCount)
        try v.visit("nextGapMs", &nextGapMs, .field)
        try v.visit("nexts", &nexts, .requiredCount)
        try v.visit("operationName", &operationName, .field)
        try v.visit("subscribes", &subscribes, .requiredCount)
    }
}
