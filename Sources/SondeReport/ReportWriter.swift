import SondeCore

/// Writes a run's report files in two halves: the tasks as they come (`add`), then, once the run
/// has ended and its summary is known, each file's head and tail around them (`finish`).
///
/// Fed either by `ReportFiles.render` reading a journal, or by `RunRecorder` while the run
/// records (so a finished probe run does not read its journal back); both hand it the same task
/// values and the same journalled task JSON, so the files are the same byte for byte.
///
/// - `report.json`: header (tool, run), every task's JSON as journalled, then summary and sections.
///   The run's final status is known only at the end, so the task JSON goes to a spill file first
///   and is copied in kernel-side.
/// - `report.har` streams directly; `junit.xml` spills its test cases (its header carries counts).
/// - `report.html` from the outcome's bounded sample; the Prometheus file when asked for.
/// Each file appears atomically (written beside, then renamed); a writer dropped before `finish`
/// leaves nothing behind. Not thread-safe: one caller at a time.
final class ReportWriter {
    private let folder: RunFolder
    private let jsonTasks: AtomicFile
    private let junitCases: AtomicFile
    private let har: AtomicFile
    private var harWriter: HARWriter?
    /// Reused for tasks that are written anew (evidence attached after they were journalled).
    private var taskLine = JSONOutput(capacity: 8192)
    private var jsonBuffer: [UInt8] = []
    private var harBuffer: [UInt8] = []
    private var junitBuffer: [UInt8] = []
    private var firstTask = true
    /// Bytes a buffer collects before it is written out.
    private static let chunk = 1 << 20

    init(folder: RunFolder) throws(TaskError) {
        self.folder = folder
        jsonTasks = try AtomicFile(path: folder.path + "/.report.json.tasks")
        junitCases = try AtomicFile(path: folder.path + "/.junit.xml.cases")
        har = try AtomicFile(path: folder.reportHARPath)
    }

    /// Begins the files that name the run before its first task (HAR's creator and comment).
    func start(tool: ToolInfo, run: RunInfo) {
        var writer = HARWriter(tool: tool, run: run)
        harBuffer += writer.start()
        harWriter = writer
    }

    /// Adds one task. - Parameter journalled: the task's JSON as the journal holds it; nil when the
    /// task differs from what was journalled (capture evidence attached), so it is written anew.
    func add(_ task: ProbeTask, journalled: UnsafeRawBufferPointer?) throws(TaskError) {
        guard harWriter != nil else { return }
        if !firstTask { jsonBuffer.append(UInt8(ascii: ",")) }
        firstTask = false
        jsonBuffer.append(UInt8(ascii: "\n"))
        if let journalled {
            jsonBuffer.append(contentsOf: journalled)
        } else {
            taskLine.reset()
            task.writeJSON(to: &taskLine)
            taskLine.withBytes { jsonBuffer.append(contentsOf: $0) }
        }
        // In place (`!`): a copy of the writer would share, then copy, its 64 KiB output per task.
        harWriter!.add(task, to: &harBuffer)
        junitBuffer += JUnitWriter.testCase(task)
        if jsonBuffer.count > Self.chunk { try jsonTasks.write(jsonBuffer); jsonBuffer.removeAll(keepingCapacity: true) }
        if harBuffer.count > Self.chunk { try har.write(harBuffer); harBuffer.removeAll(keepingCapacity: true) }
        if junitBuffer.count > Self.chunk { try junitCases.write(junitBuffer); junitBuffer.removeAll(keepingCapacity: true) }
    }

    /// Writes every file of the ended run and gives each its final name.
    func finish(_ outcome: RunOutcome, prometheusPath: String?) throws(TaskError) {
        guard var harWriter else { throw JournalScan.notAJournal(folder) }
        try jsonTasks.write(jsonBuffer)
        try har.write(harBuffer + harWriter.finish())
        try junitCases.write(junitBuffer)
        // The spill files are read back from their temporary paths and never committed:
        // AtomicFile removes them when it goes away.
        let run = outcome.run
        let json = try AtomicFile(path: folder.reportJSONPath)
        try json.write(try ReportJSONWriter.header(tool: outcome.tool, run: run))
        try json.append(contentsOfFile: jsonTasks.temporaryPath)
        try json.write(try ReportJSONWriter.trailer(summary: outcome.summary, thresholds: outcome.thresholds,
                                                    baseline: outcome.baseline, captures: outcome.captures,
                                                    soaks: outcome.soaks, resume: outcome.resume))
        let junit = try AtomicFile(path: folder.junitPath)
        try junit.write(JUnitWriter.head(run: run, summary: outcome.summary, thresholds: outcome.thresholds,
                                         soaks: outcome.soaks, resume: outcome.resume))
        try junit.append(contentsOfFile: junitCases.temporaryPath)
        try junit.write(JUnitWriter.tail)
        try json.commit()
        try har.commit()
        try junit.commit()

        let html = HTMLReportRenderer.render(tool: outcome.tool, run: run, summary: outcome.summary,
                                             thresholds: outcome.thresholds, baseline: outcome.baseline,
                                             captures: outcome.captures, soaks: outcome.soaks,
                                             resume: outcome.resume, sample: outcome.sample)
        try writeFileAtomically(Array(html.utf8), to: folder.reportHTMLPath)
        if let prometheusPath {
            try writeFileAtomically(Array(PrometheusWriter.render(run: run, summary: outcome.summary,
                                                                  thresholds: outcome.thresholds, soaks: outcome.soaks,
                                                                  resume: outcome.resume).utf8),
                                    to: prometheusPath)
        }
    }
}
