/// The soak journal's lines as field models: a soak of ten thousand connections journals an
/// attempt twice per connection, so these go through the fast writer and reader (`JSONEncoder`
/// was a fifth of such a run's CPU time, perf). Keys in the sorted order `JSONEncoder` writes.

extension SoakAttempt: FieldModel {
    public static let blank = SoakAttempt(connection: 0, attempt: 0, startedAt: TaskInterval.blank.start, backoffMs: nil, backoffFailure: nil)
    public static var schemaName: String? { "soakAttempt" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("attempt", &attempt, FieldRule(required: true, unit: .identifier))
        try v.visit("backoffFailure", &backoffFailure, .count)
        try v.visit("backoffMs", &backoffMs, .milliseconds)
        try v.visit("cause", &cause, .field)
        try v.visit("closeCode", &closeCode, .field)
        try v.visit("closeReason", &closeReason, .field)
        try v.visit("closedAt", &closedAt, .field)
        try v.visit("closedBy", &closedBy, FieldRule(values: ["client", "server"]))
        try v.visit("connection", &connection, .requiredCount)
        try v.visit("error", &error, .field)
        try v.visit("gaveUp", &gaveUp, .field)
        try v.visit("handshake", &handshake, .required)
        try v.visit("messages", &messages, .field)
        try v.visit("openedAt", &openedAt, .field)
        try v.visit("pings", &pings, .field)
        try v.visit("spanId", &spanId, FieldRule(omitsNil: true, pattern: "^[0-9a-f]{16}$"))
        try v.visit("startedAt", &startedAt, .required)
        try v.visit("timeToRecoverMs", &timeToRecoverMs, .milliseconds)
        try v.visitParts(&parts)
    }
}

extension SoakAttempt.Pings: FieldModel {
    public static let blank = SoakAttempt.Pings()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("answered", &answered, .count)
        try v.visit("missed", &missed, .count)
        try v.visit("sent", &sent, .count)
        try v.visit("serverPings", &serverPings, .count)
        try v.visit("unanswered", &unanswered, .count)
        try v.visit("unsolicitedPongs", &unsolicitedPongs, .count)
    }
}

extension SoakAttempt.Messages: FieldModel {
    public static let blank = SoakAttempt.Messages()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("corrupted", &corrupted, .count)
        try v.visit("duplicated", &duplicated, .count)
        try v.visit("fromServer", &fromServer, .field)
        try v.visit("lost", &lost, .count)
        try v.visit("received", &received, .count)
        try v.visit("reordered", &reordered, .count)
        try v.visit("sent", &sent, .count)
    }
}

extension SoakAttempt.ServerMessages: FieldModel {
    public static let blank = SoakAttempt.ServerMessages()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("bytes", &bytes, .count)
        try v.visit("count", &count, .count)
    }
}

extension WebSocketHandshake: FieldModel {
    public static let blank = WebSocketHandshake()
    public static var schemaName: String? { "wsHandshake" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("connectMs", &connectMs, .milliseconds)
        try v.visit("dnsMs", &dnsMs, .milliseconds)
        try v.visit("extensions", &extensions, .field)
        try v.visit("localPort", &localPort, .field)
        try v.visit("remoteAddress", &remoteAddress, .field)
        try v.visit("remotePort", &remotePort, .field)
        try v.visit("responseHeaders", &responseHeaders, .field)
        try v.visit("statusCode", &statusCode, .field)
        try v.visit("subprotocol", &subprotocol, .field)
        try v.visit("tlsMs", &tlsMs, .milliseconds)
        try v.visit("tlsProtocolVersion", &tlsProtocolVersion, .field)
        try v.visit("totalMs", &totalMs, .milliseconds)
        try v.visit("upgradeMs", &upgradeMs, .milliseconds)
    }
}

extension SoakSamples: FieldModel {
    public static let blank = SoakSamples()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("echoes", &echoes, .field)
        try v.visit("missed", &missed, .field)
        try v.visit("nextGaps", &nextGaps, .omittedWhenNil)
        try v.visit("pings", &pings, .field)
    }
}
