/// The time one transaction spent in each phase, in milliseconds with microsecond resolution.
///
/// Invariants (checked by `TransactionTimingTests`):
/// - phases are consecutive and never overlap, so `total` equals the sum of the non-nil phases
///   (within 1 µs of rounding);
/// - `dns`, `connect` and `tls` are nil on a reused connection; `tls` is nil without TLS;
/// - `send` runs from the moment the connection is ready (the task start on a reused connection)
///   to the last request byte handed to the socket; `wait` from there to the first response byte
///   (TTFB); `receive` from the first to the last response byte.
///
/// HAR differs: there, `connect` includes `ssl`. The HAR renderer converts.
public struct Phases: Codable, Sendable, Equatable {
    public var dns: Double?
    public var connect: Double?
    public var tls: Double?
    public var send: Double?
    public var wait: Double?
    public var receive: Double?
    public var total: Double?

    public init(dns: Double? = nil, connect: Double? = nil, tls: Double? = nil, send: Double? = nil,
                wait: Double? = nil, receive: Double? = nil, total: Double? = nil) {
        self.dns = dns
        self.connect = connect
        self.tls = tls
        self.send = send
        self.wait = wait
        self.receive = receive
        self.total = total
    }

    /// The phase names in order, as they appear in reports and thresholds.
    public static let names = ["dns", "connect", "tls", "send", "wait", "receive", "total"]

    /// The values in `names` order (nil where a phase did not happen).
    public var values: [Double?] { [dns, connect, tls, send, wait, receive, total] }

    /// The value of the phase called `name`, or nil when it did not happen or is unknown.
    public func value(named name: String) -> Double? {
        switch name {
        case "dns": return dns
        case "connect": return connect
        case "tls": return tls
        case "send": return send
        case "wait": return wait
        case "receive": return receive
        case "total": return total
        default: return nil
        }
    }

    private enum CodingKeys: String, CodingKey { case dns, connect, tls, send, wait, receive, total }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(dns, forKey: .dns)
        try c.encode(connect, forKey: .connect)
        try c.encode(tls, forKey: .tls)
        try c.encode(send, forKey: .send)
        try c.encode(wait, forKey: .wait)
        try c.encode(receive, forKey: .receive)
        try c.encode(total, forKey: .total)
    }
}

/// Converts whole microseconds to the milliseconds used in reports.
@inline(__always)
public func milliseconds(fromMicroseconds micros: Int64) -> Double {
    Double(micros) / 1000.0
}

extension Phases: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.object { o in
            o.member("dns", dns)
            o.member("connect", connect)
            o.member("tls", tls)
            o.member("send", send)
            o.member("wait", wait)
            o.member("receive", receive)
            o.member("total", total)
        }
    }
}
