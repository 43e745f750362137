/// This run against a baseline run, phase by phase (all transactions with a response): the
/// report's `baseline` section, the HTML regression table and `sonde report --baseline`.
public struct BaselineComparison: Codable, Sendable, Equatable {
    public struct Row: Codable, Sendable, Equatable {
        public var phase: String
        public var aggregation: String
        public var baselineMs: Double
        public var currentMs: Double
        /// current − baseline, milliseconds.
        public var changeMs: Double
        /// (current − baseline) / baseline; null when the baseline value is 0.
        public var changeRatio: Double?

        /// Worse by more than 10 % and more than 1 ms: what the HTML and the terminal highlight.
        public var isRegression: Bool { (changeRatio ?? 0) > 0.10 && changeMs > 1 }
        /// Better by more than 10 % and more than 1 ms.
        public var isImprovement: Bool { (changeRatio ?? 0) < -0.10 && changeMs < -1 }
    }

    public var baselineRunID: String
    public var baselineStartedAt: Timestamp
    public var baselineTasks: Int
    public var rows: [Row]

    public static let aggregations = ["p50", "p95", "p99"]

    public init(current: ProbeSummary, baseline: ProbeSummary, baselineRun: RunInfo) {
        baselineRunID = baselineRun.id
        baselineStartedAt = baselineRun.startedAt
        baselineTasks = baseline.tasks
        var rows: [Row] = []
        for phase in Phases.names {
            guard let now = current.all[phase], let before = baseline.all[phase] else { continue }
            for aggregation in Self.aggregations {
                let a = before.value(named: aggregation), b = now.value(named: aggregation)
                rows.append(Row(phase: phase, aggregation: aggregation, baselineMs: a, currentMs: b, changeMs: b - a,
                                changeRatio: a > 0 ? (b - a) / a : nil))
            }
        }
        self.rows = rows
    }
}
