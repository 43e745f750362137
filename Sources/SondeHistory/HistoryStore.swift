import Foundation
import GRDB
import SondeCore

/// The run history: an embedded SQLite database (WAL journal) with a row per run, per check and
/// per threshold (`HistorySchema`). `sonde run --history DB` and the other run commands add the
/// run they finished; `sonde history` and `sonde serve` read trends from it.
///
/// Safety: `open` refuses a symbolic link at the path (or at its `-wal`/`-shm`/`-journal`
/// companions) and a file that is not a SQLite database, with a thrown error in words; a new
/// database file is created with `O_CREAT | O_EXCL | O_NOFOLLOW` (`NoFollowFile`). Every run is
/// written in one transaction, so a process killed mid-write leaves the database as it was
/// before that run (SQLite's WAL recovery on the next open).
///
/// Reading (`openForReading`) never writes: a history on a read-only filesystem, or one this
/// process may not write, is read as it is.
///
/// Threading: one serialized connection (GRDB `DatabaseQueue`); the store may be shared between
/// tasks and threads. Other processes may use the same file at once: a writer waits up to
/// `busyTimeout` for another's transaction.
public final class HistoryStore: Sendable {
    /// The history file `sonde history` reads when `--history` is not given: `<output-dir>/history.sqlite`.
    public static let defaultFileName = "history.sqlite"
    /// How long a write waits for another process's transaction before it fails.
    public static let busyTimeout: TimeInterval = 10
    /// The most runs a query returns or a median reads.
    public static let maxLimit = 1_000_000

    public let path: String
    let queue: DatabaseQueue

    private init(path: String, queue: DatabaseQueue) {
        self.path = path
        self.queue = queue
    }

    /// Opens the history at `path`, creating it (and its missing parent folders) when absent
    /// unless `create` is false, and migrating it to the current schema.
    /// - Throws: `TaskError` (`localIOError`) saying why: a symbolic link, not a regular file, not
    ///   a SQLite database, absent (with `create` false), or SQLite's own error.
    public static func open(path: String, create: Bool = true) throws(TaskError) -> HistoryStore {
        try HistoryFile.prepare(path, create: create)
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "sonde-history"
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try HistorySchema.migrator.migrate(queue)
        } catch {
            throw HistoryFile.failure(path, error)
        }
        return HistoryStore(path: path, queue: queue)
    }

    /// Opens the existing history at `path` to read it only (`sonde history`, `--baseline
    /// history:…`): opened read-only, never created, migrated or switched to WAL. Where SQLite
    /// cannot make the WAL's shared-memory file beside it (a read-only filesystem, and no writer
    /// has the database open, so there is none), it is opened as immutable. A history of an older
    /// schema is opened for writing instead, which upgrades it (as `open` does).
    /// - Throws: `TaskError` (`localIOError`) saying why, as `open` does; a store that `record`
    ///   would write fails.
    public static func openForReading(path: String) throws(TaskError) -> HistoryStore {
        try HistoryFile.prepare(path, create: false)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "sonde-history"
        func current(_ location: String) throws -> (queue: DatabaseQueue, current: Bool) {
            let queue = try DatabaseQueue(path: location, configuration: configuration)
            return (queue, try queue.read { try HistorySchema.migrator.hasCompletedMigrations($0) })
        }
        let opened: (queue: DatabaseQueue, current: Bool)
        do {
            do {
                opened = try current(path)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {
                opened = try current(HistoryFile.uri(path, parameters: "mode=ro&immutable=1"))
            }
        } catch {
            throw HistoryFile.failure(path, error)
        }
        guard opened.current else { return try open(path: path, create: false) }
        return HistoryStore(path: path, queue: opened.queue)
    }

    /// Opens the history at `path` for a long-running process that records runs but can live
    /// without (`sonde serve`): as `open` does, or, when that fails and the file exists and reads
    /// (a read-only file or filesystem, a file of another user), as `openForReading` does, so its
    /// trends still show. `unwritable` then says why no run can be recorded (`open`'s error).
    /// - Throws: `open`'s error when the file cannot be read either.
    public static func openRecordingIfPossible(path: String) throws(TaskError) -> (store: HistoryStore, unwritable: String?) {
        let writeFailure: TaskError
        do throws(TaskError) {
            return (try open(path: path), nil)
        } catch {
            writeFailure = error
        }
        do throws(TaskError) {
            return (try openForReading(path: path), writeFailure.message)
        } catch {
            throw writeFailure
        }
    }

    /// What `record` did.
    public struct Recorded: Sendable, Equatable {
        public var runID: String
        /// The checks recorded for the run.
        public var checks: [String]
        /// True when the run was already in the history: its rows were replaced (recording a run
        /// again leaves the history as recording it once, e.g. after `sonde report` re-rendered it).
        public var replaced: Bool
    }

    /// Adds a finished run folder's report.json to the history in one transaction: the run, one
    /// row per check (a run without suite checks counts as one check, named by the command and its
    /// first URL: `probe https://host/path`), their phases and every threshold. Idempotent per
    /// run id. - Parameter vantage: where the run was made from (`sonde serve`), nil otherwise.
    @discardableResult
    public func record(runFolder: String, vantage: String? = nil) throws(TaskError) -> Recorded {
        let document = try HistoryRecorder.read(folder: runFolder)
        let rows = HistoryRecorder.rows(document, folder: runFolder, vantage: vantage)
        let replaced = try insert([rows], doing: "record \(runFolder)")
        return Recorded(runID: rows.run.id, checks: rows.checks.map(\.check.name), replaced: replaced > 0)
    }

    /// Writes runs' rows in one transaction, each replacing the run of the same id; returns how
    /// many were replaced.
    func insert(_ runs: [HistoryRecorder.Rows], doing what: String = "write") throws(TaskError) -> Int {
        try access(what) {
            try queue.write { db in
                var replaced = 0
                for rows in runs {
                    if try HistoryRun.deleteOne(db, key: rows.run.id) { replaced += 1 }
                    try rows.run.insert(db)
                    for (check, summary) in rows.checks {
                        var check = check
                        try check.insert(db)
                        guard let id = check.id, let summary else { continue }
                        for (population, table) in [("all", summary.all), ("cold", summary.cold), ("warm", summary.warm)] {
                            for (phase, distribution) in table.sorted(by: { $0.key < $1.key }) {
                                try HistoryPhase(checkResultId: id, population: population, phase: phase, distribution: distribution).insert(db)
                            }
                        }
                    }
                    for threshold in rows.thresholds {
                        var threshold = threshold
                        try threshold.insert(db)
                    }
                }
                return replaced
            }
        }
    }

    /// Recorded checks with their runs, oldest first: those of `check` (every check when nil)
    /// that started at or after `since`, the newest `limit` of them when given (1…`maxLimit`).
    public func runs(check: String? = nil, since: Timestamp? = nil, limit: Int? = nil) throws(TaskError) -> [HistoryEntry] {
        try access("read") {
            try queue.read { db in
                var request = filtered(check: check, since: since).including(required: HistoryCheck.run)
                    .order(Column("startedAt").desc, Column("id").desc)
                if let limit { request = request.limit(Swift.max(0, Swift.min(limit, Self.maxLimit))) }
                return try HistoryEntry.fetchAll(db, request).reversed()
            }
        }
    }

    /// The names of every recorded check, sorted.
    public func checks() throws(TaskError) -> [String] {
        try access("read") {
            try queue.read { db in
                try String.fetchAll(db, HistoryCheck.select(Column("name"), as: String.self).distinct().order(Column("name")))
            }
        }
    }

    /// The median of `metric` over the newest `last` runs of `check` that have a value for it
    /// (`--baseline history:CHECK:median:N`); nil when there is none or `last` < 1.
    public func median(check: String, metric: HistoryMetric, last: Int) throws(TaskError) -> Double? {
        guard last > 0 else { return nil }
        return HistoryStatistics.median(try newest(metric, check: check, since: nil, limit: last))
    }

    /// A summary whose every phase distribution (over all, cold and warm transactions) holds,
    /// per aggregation, the median over the newest `last` runs of `check` that have that phase,
    /// and whose task and transaction counts are those runs' medians; with the newest run's start
    /// (µs). Nil when the check has no run. For `--baseline history:CHECK:median:N`.
    public func medianSummary(check: String, last: Int) throws(TaskError) -> (summary: ProbeSummary, newestStartedAt: Int64)? {
        try medianSummary(of: filtered(check: check, since: nil).order(Column("startedAt").desc, Column("id").desc)
            .limit(Swift.max(0, Swift.min(last, Self.maxLimit))))
    }

    /// The newest recorded run of `subject` that ran to its end (passed or failed), started before
    /// `before` (µs since 1970, nil: any time) and other than `excluding`; nil when there is none.
    /// For `--baseline previous`.
    public func newestRun(of subject: RunSubject, before: Int64? = nil, excluding: String? = nil) throws(TaskError) -> HistoryRun? {
        try access("read") {
            try queue.read { db in
                var request = HistoryRun.filter(Column("subject") == subject.json)
                    .filter([RunStatus.passed.rawValue, RunStatus.failed.rawValue].contains(Column("status")))
                if let before { request = request.filter(Column("startedAt") < before) }
                if let excluding { request = request.filter(Column("id") != excluding) }
                return try request.order(Column("startedAt").desc, Column("id").desc).fetchOne(db)
            }
        }
    }

    /// The summary of a recorded run that has exactly one check (its phases and counts, as
    /// `medianSummary` gives them for one run); nil when the run has no check or several (their
    /// pooled summary is not recorded: only each check's).
    public func summary(ofRun runID: String) throws(TaskError) -> ProbeSummary? {
        let request = HistoryCheck.filter(Column("runId") == runID)
        guard try access("read", { try queue.read { db in try request.fetchCount(db) } }) == 1 else { return nil }
        return try medianSummary(of: request)?.summary
    }

    /// The medians over the checks `request` selects, as `medianSummary(check:last:)` describes.
    private func medianSummary(of request: QueryInterfaceRequest<HistoryCheck>) throws(TaskError) -> (summary: ProbeSummary, newestStartedAt: Int64)? {
        let rows = try access("read") {
            try queue.read { db -> (checks: [HistoryCheck], phases: [Row]) in
                let checks = try request.fetchAll(db)
                let ids = checks.compactMap(\.id)
                return (checks, try Row.fetchAll(db, Table(HistoryPhase.databaseTableName).filter(ids.contains(Column("checkResultId")))))
            }
        }
        guard let newest = rows.checks.first else { return nil }
        func median(_ values: [Int]) -> Int { Int(saturating: (HistoryStatistics.median(values.map(Double.init)) ?? 0).rounded()) }
        var summary = ProbeSummary()
        summary.tasks = median(rows.checks.map(\.tasks))
        summary.failedTasks = median(rows.checks.map(\.failedTasks))
        summary.transactions = median(rows.checks.map(\.transactions))
        summary.reusedTransactions = median(rows.checks.map(\.reusedTransactions))
        var grouped: [String: [String: [Row]]] = [:]
        for row in rows.phases {
            let population: String = try access("read") { try row.decode(forColumn: "population") }
            let phase: String = try access("read") { try row.decode(forColumn: "phase") }
            grouped[population, default: [:]][phase, default: []].append(row)
        }
        for (population, phases) in grouped {
            var table: [String: DistributionSummary] = [:]
            for (phase, rows) in phases {
                func value(_ aggregation: String) -> Double {
                    HistoryStatistics.median(rows.compactMap { try? $0.decode(Double?.self, forColumn: aggregation) }) ?? 0
                }
                table[phase] = DistributionSummary(count: Int(saturating: value("count").rounded()), min: value("min"), p50: value("p50"), p90: value("p90"),
                                                   p95: value("p95"), p99: value("p99"), max: value("max"), mean: value("mean"))
            }
            switch population {
            case "cold": summary.cold = table
            case "warm": summary.warm = table
            default: summary.all = table
            }
        }
        return (summary, newest.startedAt)
    }

    /// The thresholds of a recorded run, the run's own first.
    public func thresholds(runID: String) throws(TaskError) -> [HistoryThreshold] {
        try access("read") {
            try queue.read { db in
                try HistoryThreshold.filter(Column("runId") == runID).order(Column("id")).fetchAll(db)
            }
        }
    }

    /// The trend of each check (of `check` only when given) over its runs since `since`: how many,
    /// the newest, and how it compares with the runs before it (`HistoryTrend`). By check name.
    public func trends(check: String? = nil, since: Timestamp? = nil) throws(TaskError) -> [HistoryTrend] {
        var names = check.map { [$0] } ?? []
        if check == nil { names = try checks() }
        var trends: [HistoryTrend] = []
        for name in names {
            let (count, recent) = try access("read") {
                try queue.read { db in
                    (try filtered(check: name, since: since).fetchCount(db),
                     try HistoryEntry.fetchAll(db, filtered(check: name, since: since).including(required: HistoryCheck.run)
                        .order(Column("startedAt").desc, Column("id").desc).limit(HistoryTrend.window + 1)))
                }
            }
            guard let trend = HistoryTrend(name: name, runs: count, newestFirst: recent) else { continue }
            trends.append(trend)
        }
        return trends
    }

    /// `check`'s runs since `since`, oldest first, in at most `buckets` points for a chart: with
    /// many runs, those of one slice of the time span (1/`buckets` of it) share a point
    /// (`HistorySeriesPoint`).
    public func series(check: String, since: Timestamp? = nil, buckets: Int = HistorySeriesPoint.defaultBuckets) throws(TaskError) -> [HistorySeriesPoint] {
        let buckets = Swift.max(1, Swift.min(buckets, 10_000))
        return try access("read") {
            try queue.read { db in
                let request = filtered(check: check, since: since)
                    .select(min(Column("startedAt")).forKey("first"), max(Column("startedAt")).forKey("last"))
                guard let bounds = try Row.fetchOne(db, request), let first = try bounds.decode(Int64?.self, forColumn: "first"),
                      let last = try bounds.decode(Int64?.self, forColumn: "last") else { return [] }
                // Last − first + 1 µs, in floating point: times from the database may be anything.
                let span = Double(last) - Double(first) + 1
                return try HistorySeriesPoint.fetchAll(db, sql: HistorySeriesPoint.sql,
                                                       arguments: [check, since?.microsecondsSince1970 ?? Int64.min, first, buckets, span])
            }
        }
    }

    /// SQLite's integrity check: [] when the database is sound, else its findings.
    public func integrityProblems() throws(TaskError) -> [String] {
        try access("check") {
            try queue.read { db in
                let findings = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                return findings == ["ok"] ? [] : findings
            }
        }
    }

    /// The newest `limit` values of `metric` for `check`, non-null, newest first.
    func newest(_ metric: HistoryMetric, check: String, since: Timestamp?, limit: Int) throws(TaskError) -> [Double] {
        try access("read") {
            try queue.read { db in
                let column = Column(metric.rawValue)
                return try Double.fetchAll(db, filtered(check: check, since: since).filter(column != nil)
                    .select(column, as: Double.self).order(Column("startedAt").desc, Column("id").desc)
                    .limit(Swift.min(limit, Self.maxLimit)))
            }
        }
    }

    private func filtered(check: String?, since: Timestamp?) -> QueryInterfaceRequest<HistoryCheck> {
        var request = HistoryCheck.all()
        if let check { request = request.filter(Column("name") == check) }
        if let since { request = request.filter(Column("startedAt") >= since.microsecondsSince1970) }
        return request
    }

    /// Runs `body`, turning whatever it throws into a `TaskError` that names the history file.
    private func access<T>(_ what: String, _ body: () throws -> T) throws(TaskError) -> T {
        do { return try body() } catch { throw HistoryFile.failure(path, error, doing: what) }
    }
}
