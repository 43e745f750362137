/// Whether a URL can be resumed the way URLSession resumes a download (`resumeVerdicts[]`),
/// check by check with the headers seen as evidence.
///
/// Invariant: `resumable` is true exactly when every required check passed.
public struct ResumeVerdict: Codable, Sendable, Equatable {
    /// Redacted.
    public var url: String
    public var resumable: Bool
    public var checks: [ResumeCheck]
    /// What URLSession would do with an interrupted download of this URL, in words.
    public var urlSession: String
    /// The check of a `sonde run` suite the verdict belongs to; nil (and absent) in runs without checks.
    public var check: String?

    public init(url: String, checks: [ResumeCheck], urlSession: String) {
        self.url = url
        self.checks = checks
        self.resumable = checks.allSatisfy { !$0.required || $0.passed }
        self.urlSession = urlSession
    }
}

/// One check of a verdict.
public struct ResumeCheck: Codable, Sendable, Equatable {
    /// A stable identifier: getSucceeds, validator, stableValidator, acceptRanges, rangeRequest,
    /// ifRangeCurrent, ifRangeStale, multipleRanges, digest.
    public var name: String
    public var passed: Bool
    /// Whether resumption depends on it (the others are informational).
    public var required: Bool
    /// What was asked and what came back (status and the relevant headers).
    public var evidence: String

    public init(name: String, passed: Bool, required: Bool, evidence: String) {
        self.name = name
        self.passed = passed
        self.required = required
        self.evidence = evidence
    }
}
