import SondeCore

/// What one of an audit's measured requests cost a client, on a new connection (`cold`) and on
/// one kept from a request before (`warm`): over `--link` these are the link's figures, the
/// handshakes' round trips included.
///
/// The requests (`AuditTarget.requests`): `get` (the audited URL, cold, then again through the
/// same pool: warm when the server kept the connection, else a second cold one), `revalidation`
/// (the conditional GET, on a connection of its own) and `h3` (the new connection to the Alt-Svc
/// alternative, over QUIC when it works; cold only). Values; times in ms, bytes as received.
public struct AuditRequestCost: Sendable, Equatable {
    /// "get", "revalidation" or "h3".
    public var name: String
    /// The request line as sent, its URL redacted ("GET https://api.example/v1/items").
    public var request: String
    /// The first request, on a connection it opened; nil when it did not run.
    public var cold: AuditConnectionCost?
    /// The next request, through the pool the first left (reused when `warm.reused`); nil when
    /// there was none.
    public var warm: AuditConnectionCost?

    public init(name: String, request: String, cold: AuditConnectionCost?, warm: AuditConnectionCost?) {
        self.name = name
        self.request = request
        self.cold = cold
        self.warm = warm
    }
}

extension AuditRequestCost: FieldModel {
    public static let blank = AuditRequestCost(name: "", request: "", cold: nil, warm: nil)
    public static var schemaName: String? { "auditRequestCost" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("name", &name, FieldRule(required: true, values: ["get", "revalidation", "h3"]))
        try v.visit("request", &request, .required)
        try v.visit("cold", &cold, .field)
        try v.visit("warm", &warm, .field)
    }
}

/// One request's cost: the whole task (redirects included), the part spent opening its
/// connection (DNS, TCP and TLS, or QUIC's handshake), the wait for the first byte, the bytes.
public struct AuditConnectionCost: Sendable, Equatable {
    /// "h2", "http/1.1", "h3"; nil when no response came.
    public var protocolName: String?
    /// Whether the final hop went over a connection an earlier request opened.
    public var reused: Bool
    /// The task, first byte of the request to last of the response, every hop (ms).
    public var totalMs: Double
    /// DNS + connect + TLS of the final hop's connection (ms); nil on a reused one.
    public var setupMs: Double?
    /// The final hop's wait: request sent to first response byte (ms), about one round trip plus
    /// the server's time.
    public var waitMs: Double?
    /// Body bytes on the wire of the final hop.
    public var wireBytes: Int64
    /// Why the request failed, nil when it got a response.
    public var error: String?

    public init(protocolName: String?, reused: Bool, totalMs: Double, setupMs: Double?, waitMs: Double?, wireBytes: Int64,
                error: String? = nil) {
        self.protocolName = protocolName
        self.reused = reused
        self.totalMs = totalMs
        self.setupMs = setupMs
        self.waitMs = waitMs
        self.wireBytes = wireBytes
        self.error = error
    }

    /// The cost of `task` as its final hop shows it.
    public init(_ task: ProbeTask) {
        let last = task.transactionMetrics.last
        let phases = last?.phases
        let reused = last?.isReusedConnection ?? false
        let setup = [phases?.dns, phases?.connect, phases?.tls].compactMap { $0 }
        self.init(protocolName: last?.response == nil ? nil : last?.networkProtocolName, reused: reused,
                  totalMs: task.taskInterval.durationMs, setupMs: reused || setup.isEmpty ? nil : setup.reduce(0, +),
                  waitMs: phases?.wait, wireBytes: last?.countOfResponseBodyBytesReceived ?? 0, error: task.error?.message)
    }

    /// "h2 new connection 182.3 ms (setup 121.0 ms, wait 40.2 ms)".
    public var text: String {
        var line = "\(protocolName ?? "no response") \(reused ? "reused" : "new") connection \(Self.ms(totalMs))"
        var parts: [String] = []
        if let setupMs { parts.append("setup \(Self.ms(setupMs))") }
        if let waitMs { parts.append("wait \(Self.ms(waitMs))") }
        if !parts.isEmpty { line += " (" + parts.joined(separator: ", ") + ")" }
        if let error { line += ": \(error)" }
        return line
    }

    static func ms(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) ms"
    }
}

extension AuditConnectionCost: FieldModel {
    public static let blank = AuditConnectionCost(protocolName: nil, reused: false, totalMs: 0, setupMs: nil, waitMs: nil, wireBytes: 0)
    public static var schemaName: String? { "auditConnectionCost" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("protocol", &protocolName, .field)
        try v.visit("reused", &reused, .required)
        try v.visit("totalMs", &totalMs, .requiredMilliseconds)
        try v.visit("setupMs", &setupMs, .milliseconds)
        try v.visit("waitMs", &waitMs, .milliseconds)
        try v.visit("wireBytes", &wireBytes, .count)
        try v.visit("error", &error, .omittedWhenNil)
    }
}
