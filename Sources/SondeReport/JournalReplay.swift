import Foundation
import SondeCore

/// Rebuilds a run's outcome from its JSONL journal alone, as `sonde report` does: for a run
/// that finished, and for one that was killed (SIGKILL, power loss) before its end line.
///
/// A killed run is reported as `interrupted`, with a warning that says so; its last line may be
/// cut mid-write and is skipped. Thresholds given here replace those the run recorded.
public enum JournalReplay {
    public static func outcome(folder: RunFolder, thresholds: [Threshold]? = nil) throws(TaskError) -> RunOutcome {
        guard FileManager.default.fileExists(atPath: folder.journalPath) else {
            throw TaskError(code: .localIOError,
                            message: "\(folder.path) has no journal.jsonl: give a run folder that sonde wrote (Reports/<run-id>)")
        }
        let decoder = JSONDecoder()
        var runLine: RunLine?
        var endLine: EndLine?
        var summary = ProbeSummaryBuilder()
        var sampler = TaskSampler()
        var skipped = 0
        var lastTaskEnd: Timestamp?
        try JournalReader.forEachLine(path: folder.journalPath) { (line: ArraySlice<UInt8>) throws(TaskError) in
            if let taskJSON = ReportJSONWriter.taskJSON(inJournalLine: line),
               let task = try? decoder.decode(ProbeTask.self, from: Data(taskJSON)) {
                summary.add(task)
                sampler.add(task)
                let end = task.taskInterval.start.adding(microseconds: Int64(task.taskInterval.durationMs * 1000))
                if lastTaskEnd.map({ end > $0 }) ?? true { lastTaskEnd = end }
            } else if runLine == nil, let decoded = try? decoder.decode(RunLine.self, from: Data(line)), decoded.type == .run {
                runLine = decoded
            } else if let decoded = try? decoder.decode(EndLine.self, from: Data(line)), decoded.type == .end {
                endLine = decoded
            } else {
                skipped += 1
            }
        }
        guard let runLine else {
            throw TaskError(code: .localIOError,
                            message: "\(folder.journalPath) does not start with a sonde run line: it is not a sonde journal, or it is damaged")
        }
        var run = runLine.run
        let result = summary.result
        var recorded: [ThresholdResult] = []
        if let endLine {
            run.status = endLine.status
            run.finishedAt = endLine.finishedAt
            recorded = endLine.thresholds
        } else {
            run.status = .interrupted
            run.finishedAt = lastTaskEnd
            run.warnings.append("Rebuilt from a journal without an end line: the run was killed before it finished. "
                + "It holds the \(result.tasks) tasks flushed to the journal before that.")
        }
        if skipped > 0 {
            run.warnings.append("\(skipped) journal line\(skipped == 1 ? " was" : "s were") unreadable (cut by the kill?) and skipped.")
        }
        var results = recorded
        if let thresholds {
            results = thresholds.map { $0.evaluate(result) }
            if run.status == .passed || run.status == .failed {
                run.status = result.failedTasks == 0 && results.allSatisfy(\.passed) ? .passed : .failed
            }
        }
        return RunOutcome(tool: runLine.tool, run: run, summary: result, thresholds: results, sample: sampler.tasks)
    }
}
