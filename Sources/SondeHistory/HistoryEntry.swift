import GRDB

/// A recorded check with its run: one point of a check's trend, as `HistoryStore.runs` returns it.
public struct HistoryEntry: Sendable, Equatable, FetchableRecord {
    public var check: HistoryCheck
    public var run: HistoryRun

    /// From a `checkResult` row that includes its `run` (`HistoryCheck.including(required: HistoryCheck.run)`).
    public init(row: Row) throws {
        check = try HistoryCheck(row: row)
        guard let runRow = row.scopes["run"] else {
            throw RecordError.recordNotFound(databaseTableName: "run", key: ["id": check.runId.databaseValue])
        }
        run = try HistoryRun(row: runRow)
    }
}
