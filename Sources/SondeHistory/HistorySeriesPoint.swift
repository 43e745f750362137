import GRDB

/// One point of a check's chart: one run, or for a long history the runs of one slice of its
/// time span (1/`defaultBuckets` of it) together, their figures averaged and linked to the newest
/// of them, so that 100,000 runs draw as a few hundred points. Times are microseconds since 1970.
public struct HistorySeriesPoint: Sendable, Equatable, FetchableRecord {
    /// Points a chart draws at most by default.
    public static let defaultBuckets = 400

    /// The last run of the point.
    public var startedAt: Int64
    public var runId: String
    public var folder: String
    public var status: String
    /// Runs in the point, and those of them that did not pass.
    public var runs: Int
    public var notPassed: Int
    /// Per figure, the mean over the point's runs that have it.
    public var values: [HistoryMetric: Double]

    /// Throws (never traps) on a value of the wrong type: the file may have been written by another program.
    public init(row: Row) throws {
        startedAt = try row.decode(forColumn: "startedAt")
        runId = try row.decode(forColumn: "runId")
        folder = try row.decode(forColumn: "folder")
        status = try row.decode(forColumn: "status")
        runs = try row.decode(forColumn: "runs")
        notPassed = try row.decode(forColumn: "notPassed")
        var values: [HistoryMetric: Double] = [:]
        for metric in HistoryMetric.allCases {
            if let value = try row.decode(Double?.self, forColumn: metric.rawValue), value.isFinite { values[metric] = value }
        }
        self.values = values
    }

    /// Buckets the runs of one check by time in SQLite (arguments: the first run's start, buckets,
    /// the span from first to last start plus one µs, check name, since µs): bucket =
    /// ⌊(start − first) × buckets ÷ span⌋, in floating point so that no value from the database
    /// overflows. Rows come from the `name, startedAt` index. The run named by a bucket is its
    /// newest (`max(startedAt)` is the grouping's only min/max aggregate, so SQLite takes the bare
    /// columns from that row); its folder is joined after grouping, once per point.
    static let sql: String = {
        let figures = HistoryMetric.allCases.map(\.rawValue)
        return """
        SELECT b.*, r.folder FROM
          (SELECT max(startedAt) AS startedAt, runId, status, count(*) AS runs, sum(status <> 'passed') AS notPassed,
                  \(figures.map { "avg(\($0)) AS \($0)" }.joined(separator: ", "))
           FROM checkResult WHERE name = ? AND startedAt >= ?
           GROUP BY CAST((startedAt - ?) * 1.0 * ? / ? AS INTEGER)) AS b
        JOIN run r ON r.id = b.runId ORDER BY b.startedAt
        """
    }()
}
