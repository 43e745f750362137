#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// Writes a run's report files in two halves: the tasks as they come (`add`), then, once the run
/// has ended and its summary is known, each file's head and tail around them (`finish`).
///
/// Fed either by `ReportFiles.render` reading a journal, or by `RunRecorder` while the run
/// records (so a finished probe run does not read its journal back); both hand it the same task
/// values and the same journalled task JSON, so the files are the same byte for byte.
///
/// - `report.json`: header (tool, run), every task's JSON as journalled, then summary and sections.
///   The run's final status is known only at the end, so the task JSON is written after it: from a
///   spill file, copied in kernel-side, when the writer is fed a journal (`add(_:journalled:)`); from
///   the journal's own lines when a run records live (`add(journalledTask:)`, then `finish` with
///   their `JournalTasks`), so a recorded task is serialised once, as its journal line.
/// - `report.har` streams directly; `junit.xml` spills its test cases (its header carries counts);
///   in a run of checks each check's suite gets its own task cases back from the spill file
///   (`junitSegments`).
/// - `report.html` from the outcome's bounded sample; the Prometheus file when asked for.
/// Each file appears atomically (written beside, then renamed); a writer dropped before `finish`
/// leaves nothing behind. Not thread-safe: one caller at a time.
final class ReportWriter {
    private let folder: RunFolder
    /// report.json's task JSON spilled as it comes; nil when it is copied from the journal at `finish`.
    private let jsonTasks: AtomicFile?
    private let junitCases: AtomicFile
    private let har: AtomicFile
    private var harWriter: HARWriter?
    /// Reused for tasks that are written anew (evidence attached after they were journalled).
    private var taskLine = JSONOutput(capacity: 8192)
    private var jsonBuffer: [UInt8] = []
    private var harBuffer: [UInt8] = []
    private var junitBuffer: [UInt8] = []
    private var firstTask = true
    /// Runs of consecutive task cases of one check (nil: outside checks) in the junit spill file.
    private var junitSegments: [JUnitSegment] = []
    /// Bytes of task cases spilled so far (written or still buffered).
    private var junitBytes: Int64 = 0
    /// Bytes a buffer collects before it is written out.
    private static let chunk = 1 << 20

    /// The check kinds' renderers of report.json's sections (HTML, Prometheus).
    private let renderers: ReportSectionRenderers

    /// - Parameter tasksInJournal: report.json's task JSON will be copied from the journal's lines at
    ///   `finish` (tasks come through `add(journalledTask:)`); otherwise each comes with `add(_:journalled:)`.
    init(folder: RunFolder, renderers: ReportSectionRenderers = ReportSectionRenderers(), tasksInJournal: Bool = false) throws(TaskError) {
        self.folder = folder
        self.renderers = renderers
        jsonTasks = tasksInJournal ? nil : try AtomicFile(path: folder.path + "/.report.json.tasks")
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
    /// Invariant: the writer spills report.json's task JSON (made without `tasksInJournal`).
    func add(_ task: ProbeTask, journalled: UnsafeRawBufferPointer?) throws(TaskError) {
        guard harWriter != nil, jsonTasks != nil else { return }
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
        if jsonBuffer.count > Self.chunk { try jsonTasks?.write(jsonBuffer); jsonBuffer.removeAll(keepingCapacity: true) }
        try addEntries(task)
    }

    /// Adds one task whose journal line report.json will copy at `finish` (a writer made with
    /// `tasksInJournal`): its HAR entries and JUnit case only.
    func add(journalledTask task: ProbeTask) throws(TaskError) {
        guard harWriter != nil, jsonTasks == nil else { return }
        try addEntries(task)
    }

    /// The task's HAR entries and JUnit case.
    private func addEntries(_ task: ProbeTask) throws(TaskError) {
        // In place (`!`): a copy of the writer would share, then copy, its 64 KiB output per task.
        harWriter!.add(task, to: &harBuffer)
        let testCase = JUnitWriter.testCase(task)
        junitBuffer += testCase
        if junitSegments.last.map({ $0.check != task.check }) ?? true {
            junitSegments.append(JUnitSegment(check: task.check, offset: junitBytes))
        }
        junitSegments[junitSegments.count - 1].add(bytes: testCase.count, failed: task.error != nil)
        junitBytes += Int64(testCase.count)
        if harBuffer.count > Self.chunk { try har.write(harBuffer); harBuffer.removeAll(keepingCapacity: true) }
        if junitBuffer.count > Self.chunk { try junitCases.write(junitBuffer); junitBuffer.removeAll(keepingCapacity: true) }
    }

    /// Where a live run's task lines are in its closed journal: the bytes `start..<end` of the file
    /// at `path`, `count` probe lines (`ReportJSONWriter.probeLinePrefix`) and nothing else.
    struct JournalTasks {
        let path: String
        let start: Int64
        let end: Int64
        let count: Int
    }

    /// Writes every file of the ended run and gives each its final name. Returns false, having
    /// committed nothing, when `journalTasks` (required by a writer made with `tasksInJournal`)
    /// does not hold its `count` probe lines and nothing else: the caller renders from the journal.
    @discardableResult
    func finish(_ outcome: RunOutcome, prometheusPath: String?, journalTasks: JournalTasks? = nil) throws(TaskError) -> Bool {
        guard var harWriter else { throw JournalScan.notAJournal(folder) }
        // The spill files are read back from their temporary paths and never committed:
        // AtomicFile removes them when it goes away.
        let run = outcome.run
        // report.json's order: the sections always written first (`audits`), then the others.
        let sections = renderers.arranged(outcome.sections)
        let json = try AtomicFile(path: folder.reportJSONPath)
        try json.write(try ReportJSONWriter.header(tool: outcome.tool, run: run))
        if let jsonTasks {
            try jsonTasks.write(jsonBuffer)
            try json.append(contentsOfFile: jsonTasks.temporaryPath)
        } else if let journalTasks {
            guard try Self.copyTaskJSON(journalTasks, to: json) else { return false }
        } else {
            throw TaskError(code: .internalError, message: "report.json's tasks are in the journal, but no journal span was given")
        }
        try har.write(harBuffer + harWriter.finish())
        try junitCases.write(junitBuffer)
        try json.write(try ReportJSONWriter.trailer(summary: outcome.summary, thresholds: outcome.thresholds,
                                                    baseline: outcome.baseline, captures: outcome.captures,
                                                    soaks: outcome.soaks, resume: outcome.resume,
                                                    checks: outcome.checks, sections: sections))
        let junit = try AtomicFile(path: folder.junitPath)
        if outcome.checks.isEmpty {
            try junit.write(JUnitWriter.head(run: run, summary: outcome.summary, thresholds: outcome.thresholds,
                                             soaks: outcome.soaks, resume: outcome.resume,
                                             sections: renderers.junitCases(sections)))
            try junit.append(contentsOfFile: junitCases.temporaryPath)
            try junit.write(JUnitWriter.tail)
        } else {
            try writeCheckSuites(outcome, sections: sections, to: junit)
        }
        try json.commit()
        try har.commit()
        try junit.commit()

        let html = HTMLReportRenderer.render(tool: outcome.tool, run: run, summary: outcome.summary,
                                             thresholds: outcome.thresholds, baseline: outcome.baseline,
                                             captures: outcome.captures, soaks: outcome.soaks,
                                             resume: outcome.resume, checks: outcome.checks,
                                             sample: outcome.sample, sections: sections, renderers: renderers)
        try writeFileAtomically(Array(html.utf8), to: folder.reportHTMLPath)
        if let prometheusPath {
            let text = PrometheusWriter.render(run: run, summary: outcome.summary, thresholds: outcome.thresholds, soaks: outcome.soaks,
                                               resume: outcome.resume, checks: outcome.checks,
                                               sections: sections, renderers: renderers)
                + renderers.prometheus(sections).text
            try writeFileAtomically(Array(text.utf8), to: prometheusPath)
        }
        return true
    }

    /// Appends the task JSON of `tasks`' journal lines to `json`, each line's JSON preceded by a
    /// newline and, after the first, a comma (as `add(_:journalled:)` spills it). Reads the file in
    /// `chunk`-sized blocks; returns false (having appended part of them at most) when a line there
    /// is no probe line, the file ends early, or the lines are not `tasks.count`. (Not inlined: a
    /// frame of its own in profiles, `scripts/bench/perf-budget.py`.)
    @inline(never)
    private static func copyTaskJSON(_ tasks: JournalTasks, to json: AtomicFile) throws(TaskError) -> Bool {
        let source = open(tasks.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard source >= 0 else { throw TaskError(code: .localIOError, message: "cannot read \(tasks.path): \(systemErrorMessage())") }
        defer { close(source) }
        let prefix = ReportJSONWriter.probeLinePrefix, suffix = ReportJSONWriter.probeLineSuffix
        var block = [UInt8](repeating: 0, count: chunk)
        var output: [UInt8] = []
        output.reserveCapacity(chunk + chunk / 4)
        /// The start of a line the block before ended inside.
        var carried: [UInt8] = []
        var lines = 0
        var position = tasks.start
        /// Appends one whole line's task JSON to `output`; false when it is no probe line.
        func take(_ line: UnsafeRawBufferPointer) -> Bool {
            guard line.count >= prefix.count + suffix.count,
                  prefix.withUnsafeBytes({ memcmp(line.baseAddress!, $0.baseAddress!, prefix.count) == 0 }),
                  suffix.withUnsafeBytes({ memcmp(line.baseAddress! + line.count - suffix.count, $0.baseAddress!, suffix.count) == 0 })
            else { return false }
            if lines > 0 { output.append(UInt8(ascii: ",")) }
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[prefix.count..<(line.count - suffix.count)]))
            lines += 1
            return true
        }
        while position < tasks.end {
            let wanted = Int(min(tasks.end - position, Int64(block.count)))
            let count = block.withUnsafeMutableBytes { pread(source, $0.baseAddress, wanted, off_t(position)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TaskError(code: .localIOError, message: "cannot read \(tasks.path): \(systemErrorMessage())") }
            guard count > 0 else { return false }
            position += Int64(count)
            let wellFormed = block.withUnsafeBytes { raw -> Bool in
                let base = raw.baseAddress!
                var lineStart = 0
                while lineStart < count, let found = memchr(base + lineStart, 0x0A, count - lineStart) {
                    let newline = base.distance(to: UnsafeRawPointer(found))
                    let piece = UnsafeRawBufferPointer(start: base + lineStart, count: newline - lineStart)
                    if carried.isEmpty {
                        guard take(piece) else { return false }
                    } else {
                        carried.append(contentsOf: piece)
                        guard carried.withUnsafeBytes({ take($0) }) else { return false }
                        carried.removeAll(keepingCapacity: true)
                    }
                    lineStart = newline + 1
                }
                carried.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[lineStart..<count]))
                return true
            }
            guard wellFormed else { return false }
            if output.count >= chunk {
                try json.write(output)
                output.removeAll(keepingCapacity: true)
            }
        }
        guard carried.isEmpty, lines == tasks.count else { return false }
        try json.write(output)
        return true
    }

    /// `junit.xml` of a run of checks (see `JUnitWriter`): the run's thresholds, a suite per check
    /// with its task cases copied back from the spill file, and one for what was recorded outside
    /// checks when there is any.
    private func writeCheckSuites(_ outcome: RunOutcome, sections: [ReportSection], to junit: AtomicFile) throws(TaskError) {
        func segments(_ check: String?) -> [JUnitSegment] { junitSegments.filter { $0.check == check } }
        let sectionCases = renderers.junitCases(sections).flatMap(\.cases)
        var suites: [(suite: JUnitWriter.Suite, segments: [JUnitSegment])] = outcome.checks.map { check in
            let own = segments(check.name)
            let resume = ResumeResults(trials: outcome.resume.trials.filter { $0.check == check.name },
                                       verdicts: outcome.resume.verdicts.filter { $0.check == check.name })
            let suite = JUnitWriter.suite(name: check.name, timestamp: check.startedAt, thresholds: check.thresholds,
                                          soaks: outcome.soaks.filter { $0.check == check.name }, resume: resume,
                                          requests: check.summary?.byRequest ?? [],
                                          error: check.error, tasks: own.reduce(0) { $0 + $1.cases },
                                          failedTasks: own.reduce(0) { $0 + $1.failures }, link: check.link,
                                          sectionCases: sectionCases.filter { $0.check == check.name })
            return (suite, own)
        }
        // Entries whose check is no check of the run (recorded between checks, or a damaged journal).
        let names = Set(outcome.checks.map(\.name))
        let outside = junitSegments.filter { $0.check.map { !names.contains($0) } ?? true }
        let outsideResume = ResumeResults(trials: outcome.resume.trials.filter { $0.check.map { !names.contains($0) } ?? true },
                                          verdicts: outcome.resume.verdicts.filter { $0.check.map { !names.contains($0) } ?? true })
        let outsideSoaks = outcome.soaks.filter { $0.check.map { !names.contains($0) } ?? true }
        let outsideCases = sectionCases.filter { $0.check.map { !names.contains($0) } ?? true }
        if !outside.isEmpty || !outsideResume.isEmpty || !outsideSoaks.isEmpty || !outsideCases.isEmpty {
            let suite = JUnitWriter.suite(name: "sonde \(outcome.run.command)", timestamp: outcome.run.startedAt, thresholds: [],
                                          soaks: outsideSoaks, resume: outsideResume, error: nil,
                                          tasks: outside.reduce(0) { $0 + $1.cases }, failedTasks: outside.reduce(0) { $0 + $1.failures },
                                          sectionCases: outsideCases)
            suites.append((suite, outside))
        }
        try junit.write(JUnitWriter.checksHead(run: outcome.run, thresholds: outcome.thresholds, suites: suites.map(\.suite)))
        for (suite, segments) in suites {
            try junit.write(Array(suite.text.utf8))
            for segment in segments {
                try junit.append(contentsOfFile: junitCases.temporaryPath, offset: segment.offset, length: segment.bytes)
            }
            try junit.write(JUnitWriter.suiteTail)
        }
        try junit.write(JUnitWriter.documentTail)
    }
}

/// A run of consecutive task cases of one check in `ReportWriter`'s junit spill file.
private struct JUnitSegment {
    let check: String?
    /// Where the run starts in the spill file, and its length, in bytes.
    let offset: Int64
    private(set) var bytes: Int64 = 0
    /// Its task cases, and those of them that failed.
    private(set) var cases = 0
    private(set) var failures = 0

    init(check: String?, offset: Int64) {
        self.check = check
        self.offset = offset
    }

    mutating func add(bytes count: Int, failed: Bool) {
        bytes += Int64(count)
        cases += 1
        if failed { failures += 1 }
    }
}
