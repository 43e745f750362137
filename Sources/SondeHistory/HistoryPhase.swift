import GRDB
import SondeCore

/// One phase's distribution in a recorded check (table `phase`): over all, cold (new connection)
/// or warm (reused) transactions, as the check's `ProbeSummary` holds it. Milliseconds.
public struct HistoryPhase: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "phase"

    public var checkResultId: Int64
    /// all, cold or warm.
    public var population: String
    /// One of `Phases.names`.
    public var phase: String
    public var count: Int
    public var min: Double
    public var p50: Double
    public var p90: Double
    public var p95: Double
    public var p99: Double
    public var max: Double
    public var mean: Double

    init(checkResultId: Int64, population: String, phase: String, _ distribution: DistributionSummary) {
        self.checkResultId = checkResultId
        self.population = population
        self.phase = phase
        count = distribution.count
        min = distribution.min
        p50 = distribution.p50
        p90 = distribution.p90
        p95 = distribution.p95
        p99 = distribution.p99
        max = distribution.max
        mean = distribution.mean
    }
}
