import GRDB
import SondeCore

/// One phase's distribution in a recorded check (table `phase`): over all, cold (new connection)
/// or warm (reused) transactions, as the check's `ProbeSummary` holds it, one column per
/// `ThresholdMetric.aggregations` entry (milliseconds; `count` a count). Written with its check,
/// for per-phase trends and baselines; nothing reads it back yet.
struct HistoryPhase: PersistableRecord {
    static let databaseTableName = "phase"

    var checkResultId: Int64
    /// all, cold or warm.
    var population: String
    /// One of `Phases.names`.
    var phase: String
    var distribution: DistributionSummary

    func encode(to container: inout PersistenceContainer) {
        container["checkResultId"] = checkResultId
        container["population"] = population
        container["phase"] = phase
        for aggregation in ThresholdMetric.aggregations { container[aggregation] = distribution.value(named: aggregation) }
    }
}
