import SondeCore

/// The phase durations of one run's transactions as Prometheus histograms with fixed buckets:
/// `sonde_http_phase_duration_seconds{url,phase,connection}` (`_bucket{le}`, `_sum`, `_count`), one
/// series per URL as the check names it (redacted), phase (`Phases.names`) and connection (`cold`:
/// a new connection, `warm`: a reused one). What `sonde serve`'s `/metrics` serves for each check's
/// latest run beside the quantile summary (`sonde_http_phase_seconds`).
///
/// Each series holds one run: the next run of the check replaces it, so its counts are those of
/// that run and may go down between scrapes. Read it with `histogram_quantile(q, …_bucket)` on the
/// series as it is (the run's distribution), not through `rate()`.
///
/// Invariants: bucket counts are cumulative (never decreasing with `le`), the `+Inf` bucket equals
/// `_count`; only transactions with a response count (as in `ProbeSummary`), each phase only when it
/// happened (a warm transaction has no dns, connect or tls).
public struct PhaseHistograms: Sendable {
    /// The buckets' upper bounds in seconds, +Inf implied: 0.25 ms to 30 s, roughly ×2–2.5 apart,
    /// so that a loopback TLS handshake (about 1 ms) and a slow transfer (seconds) both fall inside.
    public static let bounds: [Double] = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    public static let name = "sonde_http_phase_duration_seconds"

    private struct Key: Hashable {
        var url: String
        var phase: Int
        var warm: Bool
    }

    private struct Counts {
        /// Per bound of `bounds` and one more for +Inf: the values in that bucket alone (not cumulative).
        var buckets = [Int](repeating: 0, count: PhaseHistograms.bounds.count + 1)
        /// Seconds.
        var sum = 0.0
        var count = 0
    }

    private var counts: [Key: Counts] = [:]
    /// Keys in the order first seen, so that the exposition is stable.
    private var order: [Key] = []

    public init() {}

    /// Transactions counted so far.
    public var isEmpty: Bool { counts.isEmpty }

    public mutating func add(_ task: ProbeTask) {
        for transaction in task.transactionMetrics where transaction.response != nil {
            for (index, value) in transaction.phases.values.enumerated() {
                guard let milliseconds = value, milliseconds.isFinite else { continue }
                let seconds = max(0, milliseconds / 1000)
                let key = Key(url: task.url, phase: index, warm: transaction.isReusedConnection)
                if counts[key] == nil {
                    counts[key] = Counts()
                    order.append(key)
                }
                let bucket = Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count
                counts[key]?.buckets[bucket] += 1
                counts[key]?.sum += seconds
                counts[key]?.count += 1
            }
        }
    }

    /// The histogram family (empty when no transaction was counted).
    public var families: PrometheusFamilies {
        var series: [PrometheusFamilies.HistogramSeries] = []
        for key in order {
            guard let entry = counts[key] else { continue }
            var running = 0
            var buckets: [(upperBound: Double, cumulativeCount: Int)] = []
            for (index, bound) in (Self.bounds + [.infinity]).enumerated() {
                running += entry.buckets[index]
                buckets.append((bound, running))
            }
            series.append(PrometheusFamilies.HistogramSeries(
                labels: [("url", key.url), ("phase", Phases.names[key.phase]), ("connection", key.warm ? "warm" : "cold")],
                buckets: buckets, sum: entry.sum, count: entry.count))
        }
        var families = PrometheusFamilies()
        families.addHistogram(Self.name, "Phase durations of the check's latest run (each transaction with a response), by URL, phase and cold or warm connection.", series)
        return families
    }

    /// The histograms of a run folder's tasks (its journal read once).
    public static func of(runFolder path: String) throws(TaskError) -> PhaseHistograms {
        let folder = RunFolder(existing: path)
        try JournalScan.requireJournal(folder)
        var histograms = PhaseHistograms()
        _ = try JournalScan.scan(folder: folder, onRunLine: { _ in }, onTask: { (task: ProbeTask, _: ArraySlice<UInt8>) throws(TaskError) in
            histograms.add(task)
        })
        return histograms
    }
}
