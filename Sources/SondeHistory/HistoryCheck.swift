import GRDB
import SondeCore

/// One check of a recorded run (table `checkResult`) with the figures its trends draw. A run
/// without suite checks has one, named by `HistoryRecorder.plainCheckName`.
///
/// Units: times in milliseconds, rates and the intact ratio as fractions 0…1, counts as counts.
/// A figure is nil when the check had no data for it (no response, no soak, no resume trial).
public struct HistoryCheck: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "checkResult"
    static let run = belongsTo(HistoryRun.self)

    /// The row id (nil before the row is inserted).
    public var id: Int64?
    public var runId: String
    public var name: String
    /// probe, soak or resume.
    public var kind: String
    /// The check's status: passed, failed, error, interrupted or timeout (`RunStatus`).
    public var status: String
    /// Microseconds since 1970.
    public var startedAt: Int64
    public var tasks: Int
    public var failedTasks: Int
    public var transactions: Int
    public var reusedTransactions: Int
    /// Transactions per protocol (`http/1.1`, `h2`, `h3`), the protocol mix.
    public var protocols: [String: Int]
    public var totalP50: Double?
    public var totalP95: Double?
    public var totalP99: Double?
    public var errorRate: Double?
    public var pingP99: Double?
    public var reconnects: Double?
    public var messagesLost: Double?
    public var intactRatio: Double?
    public var resumeTrials: Int
    public var resumeIntact: Int
    /// The check's own thresholds that failed (for a run without checks, the run's).
    public var thresholdsFailed: Int

    public var started: Timestamp { Timestamp(microsecondsSince1970: startedAt) }

    /// The figure of `metric`, nil when the check had none.
    public func value(_ metric: HistoryMetric) -> Double? {
        switch metric {
        case .totalP50: return totalP50
        case .totalP95: return totalP95
        case .totalP99: return totalP99
        case .errorRate: return errorRate
        case .pingP99: return pingP99
        case .reconnects: return reconnects
        case .messagesLost: return messagesLost
        case .intactRatio: return intactRatio
        }
    }

    mutating func set(_ metric: HistoryMetric, _ value: Double?) {
        switch metric {
        case .totalP50: totalP50 = value
        case .totalP95: totalP95 = value
        case .totalP99: totalP99 = value
        case .errorRate: errorRate = value
        case .pingP99: pingP99 = value
        case .reconnects: reconnects = value
        case .messagesLost: messagesLost = value
        case .intactRatio: intactRatio = value
        }
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
