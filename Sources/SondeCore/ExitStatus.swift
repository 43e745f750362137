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
    case passed, failed, error, interrupted
}
