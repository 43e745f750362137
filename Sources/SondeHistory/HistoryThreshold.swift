import GRDB
import SondeCore

/// One threshold of a recorded run (table `threshold`): its expression, observed value (in the
/// metric's canonical unit, nil when there was no data) and verdict, as report.json holds them.
public struct HistoryThreshold: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "threshold"

    public var id: Int64?
    public var runId: String
    /// The check whose rule it is; nil for the run's own thresholds.
    public var checkName: String?
    public var expression: String
    public var observed: Double?
    public var passed: Bool
    public var message: String

    init(runId: String, _ result: ThresholdResult) {
        self.runId = runId
        checkName = result.check
        expression = result.expression
        observed = result.observed
        passed = result.passed
        message = result.message
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
