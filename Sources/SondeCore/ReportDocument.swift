/// The report document (`report.json`), as read back by tests and by `sonde report`.
///
/// Writers stream it (see SondeReport.ReportJSONWriter) so that runs with many transactions do
/// not hold them in memory; this type is for reading, and for small documents. The arrays check
/// kinds fill themselves (`audits`, `streams`: SondeReport's `ReportSection`) are their modules'
/// models, not read here.
public struct ReportDocument: Codable, Sendable {
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var tool: ToolInfo
    public var run: RunInfo
    public var probes: [ProbeTask]
    public var summary: ProbeSummary?
    public var captures: [CaptureReport]?
    public var soaks: [SoakReport]?
    public var resumeTrials: [ResumeTrial]?
    public var resumeVerdicts: [ResumeVerdict]?
    /// The checks of a `sonde run` suite, in the order they began; absent for runs without checks.
    public var checks: [CheckReport]?
    public var thresholds: [ThresholdResult]?

    public init(schemaVersion: Int = ReportDocument.currentSchemaVersion, tool: ToolInfo, run: RunInfo,
                probes: [ProbeTask], summary: ProbeSummary?) {
        self.schemaVersion = schemaVersion
        self.tool = tool
        self.run = run
        self.probes = probes
        self.summary = summary
    }
}

/// One line of a run's `journal.jsonl`.
public enum JournalEntryKind: String, Codable, Sendable {
    /// First line: `{"type":"run","tool":…,"run":…}`.
    case run
    /// One per completed task: `{"type":"probe","probe":…}`.
    case probe
    /// Last line when the run ended normally or was interrupted: `{"type":"end","status":…,"finishedAt":…}`.
    case end
    /// The packet evidence of one capture (`sonde analyze`, `--capture`).
    case capture
    /// A WebSocket soak began: `{"type":"soak","url":…,"config":…,"startedAt":…}`.
    case soak
    /// One attempt of a soak's connection, written when it opens and again when it ends (the last wins).
    case wsAttempt = "ws-attempt"
    /// The ping, missed-ping and echo samples of a soak since the previous such line.
    case wsSamples = "ws-samples"
    /// The findings of an idle-timeout discovery.
    case wsIdle = "ws-idle"
    /// One finished resume trial: `{"type":"resume-trial","trial":…}`.
    case resumeTrial = "resume-trial"
    /// One resumability verdict: `{"type":"resume-verdict","verdict":…}`.
    case resumeVerdict = "resume-verdict"
    /// A check of a `sonde run` suite began: `{"check":{"kind":…,"name":…,"startedAt":…,"thresholds":[…]},"type":"check-begin"}`.
    /// Every line until its `check-end` belongs to it and carries its name.
    case checkBegin = "check-begin"
    /// The check under way ended: `{"check":{"error":…,"finishedAt":…,"interrupted":…,"name":…},"type":"check-end"}`.
    case checkEnd = "check-end"
    /// One item of a report.json array a check kind fills itself (SondeReport's `ReportSection`):
    /// `{"name":"streams","section":{…},"type":"section"}`. A kind's renderer may name a line of its
    /// own instead (`ReportSectionRenderer.journalLine`: an audited URL's `{"audit":…,"type":"audit"}`),
    /// which is not one of these cases.
    case section
}
