/// One leg of a resume trial (`resumeTrials[].legs[]`): one request that started, resumed or
/// retried the transfer, from its start to its end.
///
/// Invariants: `startMs` and `durationMs` are milliseconds (µs resolution) on the trial's clock
/// (`startMs` since the trial began); `bytes` counts the body bytes this request carried
/// (received for a download, handed to libcurl for an upload), wasted ones included;
/// `interruptedBy` is set exactly when `outcome` is `interrupted`, or `retried` after bytes had
/// moved (an unplanned stop); `spanId`, when present, is 16 lowercase hex digits: the id of the
/// leg's OTLP span, and the parent id its `traceparent` header carried (`--traceparent`).
public struct ResumeLeg: Sendable, Equatable {
    /// 1-based number within the trial.
    public var leg: Int
    /// From the trial's start to this request's start, milliseconds.
    public var startMs: Double
    /// From this request's start to its end (its last byte, its error, or the kill), milliseconds.
    public var durationMs: Double
    /// The byte offset the request started from: a download's `Range: bytes=N-` (0: the whole
    /// body), an upload's body offset.
    public var fromByte: Int64
    /// Body bytes the request carried.
    public var bytes: Int64
    /// "create", "append", "get" (a download request).
    public var request: String
    /// The final response's status; nil when none came.
    public var status: Int?
    /// "complete" (the transfer finished in this leg), "interrupted" (stopped at a planned stop, or
    /// cut by the path and then resumed), "restart" (the server answered the range wrongly: the next
    /// request starts from zero), "retried" (failed, and retried under the retry policy),
    /// "failed" (the trial ended here), "continued" (an upload append the server took, more to
    /// come), "recovered" (an upload the server answered 409 or 413: the next request asks it where
    /// the upload stands).
    public var outcome: String
    /// How the leg was stopped, when it was.
    public var interruptedBy: InterruptionKind?
    /// How the server answered this request when it resumed (see `ResumeInterruption.answeredWith`).
    public var answeredWith: String?
    /// From the request to its first body byte (download) or first body byte sent (upload), ms.
    public var firstByteMs: Double?
    public var error: TaskError?
    /// The OTLP span id of this leg (16 hex digits).
    public var spanId: String?

    public init(leg: Int, startMs: Double, durationMs: Double, fromByte: Int64, bytes: Int64, request: String, status: Int?,
                outcome: String, interruptedBy: InterruptionKind? = nil, answeredWith: String? = nil, firstByteMs: Double? = nil,
                error: TaskError? = nil, spanId: String? = nil) {
        self.leg = leg
        self.startMs = startMs
        self.durationMs = durationMs
        self.fromByte = fromByte
        self.bytes = bytes
        self.request = request
        self.status = status
        self.outcome = outcome
        self.interruptedBy = interruptedBy
        self.answeredWith = answeredWith
        self.firstByteMs = firstByteMs
        self.error = error
        self.spanId = spanId
    }

    /// The outcomes a leg can have (the schema's enum).
    public static let outcomes = ["complete", "interrupted", "restart", "retried", "failed", "continued", "recovered"]
}

extension ResumeLeg: FieldModel {
    public static let blank = ResumeLeg(leg: 0, startMs: 0, durationMs: 0, fromByte: 0, bytes: 0, request: "", status: nil, outcome: "")
    public static var schemaName: String? { "resumeLeg" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("leg", &leg, FieldRule(required: true, unit: .identifier))
        try v.visit("startMs", &startMs, .requiredMilliseconds)
        try v.visit("durationMs", &durationMs, .requiredMilliseconds)
        try v.visit("fromByte", &fromByte, .requiredCount)
        try v.visit("bytes", &bytes, .requiredCount)
        try v.visit("request", &request, FieldRule(required: true, values: ["get", "create", "append"]))
        try v.visit("status", &status, FieldRule(unit: .statusCode))
        try v.visit("outcome", &outcome, FieldRule(required: true, values: Self.outcomes))
        try v.visit("interruptedBy", &interruptedBy, .omittedWhenNil)
        try v.visit("answeredWith", &answeredWith, .omittedWhenNil)
        try v.visit("firstByteMs", &firstByteMs, FieldRule(omitsNil: true, unit: .milliseconds))
        try v.visit("error", &error, .omittedWhenNil)
        try v.visit("spanId", &spanId, FieldRule(omitsNil: true, pattern: "^[0-9a-f]{16}$"))
    }
}
