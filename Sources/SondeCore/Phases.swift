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
public struct Phases: Sendable, Equatable {
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

    /// The duration of `phase`, nil when it did not happen.
    public subscript(phase: Phase) -> Double? {
        get {
            switch phase {
            case .dns: dns
            case .connect: connect
            case .tls: tls
            case .send: send
            case .wait: wait
            case .receive: receive
            case .total: total
            }
        }
        set {
            switch phase {
            case .dns: dns = newValue
            case .connect: connect = newValue
            case .tls: tls = newValue
            case .send: send = newValue
            case .wait: wait = newValue
            case .receive: receive = newValue
            case .total: total = newValue
            }
        }
    }

    /// The phase names in order, as they appear in reports and thresholds.
    public static let names = Phase.allCases.map(\.name)

    /// The values in `names` order (nil where a phase did not happen).
    public var values: [Double?] { Phase.allCases.map { self[$0] } }

    /// The value of the phase called `name`, or nil when it did not happen or is unknown.
    public func value(named name: String) -> Double? {
        Phase(rawValue: name).flatMap { self[$0] }
    }
}

extension Phases: FieldModel {
    public static let blank = Phases()
    public static var schemaName: String? { "phases" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ visitor: inout Visitor) throws(Visitor.Failure) {
        for phase in Phase.allCases { try visitor.visit(phase.key, &self[phase], .milliseconds) }
    }
}

/// Converts whole microseconds to the milliseconds used in reports.
@inline(__always)
public func milliseconds(fromMicroseconds micros: Int64) -> Double {
    Double(micros) / 1000.0
}
