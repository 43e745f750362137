/// The process exit codes (README.md, "Exit codes"). Part of the product: scripts and CI depend on them.
public enum ExitStatus: Int32, Sendable {
    /// All good.
    case success = 0
    /// A probe, soak or trial failed.
    case failure = 1
    /// Usage or configuration error (EX_USAGE).
    case usage = 64
    /// Thresholds failed.
    case thresholdsFailed = 99
    /// Interrupted by SIGINT/SIGTERM; the report was written.
    case interrupted = 130
}

/// How a run ended, as recorded in `run.status`.
public enum RunStatus: String, Codable, Sendable {
    /// `timeout`: its own time limit ended it (`sonde serve`'s `run-timeout`), not a signal.
    case passed, failed, error, interrupted, timeout

    /// The one status rule of every command, in the exit codes' order (README, "Exit codes"):
    /// a run its own time limit ended is `timeout`, then one a signal ended is `interrupted`,
    /// whatever else happened; then a run that could not go on is `error`, then one with failed
    /// work (a task, a soak, a trial) is `failed`, else `passed`. Failing thresholds turn
    /// `passed` into `failed` when the run finishes.
    public static func of(timedOut: Bool = false, interrupted: Bool, error: Bool, failedWork: Bool) -> RunStatus {
        if timedOut { return .timeout }
        if interrupted { return .interrupted }
        if error { return .error }
        return failedWork ? .failed : .passed
    }
}
