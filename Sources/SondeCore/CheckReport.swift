/// One check of a `sonde run` suite (`checks[]` of report.json): how it ended and what its own
/// thresholds found. Its entries in the other sections (`probes`, `soaks`, `resumeTrials`,
/// `resumeVerdicts`) and its threshold results carry `check: name`.
///
/// Invariants: `status` follows `CheckReport.status(…)`; every result in `thresholds` has
/// `check == name`; `summary` is present exactly when the check recorded probe tasks.
public struct CheckReport: Codable, Sendable {
    /// The longest name a check may have, in UTF-8 bytes.
    public static let maxNameBytes = 200

    public var name: String
    /// Its kind's name (`CheckKind.name` in SondeSuite: probe, soak, resume, audit, …).
    public var kind: String
    public var status: RunStatus
    public var startedAt: Timestamp
    /// When the check ended; for a check that never ended (the process was killed), when the run ended.
    public var finishedAt: Timestamp
    /// What stopped the check itself, nil when it ran to its end.
    public var error: TaskError?
    /// The check's own thresholds, evaluated on its figures only.
    public var thresholds: [ThresholdResult]
    /// The check's probe tasks summarised, nil when it had none.
    public var summary: ProbeSummary?
    /// The emulated link the check ran over (`link:`), with its counters once it ended; nil on the
    /// machine's own network.
    public var link: LinkUse?

    public init(name: String, kind: String, status: RunStatus, startedAt: Timestamp, finishedAt: Timestamp,
                error: TaskError?, thresholds: [ThresholdResult], summary: ProbeSummary?, link: LinkUse? = nil) {
        self.name = name
        self.kind = kind
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.error = error
        self.thresholds = thresholds
        self.summary = summary
        self.link = link
    }

    /// A check's status, by the run's rule (`RunStatus.of`): `timeout` when its run's time limit
    /// ended it, `interrupted` when Ctrl-C ended it or it never ended, then `error` when something
    /// stopped it, then `failed` when a task, a soak, a resume trial or verdict, one of its report
    /// section items (`failedItems`: an audited URL, …) or one of its thresholds failed, else `passed`.
    public static func status(ended: Bool, timedOut: Bool = false, interrupted: Bool, error: TaskError?, failedTasks: Int, soaks: [SoakReport],
                              resume: ResumeResults, failedItems: Bool = false, thresholds: [ThresholdResult]) -> RunStatus {
        RunStatus.of(timedOut: ended && timedOut, interrupted: interrupted || !ended, error: error != nil,
                     failedWork: failedTasks > 0 || !soaks.allSatisfy(\.passed) || !resume.passed
                        || failedItems
                        || !thresholds.allSatisfy(\.passed))
    }

    /// Why `name` cannot name a check, or nil when it can: it must be non-empty, at most
    /// `maxNameBytes` long and free of control characters (it becomes a JUnit suite name, an HTML
    /// anchor and a Prometheus label value; each is escaped, but a newline would still mislead).
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "a check needs a name" }
        if name.utf8.count > maxNameBytes { return "the check name is longer than \(maxNameBytes) bytes" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the check name \(name.debugDescription) holds a control character"
        }
        return nil
    }
}
