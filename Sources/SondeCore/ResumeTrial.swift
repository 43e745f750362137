/// One resume trial (`resumeTrials[]`): a transfer interrupted on purpose, resumed, and checked
/// byte for byte against a reference.
///
/// Invariants: `intact` is true only when `sha256 == expectedSha256` and both are known; a trial
/// that did not finish has `sha256 == nil`, `intact == false` and an `error`.
/// `bytesTransferred` counts every body byte received, `bytesWasted` those received and then
/// thrown away (a restart from zero, a rejected range), so for a finished download
/// `bytesTransferred - bytesWasted == length`.
public struct ResumeTrial: Sendable, Equatable {
    /// 1-based number within the run.
    public var trial: Int
    /// Redacted.
    public var url: String
    /// "download" or "upload".
    public var direction: String
    /// "http-range" for downloads (Range + If-Range, as URLSession resumes).
    public var `protocol`: String
    /// The size of the representation in bytes, when known.
    public var length: Int64?
    public var interruptions: [ResumeInterruption]
    public var retries: [TransferRetry]
    public var bytesTransferred: Int64
    public var bytesWasted: Int64
    /// Lowercase hex SHA-256 of the final file, nil when the transfer did not finish.
    public var sha256: String?
    /// What the file must hash to, nil when unknown.
    public var expectedSha256: String?
    /// Where `expectedSha256` came from: "reference" (sonde's uninterrupted download),
    /// "Repr-Digest" (the server's digest of the representation the final bytes belong to), or
    /// "file" (the uploaded file).
    public var expectedFrom: String?
    /// How `sha256` was learned: "download" (the file on disk), or for uploads "Repr-Digest" (the
    /// server's digest of what it holds) or "GET" (a follow-up download of the upload).
    public var verifiedBy: String?
    public var intact: Bool
    public var durationMs: Double
    /// length × 8 / duration, Mbit/s; nil when the trial did not finish.
    public var goodputMbps: Double?
    /// The body bytes on disk over time: [milliseconds since the trial began, bytes], at most a few hundred points.
    public var progress: [[Double]]
    /// Why the trial failed, nil when it finished (intact or not).
    public var error: TaskError?
    /// The check of a `sonde run` suite the trial belongs to; nil (and absent) in runs without checks.
    public var check: String?
    /// When the trial began (wall clock); nil (and absent) in reports written before sonde recorded it.
    public var startedAt: Timestamp?
    /// Every request of the trial in order; nil (and absent) in reports written before sonde recorded them.
    public var legs: [ResumeLeg]?

    public init(trial: Int, url: String, direction: String, protocol: String, length: Int64?,
                interruptions: [ResumeInterruption], retries: [TransferRetry], bytesTransferred: Int64,
                bytesWasted: Int64, sha256: String?, expectedSha256: String?, expectedFrom: String?,
                durationMs: Double, progress: [[Double]], error: TaskError?) {
        self.trial = trial
        self.url = url
        self.direction = direction
        self.protocol = `protocol`
        self.length = length
        self.interruptions = interruptions
        self.retries = retries
        self.bytesTransferred = bytesTransferred
        self.bytesWasted = bytesWasted
        self.sha256 = sha256
        self.expectedSha256 = expectedSha256
        self.expectedFrom = expectedFrom
        self.verifiedBy = sha256 != nil && direction == "download" ? "download" : nil
        self.intact = sha256 != nil && sha256 == expectedSha256
        self.durationMs = durationMs
        self.goodputMbps = (sha256 != nil && durationMs > 0) ? length.map { Double($0) * 8 / 1000 / durationMs } : nil
        self.progress = progress
        self.error = error
    }
}

/// How a transfer was interrupted.
public enum InterruptionKind: String, Sendable, CaseIterable, ModelValue {
    /// The client cancelled the transfer (URLSession's `cancel(byProducingResumeData:)`).
    case clientAbort
    /// The connection was cut under the transfer (sonde shuts the socket down, as a path would).
    case connectionDrop
    /// The transferring process was killed with SIGKILL; a new process resumed from the
    /// resume data on disk (an app terminated in the background).
    case processKill
    /// Not planned by sonde: the server or the path ended the transfer early (reset, EOF, stall).
    case unplanned
}

/// One interruption of a trial and how the resume after it was answered.
public struct ResumeInterruption: Sendable, Equatable {
    /// Body bytes on disk when the transfer stopped.
    public var atByte: Int64
    public var kind: InterruptionKind
    /// How the resume request was answered: "206" (the asked range, as asked), "200" (the whole
    /// body again: a restart), "416", "wrongRange" (206 for another range), "validatorChanged" (206
    /// for a different representation), "noValidator" (nothing to resume with: restarted from
    /// zero), an HTTP status, or "failed" when no answer came. nil while not resumed yet.
    public var answeredWith: String?
    /// From the resume request to its first new body byte, milliseconds.
    public var resumeLatencyMs: Double?
    /// The response headers that decided `answeredWith` (status, Content-Range, ETag).
    public var evidence: String?
    /// The connection the resume request went out on: after a `processKill` or a
    /// `connectionDrop` it is a new one (a relaunched app has no pool; a dropped connection is
    /// gone), and its connect and TLS times are part of `resumeLatencyMs`. nil while not resumed
    /// yet, and in reports written before sonde recorded it.
    public var resumeConnection: RequestConnection?

    public init(atByte: Int64, kind: InterruptionKind, answeredWith: String? = nil, resumeLatencyMs: Double? = nil,
                evidence: String? = nil, resumeConnection: RequestConnection? = nil) {
        self.atByte = atByte
        self.kind = kind
        self.answeredWith = answeredWith
        self.resumeLatencyMs = resumeLatencyMs
        self.evidence = evidence
        self.resumeConnection = resumeConnection
    }
}

/// One retry of a failed request, under the shared retry policy.
public struct TransferRetry: Sendable, Equatable {
    /// What failed: an error code (`timedOut`, `connectionReset`, …) or `httpStatus`.
    public var reason: String
    /// The HTTP status when the failure was a status (429, 503, …).
    public var status: Int?
    /// The server's Retry-After, as sent.
    public var retryAfter: String?
    /// The delay waited before the retry, milliseconds.
    public var delayMs: Double

    public init(reason: String, status: Int?, retryAfter: String?, delayMs: Double) {
        self.reason = reason
        self.status = status
        self.retryAfter = retryAfter
        self.delayMs = delayMs
    }
}

extension ResumeTrial: FieldModel {
    public static let blank = ResumeTrial(trial: 0, url: "", direction: "", protocol: "", length: nil, interruptions: [], retries: [],
                                          bytesTransferred: 0, bytesWasted: 0, sha256: nil, expectedSha256: nil, expectedFrom: nil,
                                          durationMs: 0, progress: [], error: nil)
    public static var schemaName: String? { "resumeTrial" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("check", &check, FieldRule(omitsNil: true, unit: .nonEmpty))
        try v.visit("trial", &trial, FieldRule(required: true, unit: .identifier))
        try v.visit("url", &url, .required)
        try v.visit("direction", &direction, FieldRule(required: true, values: ["download", "upload"]))
        try v.visit("protocol", &`protocol`, .required)
        try v.visit("length", &length, .count)
        try v.visit("interruptions", &interruptions, .required)
        try v.visit("retries", &retries, .required)
        try v.visit("bytesTransferred", &bytesTransferred, .requiredCount)
        try v.visit("bytesWasted", &bytesWasted, .requiredCount)
        try v.visit("sha256", &sha256, FieldRule(pattern: "^[0-9a-f]{64}$"))
        try v.visit("expectedSha256", &expectedSha256, FieldRule(pattern: "^[0-9a-f]{64}$"))
        try v.visit("expectedFrom", &expectedFrom, FieldRule(values: ["reference", "Repr-Digest", "file"]))
        try v.visit("verifiedBy", &verifiedBy, FieldRule(values: ["download", "Repr-Digest", "GET"]))
        try v.visit("intact", &intact, .required)
        try v.visit("durationMs", &durationMs, .requiredMilliseconds)
        try v.visit("goodputMbps", &goodputMbps, FieldRule(unit: .nonNegative))
        try v.visit("progress", &progress, FieldRule(required: true, unit: .nonNegative))
        try v.visit("error", &error, .field)
        try v.visit("startedAt", &startedAt, .omittedWhenNil)
        try v.visit("legs", &legs, .omittedWhenNil)
    }
}

extension ResumeInterruption: FieldModel {
    public static let blank = ResumeInterruption(atByte: 0, kind: .unplanned)
    public static var schemaName: String? { "resumeInterruption" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("atByte", &atByte, .requiredCount)
        try v.visit("kind", &kind, .required)
        try v.visit("answeredWith", &answeredWith, .field)
        try v.visit("resumeLatencyMs", &resumeLatencyMs, .milliseconds)
        try v.visit("evidence", &evidence, .field)
        try v.visit("resumeConnection", &resumeConnection, .field)
    }
}

extension TransferRetry: FieldModel {
    public static let blank = TransferRetry(reason: "", status: nil, retryAfter: nil, delayMs: 0)
    public static var schemaName: String? { "transferRetry" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("reason", &reason, .required)
        try v.visit("status", &status, .field)
        try v.visit("retryAfter", &retryAfter, .field)
        try v.visit("delayMs", &delayMs, .requiredMilliseconds)
    }
}
