import Foundation
import SondeCore

/// `sonde history --json`: every check's trend and the newest recorded runs, as one JSON
/// document (keys sorted). Times ISO 8601 UTC; figures in their units (`HistoryMetric.unit`).
public struct HistoryJSON: Encodable, Sendable {
    public var history: String
    public var since: Timestamp?
    public var regressionRule: String
    public var checks: [Check]
    /// The newest `last` check results in the range, oldest first.
    public var runs: [Run]

    public struct Check: Encodable, Sendable {
        public var name: String
        public var kind: String
        public var runs: Int
        public var newestRunId: String
        public var newestStatus: String
        public var newestStartedAt: Timestamp
        public var figures: [Figure]
        public var regressions: [HistoryMetric]
    }

    public struct Figure: Encodable, Sendable {
        public var metric: HistoryMetric
        public var value: Double
        public var previousMedian: Double?
        public var regressed: Bool
    }

    public struct Run: Encodable, Sendable {
        public var runId: String
        public var command: String
        public var check: String
        public var kind: String
        public var status: String
        public var startedAt: Timestamp
        public var folder: String
        public var vantage: String?
        public var tasks: Int
        public var failedTasks: Int
        public var protocols: [String: Int]
        public var thresholdsFailed: Int
        public var figures: [String: Double]
    }

    /// - Parameter last: how many runs to list (clamped to 0…`HistoryStore.maxLimit`).
    public init(store: HistoryStore, check: String?, since: Timestamp?, last: Int) throws(TaskError) {
        history = store.path
        self.since = since
        regressionRule = HistoryTrend.rule
        checks = try store.trends(check: check, since: since).map { trend in
            Check(name: trend.name, kind: trend.kind, runs: trend.runs, newestRunId: trend.newest.run.id,
                  newestStatus: trend.newest.check.status, newestStartedAt: trend.newest.check.started,
                  figures: trend.figures.map { Figure(metric: $0.metric, value: $0.value, previousMedian: $0.previousMedian, regressed: $0.regressed) },
                  regressions: trend.regressions)
        }
        runs = try store.runs(check: check, since: since, limit: last).map { entry in
            var figures: [String: Double] = [:]
            for metric in HistoryMetric.allCases { figures[metric.rawValue] = entry.check.value(metric) }
            return Run(runId: entry.run.id, command: entry.run.command, check: entry.check.name, kind: entry.check.kind,
                       status: entry.check.status, startedAt: entry.check.started, folder: entry.run.folder, vantage: entry.run.vantage,
                       tasks: entry.check.tasks, failedTasks: entry.check.failedTasks, protocols: entry.check.protocols,
                       thresholdsFailed: entry.check.thresholdsFailed, figures: figures)
        }
    }

    /// The document's bytes, keys sorted, non-finite numbers (a database another program wrote)
    /// as strings rather than an encoding error.
    public func encoded() throws(TaskError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do { return try encoder.encode(self) } catch {
            throw TaskError(code: .internalError, message: "cannot encode the history: \(error)")
        }
    }
}
