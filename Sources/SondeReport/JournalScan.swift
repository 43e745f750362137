import Foundation
import SondeCore

/// One pass over a run folder's journal: the run line, every task (decoded once, handed to the
/// caller with its raw JSON), the end line; the summary and HTML sample built on the way.
/// `ReportFiles` renders from it; a `--baseline` run is read with it and nothing written.
///
/// A journal without an end line is a run killed before it finished: `run.status` is then
/// `interrupted`, `finishedAt` the end of its last task, and a warning says so. Lines that do
/// not decode (damaged, or of a kind sonde does not write), tasks whose numbers are out of range
/// (`ProbeTask.rangeProblem`) and lines longer than `JournalReader.maxLineBytes` are skipped,
/// counted in `Result.losses` and said in warnings; a last line cut mid-write (a kill) is skipped
/// and said, not counted as a loss. Any valid JSON is read, whatever its whitespace (`JournalEnvelope`).
///
/// A run of checks: `check-begin`/`check-end` lines bracket each check, and every entry inside
/// names it; each check is judged as `RunRecorder` judged it (`CheckBuilder`), or taken from the
/// end line when there is one. A check without its end line counts as interrupted.
public enum JournalScan {
    public struct Result: Sendable {
        public var tool: ToolInfo
        /// The run as it ended (status, finishedAt, warnings from the journal).
        public var run: RunInfo
        public var summary: ProbeSummary
        public var sample: [ProbeTask]
        public var captures: [CaptureReport]
        public var soaks: [SoakReport]
        public var resume: ResumeResults
        /// The checks of a `sonde run` suite in the order they began ([] for runs without checks):
        /// as the end line holds them, or judged from the journal when it has none.
        public var checks: [CheckReport]
        /// What the pass could not read ([] for a sound journal, or one whose last line a kill cut).
        public var losses = JournalLosses()
        /// The arrays check kinds fill themselves (`ReportSection`), in the order first recorded.
        public var sections: [ReportSection] = []
        var endLine: EndLine?

        /// A baseline made elsewhere than from a journal (`--baseline history:…`): a run and its
        /// summary, nothing else.
        public init(tool: ToolInfo, run: RunInfo, summary: ProbeSummary) {
            self.init(tool: tool, run: run, summary: summary, sample: [], captures: [], soaks: [], resume: ResumeResults(), checks: [],
                      endLine: nil)
        }

        init(tool: ToolInfo, run: RunInfo, summary: ProbeSummary, sample: [ProbeTask], captures: [CaptureReport], soaks: [SoakReport],
             resume: ResumeResults, checks: [CheckReport], endLine: EndLine?) {
            self.tool = tool
            self.run = run
            self.summary = summary
            self.sample = sample
            self.captures = captures
            self.soaks = soaks
            self.resume = resume
            self.checks = checks
            self.endLine = endLine
        }
    }

    /// Throws unless `folder` holds a journal that is a regular file (not a folder, a link, a FIFO
    /// or a device: sonde writes none of those, and reading one could block or fail midway).
    static func requireJournal(_ folder: RunFolder) throws(TaskError) {
        var status = stat()
        guard lstat(folder.journalPath, &status) == 0 else {
            throw TaskError(code: .localIOError,
                            message: "\(folder.path) has no journal.jsonl: give a run folder that sonde wrote (Reports/<run-id>)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            let kind = status.st_mode & S_IFMT == S_IFDIR ? "a folder" : status.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a regular file"
            throw TaskError(code: .localIOError,
                            message: "\(folder.journalPath) is \(kind), not the journal sonde writes: give a run folder that sonde wrote (Reports/<run-id>)")
        }
    }

    static func notAJournal(_ folder: RunFolder) -> TaskError {
        TaskError(code: .localIOError,
                  message: "\(folder.journalPath) does not start with a sonde run line: it is not a sonde journal, or it is damaged")
    }

    /// Reads a run folder without writing anything (for `--baseline`).
    /// - Parameter soakParts: the kind extensions' parts of a soak (`SoakPart`), summed into its report.
    /// - Parameter renderers: the check kinds' section renderers: the journal lines they name
    ///   (`ReportSectionRenderer.journalLine`) and how they read and judge their items; without one
    ///   such a line is unreadable.
    public static func read(folder: RunFolder, soakParts: [any SoakPart] = [],
                            renderers: ReportSectionRenderers = ReportSectionRenderers()) throws(TaskError) -> Result {
        try requireJournal(folder)
        return try scan(folder: folder, soakParts: soakParts, renderers: renderers, onRunLine: { _ in },
                        onTask: { (_: ProbeTask, _: ArraySlice<UInt8>) throws(TaskError) in })
    }

    /// The kind of a soak line, told by its tail: the encoder sorts keys, and `type` sorts after
    /// every other key of those lines, so they end with `"type":"<kind>"}`.
    static func soakLineKind(_ line: ArraySlice<UInt8>) -> JournalEntryKind? {
        for (kind, suffix) in soakLineSuffixes where line.count > suffix.count && line.suffix(suffix.count).elementsEqual(suffix) {
            return kind
        }
        return nil
    }

    /// `,"type":"<kind>"}` of each soak line kind, made once (a soak journals a line per attempt change).
    private static let soakLineSuffixes: [(JournalEntryKind, [UInt8])] = [JournalEntryKind.soak, .wsAttempt, .wsSamples, .wsIdle].map {
        ($0, soakLineSuffix(check: nil, kind: $0))
    }

    /// The captures of a run whose run line asked for one (`run.capture`; journals written before
    /// that field by their `--capture` argument), read ahead of the main pass so that every
    /// transaction can be matched to its connection while it is written; [] (without reading the
    /// whole journal) for any other run.
    static func liveCaptures(folder: RunFolder) throws(TaskError) -> [CaptureReport] {
        let line = Data(try firstLine(folder: folder))
        guard line.range(of: Data(#""capture":""#.utf8)) != nil || line.range(of: Data(#""--capture"#.utf8)) != nil
        else { return [] }
        let decoder = JSONDecoder()
        let prefix = Array(#"{"capture":"#.utf8)
        var captures: [CaptureReport] = []
        try JournalReader.forEachLine(path: folder.journalPath) { (line: ArraySlice<UInt8>) throws(TaskError) in
            guard line.starts(with: prefix), let decoded = try? decoder.decode(CaptureLine.self, from: Data(line)) else { return }
            captures.append(decoded.capture)
        }
        return captures
    }

    /// The journal's first line (at most 64 KiB; empty when longer), read through the line reader
    /// (a read that fails is an error, not a trap).
    static func firstLine(folder: RunFolder) throws(TaskError) -> [UInt8] {
        var firstLine: [UInt8] = []
        var firstTooLong = false
        do throws(TaskError) {
            try JournalReader.forEachLine(path: folder.journalPath, maxLineBytes: 1 << 16, onOversized: { firstTooLong = true }) {
                (line: ArraySlice<UInt8>) throws(TaskError) in
                if !firstTooLong { firstLine = Array(line) }
                throw stopReading
            }
        } catch where error.reason == stopReading.reason {
            // The first line was read.
        }
        return firstLine
    }

    /// The run as its journal's run line holds it (as it started: its status is not the end's),
    /// without reading further; nil when the folder has no journal of sonde's (`requireJournal`)
    /// or its first line is not a run line.
    public static func startedRun(folder: RunFolder) -> RunInfo? {
        do throws(TaskError) {
            try requireJournal(folder)
            return try? JSONDecoder().decode(RunLine.self, from: Data(try firstLine(folder: folder))).run
        } catch {
            return nil
        }
    }

    /// Thrown by a line handler to end a read early (`firstLine`).
    private static let stopReading = TaskError(code: .internalError, message: "stop reading", reason: "stopReading")

    /// A soak attempt or samples line's value and check: sonde's own compact form outside checks
    /// read with `JSONReader` between its fixed prefix and suffix, any other form (a check's name in
    /// it, other whitespace) by structure (`JournalEnvelope`), the value with `JSONDecoder` as the
    /// last resort; nil when the line is unreadable.
    static func readSoakLine<T: JSONReadable & Decodable>(_ type: T.Type, in line: ArraySlice<UInt8>, member: String,
                                                          prefix: [UInt8], suffix: [UInt8],
                                                          decoder: JSONDecoder) -> (value: T, check: String?)? {
        if line.count > prefix.count + suffix.count, line.starts(with: prefix), line.suffix(suffix.count).elementsEqual(suffix),
           let value = try? JSONReader.read(type, from: line[(line.startIndex + prefix.count)..<(line.endIndex - suffix.count)]) {
            return (value, nil)
        }
        guard let envelope = JournalEnvelope(line), let json = envelope.member(member) else { return nil }
        var check: String?
        if let name = envelope.member("check") {
            var reader = JSONReader(name)
            guard let read = try? reader.readOptionalString(), reader.isAtEnd() else { return nil }
            check = read
        }
        guard let value = (try? JSONReader.read(type, from: json)) ?? (try? decoder.decode(type, from: Data(json))) else { return nil }
        return (value, check)
    }

    /// - Parameter transform: applied to every task as it is read (before the summary, the sample
    ///   and `onTask` see it); nil keeps a task as journalled.
    /// - Parameter soakParts: the kind extensions' parts of a soak (`SoakPart`), summed into its report.
    /// - Parameter renderers: the check kinds' section renderers (see `read`).
    static func scan(folder: RunFolder, soakParts: [any SoakPart] = [], renderers: ReportSectionRenderers = ReportSectionRenderers(),
                     onRunLine: (RunLine) -> Void, transform: (ProbeTask) -> ProbeTask? = { _ in nil },
                     onTask: (ProbeTask, ArraySlice<UInt8>) throws(TaskError) -> Void) throws(TaskError) -> Result {
        let decoder = JSONDecoder()
        var runLine: RunLine?
        var endLine: EndLine?
        var captures: [CaptureReport] = []
        // One soak per check and at most one outside checks, as `RunRecorder` keeps them.
        var soaks: [SoakReportBuilder] = []
        var resume = ResumeResults()
        var sections: [ReportSection] = []
        let sectionLines = renderers.journalLines
        var summary = ProbeSummaryBuilder()
        // Tasks outside checks (every task of a run without them) go to `sampler`, a check's to its
        // own sampler, so the HTML shows every check's first tasks.
        var sampler = TaskSampler()
        var checks: [CheckBuilder] = []
        var checkSamplers: [TaskSampler] = []
        var checkIndex: [String: Int] = [:]
        var losses = JournalLosses()
        var firstRangeProblem: String?
        var lastTaskEnd: Timestamp?
        // Every line's number (1-based), and whether the last line read was skipped.
        var lineNumber = 0
        var lastLineSkipped = false
        var skipped: Int {
            get { losses.unreadable }
            set {
                losses.unreadable = newValue
                losses.lose(line: lineNumber)
                lastLineSkipped = true
            }
        }
        try JournalReader.forEachLine(path: folder.journalPath, onOversized: {
            lineNumber += 1
            losses.oversized += 1
            losses.lose(line: lineNumber)
            lastLineSkipped = false
        }) { (line: ArraySlice<UInt8>) throws(TaskError) in
            lineNumber += 1
            lastLineSkipped = false
            // The line's kind, found once: sonde's own compact task and soak lines by their fixed
            // prefix, any other line by its `type` member. One decoder per kind reads it.
            var taskJSON = ReportJSONWriter.taskJSON(inJournalLine: line)
            let kind: JournalEntryKind
            if taskJSON != nil {
                kind = .probe
            } else if let soakKind = soakLineKind(line) {
                kind = soakKind
            } else {
                // A line that is not an object with a known `type` (sonde's, or a section renderer's
                // own line) is skipped at once.
                guard let envelope = JournalEnvelope(line) else {
                    skipped += 1
                    return
                }
                guard let known = JournalEntryKind(rawValue: envelope.type) else {
                    guard let renderer = sectionLines[envelope.type], let journalled = envelope.member(envelope.type),
                          let item = renderer.reportItem(journalled) else { skipped += 1; return }
                    ReportSection.add(item, to: renderer.section, in: &sections)
                    return
                }
                kind = known
                if kind == .probe { taskJSON = envelope.member(JournalEntryKind.probe.rawValue) }
            }
            switch kind {
            case .probe:
                guard runLine != nil, let taskJSON, let journalled = ReportJSONWriter.decodeTask(taskJSON, fallback: decoder) else {
                    skipped += 1
                    return
                }
                if let problem = journalled.rangeProblem {
                    losses.outOfRange += 1
                    losses.lose(line: lineNumber)
                    if firstRangeProblem == nil { firstRangeProblem = problem }
                    return
                }
                let task = transform(journalled) ?? journalled
                summary.add(task)
                if let index = task.check.flatMap({ checkIndex[$0] }) {
                    checks[index].add(task)
                    checkSamplers[index].add(task)
                } else {
                    sampler.add(task)
                }
                let end = task.taskInterval.start.adding(microseconds: Int64(task.taskInterval.durationMs * 1000))
                if lastTaskEnd.map({ end > $0 }) ?? true { lastTaskEnd = end }
                try onTask(task, taskJSON)
            case .soak:
                guard let decoded = try? decoder.decode(SoakStartLine.self, from: Data(line)) else { skipped += 1; return }
                let start = decoded.soak
                let builder = SoakReportBuilder(url: start.url, config: start.config, startedAt: start.startedAt, check: start.check,
                                                parts: soakParts)
                if let index = soaks.lastIndex(where: { $0.check == start.check }) { soaks[index] = builder } else { soaks.append(builder) }
            case .wsAttempt:
                guard let read = readSoakLine(SoakAttempt.self, in: line, member: SoakAttemptLine.member,
                                              prefix: SoakAttemptLine.prefix, suffix: SoakAttemptLine.suffix, decoder: decoder),
                      let index = soaks.lastIndex(where: { $0.check == read.check }) else { skipped += 1; return }
                soaks[index].add(read.value)
            case .wsSamples:
                guard let read = readSoakLine(SoakSamples.self, in: line, member: SoakSamplesLine.member,
                                              prefix: SoakSamplesLine.prefix, suffix: SoakSamplesLine.suffix, decoder: decoder),
                      let index = soaks.lastIndex(where: { $0.check == read.check }) else { skipped += 1; return }
                soaks[index].add(read.value)
            case .wsIdle:
                guard let decoded = try? decoder.decode(SoakIdleLine.self, from: Data(line)),
                      let index = soaks.lastIndex(where: { $0.check == decoded.check }) else { skipped += 1; return }
                soaks[index].set(idleTimeout: decoded.findings)
            case .run:
                guard runLine == nil, let decoded = try? decoder.decode(RunLine.self, from: Data(line)) else { skipped += 1; return }
                runLine = decoded
                onRunLine(decoded)
            case .end:
                guard let decoded = try? decoder.decode(EndLine.self, from: Data(line)) else { skipped += 1; return }
                endLine = decoded
            case .capture:
                guard let decoded = try? decoder.decode(CaptureLine.self, from: Data(line)) else { skipped += 1; return }
                captures.append(decoded.capture)
            case .resumeTrial:
                guard let decoded = try? decoder.decode(ResumeTrialLine.self, from: Data(line)) else { skipped += 1; return }
                resume.trials.append(decoded.trial)
            case .resumeVerdict:
                guard let decoded = try? decoder.decode(ResumeVerdictLine.self, from: Data(line)) else { skipped += 1; return }
                resume.verdicts.append(decoded.verdict)
            case .section:
                guard let envelope = JournalEnvelope(line), let nameJSON = envelope.member("name"),
                      let name = try? decoder.decode(String.self, from: Data(nameJSON)), ReportSection.isValid(name: name),
                      let journalled = envelope.member("section"), journalled.first == UInt8(ascii: "{"),
                      let item = renderers.reportItem(journalled, section: name)
                else { skipped += 1; return }
                ReportSection.add(item, to: name, in: &sections)
            case .checkBegin:
                guard let decoded = try? decoder.decode(CheckBeginLine.self, from: Data(line)),
                      CheckReport.nameProblem(decoded.check.name) == nil, checkIndex[decoded.check.name] == nil else { skipped += 1; return }
                checkIndex[decoded.check.name] = checks.count
                checks.append(CheckBuilder(begin: decoded.check))
                checkSamplers.append(TaskSampler())
            case .checkEnd:
                guard let decoded = try? decoder.decode(CheckEndLine.self, from: Data(line)),
                      let index = checkIndex[decoded.check.name], checks[index].end == nil else { skipped += 1; return }
                checks[index].end = decoded.check
            }
        }
        guard let runLine else { throw notAJournal(folder) }
        // A last line without its newline that did not decode: cut by a kill mid-write.
        if lastLineSkipped, !endsWithNewline(folder.journalPath) {
            losses.unreadable -= 1
            losses.lines.removeAll { $0 == lineNumber }
            losses.cutLastLine = true
        }
        var run = runLine.run
        let result = summary.result
        if let endLine {
            run.status = endLine.status
            run.finishedAt = endLine.finishedAt
            if let link = endLine.link { run.link = link }
        } else {
            run.status = .interrupted
            run.finishedAt = lastTaskEnd
            run.warnings.append("Rebuilt from a journal without an end line: the run was killed before it finished. "
                + (!resume.isEmpty ? "It holds the \(resume.trials.count) trials that finished before that."
                    : soaks.isEmpty ? "It holds the \(result.tasks) tasks flushed to the journal before that."
                    : "It holds what was flushed to the journal before that (at most a second is lost)."))
            for check in checks where check.end == nil {
                run.warnings.append("Check \(check.name) was under way when the run was killed: it counts as interrupted.")
            }
        }
        if losses.cutLastLine {
            run.warnings.append("The journal's last line was cut mid-write (the run was killed while writing it) and skipped.")
        }
        let skippedLines = losses.unreadable, outOfRange = losses.outOfRange, oversized = losses.oversized
        if skippedLines > 0 {
            run.warnings.append("\(skippedLines) journal line\(skippedLines == 1 ? " was" : "s were") unreadable and skipped "
                + "(damaged, or of a kind this sonde does not know): what they held is not in this report.")
        }
        if outOfRange > 0, let firstRangeProblem {
            run.warnings.append("\(outOfRange) journal task\(outOfRange == 1 ? " was" : "s were") skipped: numbers out of the range "
                + "a report can hold (first: \(firstRangeProblem)).")
        }
        if oversized > 0 {
            run.warnings.append("\(oversized) journal line\(oversized == 1 ? " was" : "s were") longer than "
                + "\(JournalReader.maxLineBytes >> 20) MiB and skipped (sonde writes no such line: the journal was altered).")
        }
        let soakReports = soaks.map { $0.result(finishedAt: endLine?.finishedAt) }
        if endLine == nil, !soakReports.isEmpty {
            let attempts = soakReports.flatMap(\.attempts)
            let lastEvent = attempts.compactMap { $0.closedAt ?? $0.openedAt ?? $0.startedAt }.max()
            if let lastEvent, run.finishedAt.map({ lastEvent > $0 }) ?? true { run.finishedAt = lastEvent }
            let open = attempts.filter { $0.openedAt != nil && $0.closedAt == nil }.count
            if open > 0 {
                run.warnings.append("\(open) WebSocket connection\(open == 1 ? " was" : "s were") still open when the run was killed; "
                    + "their counts are those of their last journal snapshot (taken every 10 s or more), the RTTs those journalled each second.")
            }
        }
        if endLine == nil, let lastCheck = checks.last {
            let lastMoment = lastCheck.end?.finishedAt ?? lastCheck.begin.startedAt
            if run.finishedAt.map({ lastMoment > $0 }) ?? true { run.finishedAt = lastMoment }
        }
        let checkReports = endLine?.checks ?? checks.map {
            $0.report(soaks: soakReports, resume: resume, sections: sections, renderers: renderers,
                      declared: ReportSection.declaredValues(in: sections), baseline: nil, runFinishedAt: run.finishedAt)
        }
        var scanned = Result(tool: runLine.tool, run: run, summary: result,
                             sample: sampler.tasks + checkSamplers.flatMap(\.tasks), captures: captures, soaks: soakReports,
                             resume: resume, checks: checkReports, endLine: endLine)
        scanned.sections = sections
        scanned.losses = losses
        return scanned
    }

    /// Whether the file at `path` ends with a newline (false when empty or unreadable).
    private static func endsWithNewline(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return false }
        var last: UInt8 = 0
        return pread(descriptor, &last, 1, status.st_size - 1) == 1 && last == UInt8(ascii: "\n")
    }
}
