import SondeCore

/// One check's trend: how many runs, the newest one, and each figure of the newest run beside the
/// median of the runs before it, with the figures that regressed.
///
/// Regression rule: a figure regressed when the newest run's value is worse than the median of
/// the up to `window` (20) runs before it by more than `factor` (20 %) — and, for times, by more
/// than `timeFloorMs` (1 ms), so that sub-millisecond jitter on loopback is not a regression —:
/// higher for times, the error rate, reconnects and lost messages, lower for the intact ratio;
/// and only when at least `minimumPrevious` (3) earlier runs have the figure. An error rate (or
/// reconnects) above a median of 0 is a regression.
public struct HistoryTrend: Sendable, Equatable {
    public static let window = 20
    public static let factor = 1.2
    public static let minimumPrevious = 3
    public static let timeFloorMs = 1.0
    /// The rule in words, for the terminal and the page.
    public static let rule = "a figure regressed when the newest run is worse than the median of the \(window) runs before it "
        + "by more than 20% and, for times, 1 ms (higher times, error rate, reconnects or lost messages; a lower intact ratio), with at least \(minimumPrevious) runs before it"

    public var name: String
    public var kind: String
    /// Runs of the check in the range asked for.
    public var runs: Int
    /// The newest run's check and run.
    public var newest: HistoryEntry
    /// Per figure the newest run has: its value and the median of the runs before it (nil with none).
    public var figures: [Figure]

    public struct Figure: Sendable, Equatable {
        public var metric: HistoryMetric
        public var value: Double
        public var previousMedian: Double?
        public var regressed: Bool
    }

    public var regressions: [HistoryMetric] { figures.filter(\.regressed).map(\.metric) }

    /// - Parameter newestFirst: the check's newest runs, up to `window + 1`, newest first; nil when empty.
    init?(name: String, runs: Int, newestFirst: [HistoryEntry]) {
        guard let newest = newestFirst.first else { return nil }
        self.name = name
        kind = newest.check.kind
        self.runs = runs
        self.newest = newest
        let previous = newestFirst.dropFirst().prefix(Self.window)
        figures = HistoryMetric.allCases.compactMap { metric in
            guard let value = newest.check.value(metric) else { return nil }
            let before = previous.compactMap { $0.check.value(metric) }
            let median = HistoryStatistics.median(before)
            return Figure(metric: metric, value: value, previousMedian: median,
                          regressed: before.count >= Self.minimumPrevious && median.map { Self.worse(value, than: $0, metric) } == true)
        }
    }

    /// Whether `value` is worse than `median` by more than `factor`.
    static func worse(_ value: Double, than median: Double, _ metric: HistoryMetric) -> Bool {
        guard metric.higherIsWorse else { return value * factor < median }
        let floor = metric.unit == .milliseconds ? timeFloorMs : 0
        return value > median * factor && value - median > floor
    }
}
