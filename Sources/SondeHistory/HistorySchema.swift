import GRDB
import SondeCore

/// The history database's tables, made and upgraded by one `DatabaseMigrator` (a migration is
/// never edited once released: a new one is appended).
///
/// Tables (times are microseconds since 1970, UTC; durations milliseconds; rates fractions 0…1):
/// - `run`: one row per run, keyed by its run id; `subject` (v2) its `RunSubject` as JSON (sorted
///   keys), null for runs recorded before or written without one.
/// - `checkResult`: one row per check of a run (a run without suite checks has one, see
///   `HistoryRecorder.plainCheckName`), with the summary figures the trends draw.
/// - `phase`: a check's per-phase distributions, over all, cold and warm transactions.
/// - `threshold`: every threshold of a run with its value and verdict (`checkName` null for the
///   run's own thresholds).
/// Rows of a run go with it (`ON DELETE CASCADE`), so re-recording a run replaces it whole.
enum HistorySchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "run") { t in
                t.primaryKey("id", .text)
                t.column("command", .text).notNull()
                t.column("status", .text).notNull()
                t.column("startedAt", .integer).notNull().indexed()
                t.column("finishedAt", .integer)
                t.column("vantage", .text)
                t.column("folder", .text).notNull()
                t.column("toolVersion", .text).notNull()
                t.column("insecure", .boolean).notNull()
                t.column("redacted", .boolean).notNull()
                t.column("recordedAt", .integer).notNull()
            }
            try db.create(table: "checkResult") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("run", onDelete: .cascade).notNull()
                t.column("name", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("status", .text).notNull()
                t.column("startedAt", .integer).notNull()
                t.column("tasks", .integer).notNull()
                t.column("failedTasks", .integer).notNull()
                t.column("transactions", .integer).notNull()
                t.column("reusedTransactions", .integer).notNull()
                t.column("protocols", .text).notNull()
                for metric in HistoryMetric.allCases { t.column(metric.rawValue, .double) }
                t.column("resumeTrials", .integer).notNull()
                t.column("resumeIntact", .integer).notNull()
                t.column("thresholdsFailed", .integer).notNull()
            }
            try db.create(index: "checkResult_name_startedAt", on: "checkResult", columns: ["name", "startedAt"])
            try db.create(index: "checkResult_startedAt", on: "checkResult", columns: ["startedAt"])
            try db.create(table: "phase") { t in
                t.belongsTo("checkResult", onDelete: .cascade).notNull()
                t.column("population", .text).notNull()
                t.column("phase", .text).notNull()
                for aggregation in ThresholdMetric.aggregations { t.column(aggregation, aggregation == "count" ? .integer : .double).notNull() }
                t.primaryKey(["checkResultId", "population", "phase"])
            }
            try db.create(table: "threshold") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("run", onDelete: .cascade).notNull()
                t.column("checkName", .text)
                t.column("expression", .text).notNull()
                t.column("observed", .double)
                t.column("passed", .boolean).notNull()
                t.column("message", .text).notNull()
            }
        }
        migrator.registerMigration("v2-subject") { db in
            try db.alter(table: "run") { t in t.add(column: "subject", .text) }
            try db.create(index: "run_subject_startedAt", on: "run", columns: ["subject", "startedAt"])
        }
        return migrator
    }
}
