import Foundation
import SondeCore

/// What a finished (or rebuilt) run hands to the renderers.
public struct RunOutcome: Sendable {
    public var tool: ToolInfo
    public var run: RunInfo
    public var summary: ProbeSummary
    public var thresholds: [ThresholdResult]
    /// Tasks the HTML draws (bounded; see `TaskSampler`).
    public var sample: [ProbeTask]

    public init(tool: ToolInfo, run: RunInfo, summary: ProbeSummary, thresholds: [ThresholdResult], sample: [ProbeTask]) {
        self.tool = tool
        self.run = run
        self.summary = summary
        self.thresholds = thresholds
        self.sample = sample
    }
}

/// Renders every report file of a run folder from its journal alone, in one pass, reading each
/// task once: after a run (`ProbeRunRecorder.finish`) and for `sonde report` alike, so the two
/// can never disagree, and a run killed before its end line is rebuilt the same way.
///
/// - `report.json`: header (tool, run), every task line copied byte for byte, then summary and
///   sections. The run's final status is known only at the end (the end line is the journal's
///   last), so the task lines go to a spill file first and are copied in kernel-side.
/// - `report.har` streams directly; `junit.xml` spills its test cases (its header carries counts).
/// - `report.html` from the bounded sample; the Prometheus file when asked for.
/// Each file appears atomically (written beside, then renamed). A killed run is `interrupted`,
/// with a warning; lines that do not decode (cut mid-write) are skipped and counted in a warning.
public enum ReportFiles {
    /// - Parameter thresholds: evaluate these instead of the results the journal's end line holds.
    @discardableResult
    public static func render(folder: RunFolder, thresholds: [Threshold]? = nil, prometheusPath: String? = nil)
        throws(TaskError) -> RunOutcome {
        guard FileManager.default.fileExists(atPath: folder.journalPath) else {
            throw TaskError(code: .localIOError,
                            message: "\(folder.path) has no journal.jsonl: give a run folder that sonde wrote (Reports/<run-id>)")
        }
        let spillJSON = folder.path + "/.report.json.tasks"
        let spillJUnit = folder.path + "/.junit.xml.cases"
        let jsonTasks = try AtomicFile(path: spillJSON)
        let junitCases = try AtomicFile(path: spillJUnit)
        let har = try AtomicFile(path: folder.reportHARPath)

        let decoder = JSONDecoder()
        var runLine: RunLine?
        var endLine: EndLine?
        var summary = ProbeSummaryBuilder()
        var sampler = TaskSampler()
        var harWriter: HARWriter?
        var skipped = 0
        var lastTaskEnd: Timestamp?
        var jsonBuffer: [UInt8] = [], harBuffer: [UInt8] = [], junitBuffer: [UInt8] = []
        var first = true
        let chunk = 1 << 20

        try JournalReader.forEachLine(path: folder.journalPath) { (line: ArraySlice<UInt8>) throws(TaskError) in
            if let taskJSON = ReportJSONWriter.taskJSON(inJournalLine: line) {
                guard let task = ReportJSONWriter.decodeTask(taskJSON, fallback: decoder), var writer = harWriter else {
                    skipped += 1
                    return
                }
                summary.add(task)
                sampler.add(task)
                let end = task.taskInterval.start.adding(microseconds: Int64(task.taskInterval.durationMs * 1000))
                if lastTaskEnd.map({ end > $0 }) ?? true { lastTaskEnd = end }
                if !first { jsonBuffer.append(UInt8(ascii: ",")) }
                first = false
                jsonBuffer.append(UInt8(ascii: "\n"))
                jsonBuffer += taskJSON
                harBuffer += writer.add(task)
                harWriter = writer
                junitBuffer += JUnitWriter.testCase(task)
                if jsonBuffer.count > chunk { try jsonTasks.write(jsonBuffer); jsonBuffer.removeAll(keepingCapacity: true) }
                if harBuffer.count > chunk { try har.write(harBuffer); harBuffer.removeAll(keepingCapacity: true) }
                if junitBuffer.count > chunk { try junitCases.write(junitBuffer); junitBuffer.removeAll(keepingCapacity: true) }
            } else if runLine == nil, let decoded = try? decoder.decode(RunLine.self, from: Data(line)), decoded.type == .run {
                runLine = decoded
                var writer = HARWriter(tool: decoded.tool, run: decoded.run)
                harBuffer += writer.start()
                harWriter = writer
            } else if let decoded = try? decoder.decode(EndLine.self, from: Data(line)), decoded.type == .end {
                endLine = decoded
            } else {
                skipped += 1
            }
        }
        guard let runLine, var harWriter else {
            throw TaskError(code: .localIOError,
                            message: "\(folder.journalPath) does not start with a sonde run line: it is not a sonde journal, or it is damaged")
        }
        try jsonTasks.write(jsonBuffer)
        try har.write(harBuffer + harWriter.finish())
        try junitCases.write(junitBuffer)
        // The spill files are read back from their temporary paths and never committed:
        // AtomicFile removes them when it goes away.

        // The run as it ended (or was killed), and its thresholds.
        var run = runLine.run
        let result = summary.result
        var results: [ThresholdResult] = []
        if let endLine {
            run.status = endLine.status
            run.finishedAt = endLine.finishedAt
            results = endLine.thresholds
        } else {
            run.status = .interrupted
            run.finishedAt = lastTaskEnd
            run.warnings.append("Rebuilt from a journal without an end line: the run was killed before it finished. "
                + "It holds the \(result.tasks) tasks flushed to the journal before that.")
        }
        if skipped > 0 {
            run.warnings.append("\(skipped) journal line\(skipped == 1 ? " was" : "s were") unreadable (cut by a kill?) and skipped.")
        }
        if let thresholds {
            results = thresholds.map { $0.evaluate(result) }
            if run.status == .passed || run.status == .failed {
                run.status = result.failedTasks == 0 && results.allSatisfy(\.passed) ? .passed : .failed
            }
        }

        let json = try AtomicFile(path: folder.reportJSONPath)
        try json.write(try ReportJSONWriter.header(tool: runLine.tool, run: run))
        try json.append(contentsOfFile: jsonTasks.temporaryPath)
        try json.write(try ReportJSONWriter.trailer(summary: result, thresholds: results))
        let junit = try AtomicFile(path: folder.junitPath)
        try junit.write(JUnitWriter.head(run: run, summary: result, thresholds: results))
        try junit.append(contentsOfFile: junitCases.temporaryPath)
        try junit.write(JUnitWriter.tail)
        try json.commit()
        try har.commit()
        try junit.commit()

        let outcome = RunOutcome(tool: runLine.tool, run: run, summary: result, thresholds: results, sample: sampler.tasks)
        let html = HTMLReportRenderer.render(tool: outcome.tool, run: run, summary: result, thresholds: results, sample: sampler.tasks)
        try writeFileAtomically(Array(html.utf8), to: folder.reportHTMLPath)
        if let prometheusPath {
            try writeFileAtomically(Array(PrometheusWriter.render(run: run, summary: result, thresholds: results).utf8),
                                    to: prometheusPath)
        }
        return outcome
    }
}
