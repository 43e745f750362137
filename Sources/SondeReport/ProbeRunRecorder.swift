import Foundation
import SondeCore

/// Receives a probe run's tasks as they complete and keeps nothing unbounded: each task goes to
/// the JSONL journal at once, into the summary's histograms, and (the first few hundred) into the
/// sample the HTML report draws. `finish` writes `report.json` and `report.html` from those.
public final class ProbeRunRecorder {
    public let folder: RunFolder
    public let tool: ToolInfo
    public private(set) var run: RunInfo
    private let journal: Journal
    private var summary = ProbeSummaryBuilder()
    private let encoder = ReportJSONWriter.makeEncoder()
    /// Reused for every task line (its capacity persists), written without `JSONEncoder`.
    private var line = JSONOutput(capacity: 8192)
    /// Tasks kept for the HTML report: the first `sampleLimit`, plus failures up to the same limit.
    public private(set) var sample: [ProbeTask] = []
    private var sampledFailures = 0
    public static let sampleLimit = 300

    public init(folder: RunFolder, tool: ToolInfo, run: RunInfo) throws(TaskError) {
        self.folder = folder
        self.tool = tool
        self.run = run
        journal = try Journal(path: folder.journalPath)
        try append(RunLine(tool: tool, run: run))
        try journal.flush()
    }

    public var currentSummary: ProbeSummary { summary.result }

    public func record(_ task: ProbeTask) throws(TaskError) {
        summary.add(task)
        if sample.count < Self.sampleLimit {
            sample.append(task)
        } else if task.error != nil && sampledFailures < Self.sampleLimit {
            sample.append(task)
            sampledFailures += 1
        }
        line.reset()
        line.appendRaw(ReportJSONWriter.probeLinePrefix)
        task.writeJSON(to: &line)
        line.appendRaw(ReportJSONWriter.probeLineSuffix)
        try journal.append(line: line.bytes)
    }

    /// Flushes the journal if its buffer has waited a flush interval (call this while idle).
    public func flushIfDue() throws(TaskError) { try journal.flushIfDue() }

    /// Ends the run: closes the journal and writes the reports. Returns the final summary.
    @discardableResult
    public func finish(status: RunStatus) throws(TaskError) -> ProbeSummary {
        run.status = status
        run.finishedAt = Timestamp.now()
        try append(EndLine(status: status, finishedAt: run.finishedAt!))
        try journal.close()
        let result = summary.result
        try ReportJSONWriter.write(tool: tool, run: run, summary: result, journalPath: folder.journalPath,
                                   to: folder.reportJSONPath)
        let html = HTMLReportRenderer.render(tool: tool, run: run, summary: result, sample: sample)
        try writeFileAtomically(Array(html.utf8), to: folder.reportHTMLPath)
        return result
    }

    private func append(_ value: some Encodable) throws(TaskError) {
        do {
            try journal.append(line: Array(try encoder.encode(value)))
        } catch let error as TaskError {
            throw error
        } catch {
            throw TaskError(code: .internalError, message: "cannot encode a journal line: \(error)")
        }
    }
}

private struct RunLine: Encodable {
    let type = JournalEntryKind.run
    let tool: ToolInfo
    let run: RunInfo
}

private struct EndLine: Encodable {
    let type = JournalEntryKind.end
    let status: RunStatus
    let finishedAt: Timestamp
}
