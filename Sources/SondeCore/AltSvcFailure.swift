/// An `Alt-Svc` alternative that did not answer, on the transaction that went to the origin over
/// TCP instead: libcurl tries an h3 alternative on another port or host over QUIC alone, so sonde
/// falls back, as URLSession and browsers do, and uses no alternative for that origin for the rest
/// of the run (nor keeps it in the `--alt-svc` file).
///
/// Invariants: set only on the first transaction of a hop whose attempt on the alternative
/// ended without a response; `durationMs` is that attempt's own time (libcurl's total), not
/// part of the transaction's phases, which are the TCP attempt's.
public struct AltSvcFailure: Sendable, Equatable {
    /// Where the alternative came from (a response of this run, or the `--alt-svc` file).
    public var source: AltSvcUse.Source
    /// The alternative tried, `host:port` (UDP, QUIC).
    public var alternative: String
    /// Why the attempt failed, as sonde classifies it (code, message, libcurl's code).
    public var error: TaskError
    /// When the attempt started.
    public var startedAt: Timestamp
    /// What the attempt cost before sonde fell back, milliseconds.
    public var durationMs: Double

    public init(source: AltSvcUse.Source, alternative: String, error: TaskError, startedAt: Timestamp, durationMs: Double) {
        self.source = source
        self.alternative = alternative
        self.error = error
        self.startedAt = startedAt
        self.durationMs = durationMs
    }

    /// One line for people: "h3 alternative 127.0.0.1:4434 (from a response) failed after 1.39 ms
    /// (connectionRefused); sent to the origin instead, no alternative for the rest of the run".
    public var summary: String {
        let from = source == .response ? "from a response" : "from the cache file"
        let cost = (durationMs * 100).rounded() / 100
        return "h3 alternative \(alternative) (\(from)) failed after \(cost) ms (\(error.code.rawValue)); "
            + "sent to the origin instead, no alternative for the rest of the run"
    }
}

extension AltSvcFailure: FieldModel {
    public static let blank = AltSvcFailure(source: .response, alternative: "", error: .blank, startedAt: TaskInterval.blank.start, durationMs: 0)
    /// Flat formats carry the summary line.
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .string(summary) }
    public static var schemaName: String? { "altSvcFailure" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("source", &source, .required)
        try v.visit("alternative", &alternative, FieldRule(required: true, unit: .nonEmpty))
        try v.visit("error", &error, .required)
        try v.visit("startedAt", &startedAt, .required)
        try v.visit("durationMs", &durationMs, .requiredMilliseconds)
    }
}
