import SondeCore
import SondeReport

/// How one scheduled run of a check ended: what `/metrics` serves until the check's next run, and
/// the scheduler's own figures for it.
public struct CheckRunRecord: Sendable {
    public var check: String
    /// The run's status (`RunStatus`: `passed`, `failed`, `error`, `interrupted`, or `timeout` when its
    /// `run-timeout` ended it), or `error` when no report was written.
    public var result: String
    /// Unix seconds.
    public var startedAt: Double
    public var finishedAt: Double
    /// The run's series (`PrometheusWriter.families`), nil when no report was written.
    public var families: PrometheusFamilies?
    /// The run folder, nil when none was written.
    public var folder: String?
    /// Why the run could not write its report or history (a full disk): said on `/metrics` and in the log.
    public var writeError: String?
    /// Seconds between when the run was due and when it started (set by the scheduler).
    public var lateness: Double = 0
    /// OTLP exports of this run that failed (a signal whose every bounded attempt failed); 0 without `otlp:`.
    public var exportErrors = 0

    public init(check: String, result: String, startedAt: Double, finishedAt: Double, families: PrometheusFamilies?,
                folder: String?, writeError: String? = nil) {
        self.check = check
        self.result = result
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.families = families
        self.folder = folder
        self.writeError = writeError
    }
}
