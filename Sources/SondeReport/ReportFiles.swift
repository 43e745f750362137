import Foundation
import SondeCore

/// What a finished (or rebuilt) run hands to the renderers.
public struct RunOutcome: Sendable {
    public var tool: ToolInfo
    public var run: RunInfo
    public var summary: ProbeSummary
    public var thresholds: [ThresholdResult]
    public var baseline: BaselineComparison?
    public var captures: [CaptureReport]
    public var soaks: [SoakReport]
    public var resume: ResumeResults
    /// Tasks the HTML draws (bounded; see `TaskSampler`).
    public var sample: [ProbeTask]

    public init(tool: ToolInfo, run: RunInfo, summary: ProbeSummary, thresholds: [ThresholdResult],
                baseline: BaselineComparison? = nil, captures: [CaptureReport] = [], soaks: [SoakReport] = [],
                resume: ResumeResults = ResumeResults(), sample: [ProbeTask]) {
        self.tool = tool
        self.run = run
        self.summary = summary
        self.thresholds = thresholds
        self.baseline = baseline
        self.captures = captures
        self.soaks = soaks
        self.resume = resume
        self.sample = sample
    }

    /// The process exit status of every command that writes a run (DESIGN.md): interrupted 130,
    /// then thresholds failed 99, then a failed task or run error 1, else 0.
    public var exitStatus: ExitStatus {
        if run.status == .interrupted { return .interrupted }
        if thresholds.contains(where: { !$0.passed }) { return .thresholdsFailed }
        return run.status == .passed ? .success : .failure
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
    /// - Parameters:
    ///   - thresholds: evaluate these instead of the results the journal's end line holds.
    ///   - baseline: compare with this run (replacing the comparison the end line holds).
    @discardableResult
    public static func render(folder: RunFolder, thresholds: [Threshold]? = nil, baseline: JournalScan.Result? = nil,
                              prometheusPath: String? = nil) throws(TaskError) -> RunOutcome {
        try JournalScan.requireJournal(folder)
        let spillJSON = folder.path + "/.report.json.tasks"
        let spillJUnit = folder.path + "/.junit.xml.cases"
        let jsonTasks = try AtomicFile(path: spillJSON)
        let junitCases = try AtomicFile(path: spillJUnit)
        let har = try AtomicFile(path: folder.reportHARPath)

        // A run with a live capture: every transaction gets its connection's evidence.
        let matcher = CaptureMatcher(captures: try JournalScan.liveCaptures(folder: folder))
        var taskLine = JSONOutput(capacity: 8192)
        var harWriter: HARWriter?
        var jsonBuffer: [UInt8] = [], harBuffer: [UInt8] = [], junitBuffer: [UInt8] = []
        var first = true
        let chunk = 1 << 20
        let scan = try JournalScan.scan(folder: folder, onRunLine: { (line: RunLine) in
            var writer = HARWriter(tool: line.tool, run: line.run)
            harBuffer += writer.start()
            harWriter = writer
        }, transform: { matcher.isEmpty ? nil : matcher.attach(to: $0) },
        onTask: { (task: ProbeTask, taskJSON: ArraySlice<UInt8>) throws(TaskError) in
            guard var writer = harWriter else { return }
            if !first { jsonBuffer.append(UInt8(ascii: ",")) }
            first = false
            jsonBuffer.append(UInt8(ascii: "\n"))
            if task.transactionMetrics.contains(where: { $0.capture != nil }) {
                // Evidence attached from the capture: the task is written anew (journalled ones have none).
                taskLine.reset()
                task.writeJSON(to: &taskLine)
                jsonBuffer += taskLine.bytes
            } else {
                jsonBuffer += taskJSON
            }
            harBuffer += writer.add(task)
            harWriter = writer
            junitBuffer += JUnitWriter.testCase(task)
            if jsonBuffer.count > chunk { try jsonTasks.write(jsonBuffer); jsonBuffer.removeAll(keepingCapacity: true) }
            if harBuffer.count > chunk { try har.write(harBuffer); harBuffer.removeAll(keepingCapacity: true) }
            if junitBuffer.count > chunk { try junitCases.write(junitBuffer); junitBuffer.removeAll(keepingCapacity: true) }
        })
        guard var harWriter else { throw JournalScan.notAJournal(folder) }
        try jsonTasks.write(jsonBuffer)
        try har.write(harBuffer + harWriter.finish())
        try junitCases.write(junitBuffer)
        // The spill files are read back from their temporary paths and never committed:
        // AtomicFile removes them when it goes away.

        // The run as it ended (or was killed), its thresholds and baseline comparison.
        var run = scan.run
        let result = scan.summary
        var results = scan.endLine?.thresholds ?? []
        var comparison = scan.endLine?.baseline
        if let baseline {
            comparison = BaselineComparison(current: result, baseline: baseline.summary, baselineRun: baseline.run)
        }
        if let thresholds {
            results = thresholds.map { $0.evaluate(result, baseline: baseline?.summary, soaks: scan.soaks) }
            if run.status == .passed || run.status == .failed {
                run.status = result.failedTasks == 0 && scan.soaks.allSatisfy(\.passed) && scan.resume.passed && results.allSatisfy(\.passed)
                    ? .passed : .failed
            }
        }

        let json = try AtomicFile(path: folder.reportJSONPath)
        try json.write(try ReportJSONWriter.header(tool: scan.tool, run: run))
        try json.append(contentsOfFile: jsonTasks.temporaryPath)
        try json.write(try ReportJSONWriter.trailer(summary: result, thresholds: results, baseline: comparison,
                                                          captures: scan.captures, soaks: scan.soaks, resume: scan.resume))
        let junit = try AtomicFile(path: folder.junitPath)
        try junit.write(JUnitWriter.head(run: run, summary: result, thresholds: results, soaks: scan.soaks, resume: scan.resume))
        try junit.append(contentsOfFile: junitCases.temporaryPath)
        try junit.write(JUnitWriter.tail)
        try json.commit()
        try har.commit()
        try junit.commit()

        let outcome = RunOutcome(tool: scan.tool, run: run, summary: result, thresholds: results, baseline: comparison,
                                 captures: scan.captures, soaks: scan.soaks, resume: scan.resume, sample: scan.sample)
        let html = HTMLReportRenderer.render(tool: outcome.tool, run: run, summary: result, thresholds: results,
                                             baseline: comparison, captures: scan.captures, soaks: scan.soaks,
                                             resume: scan.resume, sample: scan.sample)
        try writeFileAtomically(Array(html.utf8), to: folder.reportHTMLPath)
        if let prometheusPath {
            try writeFileAtomically(Array(PrometheusWriter.render(run: run, summary: result, thresholds: results,
                                                                  soaks: scan.soaks, resume: scan.resume).utf8),
                                    to: prometheusPath)
        }
        return outcome
    }
}
