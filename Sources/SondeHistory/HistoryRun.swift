import GRDB
import SondeCore

/// One recorded run (table `run`): what its report.json says of the run, where its folder is,
/// and from where it ran. Times are microseconds since 1970 (UTC).
///
/// Invariant: `id` is the run id of the folder's report.json; `folder` is the run folder's
/// absolute path when it was recorded (the page links to `folder/report.html`).
public struct HistoryRun: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "run"

    public var id: String
    /// The command that wrote the run: probe, soak, resume, run, demo, analyze.
    public var command: String
    /// passed, failed, error, interrupted or timeout (`RunStatus`).
    public var status: String
    public var startedAt: Int64
    public var finishedAt: Int64?
    /// Where the run was made from (a `sonde serve` vantage name); nil for a plain command.
    public var vantage: String?
    public var folder: String
    public var toolVersion: String
    public var insecure: Bool
    public var redacted: Bool
    /// When the row was written.
    public var recordedAt: Int64
    /// What the run measured (`RunSubject.json`), nil when its report does not say.
    public var subject: String?

    public var started: Timestamp { Timestamp(microsecondsSince1970: startedAt) }
}
