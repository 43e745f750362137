import SondeCore
import SondeHTTP

/// The legs of one resume trial as the trial runner records them, and each leg's span id and
/// `traceparent` header.
///
/// Invariant: every span id is 16 lowercase hex digits, never all zero (W3C Trace Context); the
/// header, when `traceID` is set, is `00-<traceID>-<the leg's span id>-01`, so the span exported
/// for the leg (`OTLPTracesBuilder`) is the parent the server sees.
/// Threading: a value owned by the trial's thread.
struct TrialLegs {
    /// The run's trace id (32 lowercase hex digits), when legs carry `traceparent`.
    let traceID: String?
    private(set) var legs: [ResumeLeg] = []

    init(traceID: String?) { self.traceID = traceID }

    var count: Int { legs.count }
    var tracing: Bool { traceID != nil }

    mutating func append(_ leg: ResumeLeg) { legs.append(leg) }

    /// The `traceparent` header naming `span` as the parent ([] when not tracing).
    func traceparent(span: String) -> [HeaderField] {
        guard let traceID else { return [] }
        return [HeaderField(name: "traceparent", value: SpanID.traceparent(trace: traceID, span: span))]
    }

    /// `milliseconds` rounded to the microsecond (the report's resolution).
    static func micro(_ milliseconds: Double) -> Double { (milliseconds * 1000).rounded() / 1000 }
}

extension TransferSettings {
    /// These settings with `headers` in place of their own (a leg's `traceparent` added).
    func with(headers: [HeaderField]) -> TransferSettings {
        var copy = self
        copy.headers = headers
        return copy
    }
}
