import Foundation
import SondeCore
import Synchronization

/// Receives a run's records as they come and keeps nothing unbounded: each probe task goes to
/// the JSONL journal at once, into the summary's histograms, (the first few hundred) into the
/// sample the HTML report draws, and into the report files as far as they can be written before
/// the run ends (`ReportWriter`), so that `finish` only writes their heads and tails and the HTML.
///
/// Runs whose tasks change after they were journalled (a live capture attaches its evidence at the
/// end), soaks, resume runs, captures analysed and runs of several checks are instead rendered from
/// the journal at `finish` (`ReportFiles.render`), which is also what `sonde report` does: both give
/// the same files.
///
/// Checks (`sonde run`): between `beginCheck` and `endCheck` everything recorded belongs to that
/// check and carries its name, in the journal and in the reports. Checks may overlap (a suite's
/// `parallel`): then each record names its check (`check:`, or the entry's own `check`), and a
/// record that names none belongs to the one check under way. Invariant: check names are unique
/// within a run.
///
/// Threading: every public method takes `lock`, so the engines of overlapping checks (a
/// `RecorderThread`, the soak's event sink, a resume thread) may record at once.
public final class RunRecorder: @unchecked Sendable {
    private let lock = Mutex(())
    public let folder: RunFolder
    public let tool: ToolInfo
    public private(set) var run: RunInfo
    private let journal: Journal
    private var summary = ProbeSummaryBuilder()
    /// The soaks recorded so far, in the order they began: one per soak check, and at most one
    /// outside checks (a second start with the same `check` replaces the first).
    private var soaks: [SoakReportBuilder] = []
    /// The resume trials and verdicts recorded so far.
    private var resume = ResumeResults()
    /// The section items recorded so far (`record(section:item:)`), for the run's and checks' verdicts.
    private var sections: [ReportSection] = []
    /// The checks begun so far, in order; `open` indexes those under way, in the order they began.
    private var checks: [CheckBuilder] = []
    private var open: [Int] = []
    private let encoder = ReportJSONWriter.makeEncoder()
    /// Reused for every journal line's value (its capacity persists), written without `JSONEncoder`.
    private var line = JSONOutput(capacity: 8192)
    /// The report files written while tasks are recorded (created at the first task of a run that
    /// can render that way; see the type's comment).
    private var liveReport: ReportWriter?
    /// The journal's bytes from the live report's first task line to the end of its last: what
    /// report.json copies as its tasks at `finish` (`ReportWriter.JournalTasks`).
    private var liveTasksStart: Int64 = 0
    private var liveTasksEnd: Int64 = 0
    private var sampler = TaskSampler()
    /// Whether any capture was recorded (such a run is rendered from its journal).
    private var recordedCapture = false
    /// Whether any section item was recorded (such a run is rendered from its journal).
    private var recordedSection = false
    /// The values of declared threshold metrics the sections' items carried (`ReportSection.declaredValues`).
    private var declared: [DeclaredMetricValues] = []

    /// The kinds of check this run plans (`CheckKind.name` of its checks' runners): `beginCheck`
    /// refuses any other.
    public let checkKinds: [String]

    /// The check kinds' renderers of the report's sections (`ReportSectionRenderer`).
    private let renderers: ReportSectionRenderers

    public init(folder: RunFolder, tool: ToolInfo, run: RunInfo, checkKinds: [String] = [],
                renderers: ReportSectionRenderers = ReportSectionRenderers()) throws(TaskError) {
        self.renderers = renderers
        self.folder = folder
        self.tool = tool
        self.run = run
        self.checkKinds = checkKinds
        journal = try Journal(path: folder.journalPath)
        try append(RunLine(tool: tool, run: run))
        try journal.flush()
    }

    /// Whether this run's report files can be written while it records (see the type's comment).
    private var rendersLive: Bool {
        run.capture == nil && soaks.isEmpty && resume.isEmpty && !recordedCapture && !recordedSection && checks.isEmpty
    }

    /// Tasks recorded so far that ended in an error (cheap: no distribution is summarised).
    public var failedTasks: Int { lock.withLock { _ in summary.failedTasks } }

    /// The name of the one check under way; nil between checks, in runs without them, and while
    /// several overlap.
    public var checkUnderWay: String? { lock.withLock { _ in soleOpenCheck } }

    private var soleOpenCheck: String? { open.count == 1 ? checks[open[0]].name : nil }

    /// The check a record belongs to: the one it names when that one is under way, else the one
    /// check under way; nil outside checks.
    private func checkIndex(named name: String?) -> Int? {
        if let name, let index = open.first(where: { checks[$0].name == name }) { return index }
        return open.count == 1 ? open[0] : nil
    }

    /// From here until `endCheck`, everything recorded belongs to the check `name` (of `kind`, one
    /// of `checkKinds`). `thresholds` are the check's own rules, evaluated at `finish` on
    /// that check's figures only. Throws `internalError` when a check is under way, the name is
    /// taken or unusable (`CheckReport.nameProblem`), or the kind not one the run planned;
    /// `localIOError` when the journal cannot take the line.
    /// - Parameter overlapping: other checks may be under way (a suite's `parallel`); without it a
    ///   check under way is an error.
    public func beginCheck(name: String, kind: String, thresholds: [Threshold], overlapping: Bool = false,
                           link: LinkUse? = nil) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            if !overlapping, let current = open.first {
                throw TaskError(code: .internalError, message: "check \(checks[current].name) is still under way: end it before \(name) begins")
            }
            if let problem = CheckReport.nameProblem(name) { throw TaskError(code: .internalError, message: problem) }
            guard checkKinds.contains(kind) else {
                let planned = checkKinds.isEmpty ? "none" : checkKinds.joined(separator: ", ")
                throw TaskError(code: .internalError, message: "check kind \(kind.debugDescription) is not one this run planned (\(planned))")
            }
            guard !checks.contains(where: { $0.name == name }) else {
                throw TaskError(code: .internalError, message: "this run already has a check named \(name)")
            }
            let begin = CheckBeginLine.Begin(name: name, kind: kind, startedAt: .now(), thresholds: thresholds.map(\.expression), link: link)
            try append(CheckBeginLine(check: begin))
            try journal.flush()
            // A run of checks renders from its journal: files begun live for earlier tasks go.
            liveReport = nil
            checks.append(CheckBuilder(begin: begin, thresholds: thresholds))
            open.append(checks.count - 1)
        }
    }

    /// The check `name` (nil: the one under way) ended; `error` is what stopped the check itself
    /// (nil when it ran), `interrupted` when Ctrl-C ended it, `timedOut` when the run's own time
    /// limit did (serve's `run-timeout`). Throws `internalError` when that check is not under way.
    /// - Parameter link: the check's emulated link with its counters, when it ran over one.
    public func endCheck(_ name: String? = nil, error: TaskError?, interrupted: Bool, timedOut: Bool = false,
                         link: LinkUse? = nil) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            guard let current = name.map({ name in open.first { checks[$0].name == name } }) ?? (open.count == 1 ? open.first : nil) else {
                throw TaskError(code: .internalError, message: "no check \(name.map { "named \($0) " } ?? "")is under way, so none can end")
            }
            let end = CheckEndLine.End(name: checks[current].name, finishedAt: .now(), error: error, interrupted: interrupted,
                                       timedOut: timedOut ? true : nil, link: link)
            checks[current].end = end
            open.removeAll { $0 == current }
            try append(CheckEndLine(check: end))
            try journal.flush()
        }
    }

    /// Journals the task (named after the check under way, if any), then counts it and hands it to
    /// the live report files. A task the journal refused (disk full) is not counted; if the live
    /// files fail, they are dropped and `finish` renders from the journal, so the summary always
    /// describes the journalled tasks. The journal line is the task's one JSON serialisation:
    /// report.json copies it from the journal at `finish`.
    public func record(_ task: ProbeTask) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            let current = open.isEmpty ? nil : checkIndex(named: task.check)
            // A run without checks (every plain probe) records the task as it came, without a copy.
            let task = current == nil && task.check == nil ? task : task.stamped(check: current.map { checks[$0].name })
            let lineStart = journal.length
            try appendLine(ReportJSONWriter.probeLinePrefix, task, ReportJSONWriter.probeLineSuffix)
            summary.add(task)
            if let current { checks[current].add(task) }
            if summary.tasks == 1 && rendersLive {
                let writer = try ReportWriter(folder: folder, renderers: renderers, tasksInJournal: true)
                writer.start(tool: tool, run: run)
                liveReport = writer
                liveTasksStart = lineStart
            }
            guard let liveReport else { return }
            sampler.add(task)
            liveTasksEnd = journal.length
            do throws(TaskError) {
                try liveReport.add(journalledTask: task)
            } catch {
                self.liveReport = nil
                throw error
            }
        }
    }

    /// Records the evidence of one capture (a line of its own in the journal).
    public func record(capture: CaptureReport) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            recordedCapture = true
            try append(CaptureLine(capture: capture))
        }
    }

    /// Records the start of a WebSocket soak (of the check `check`, or the one under way, if any).
    public func record(soakStart url: String, config: SoakConfig, startedAt: Timestamp, check name: String? = nil) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            let check = checkIndex(named: name).map { checks[$0].name }
            let builder = SoakReportBuilder(url: url, config: config, startedAt: startedAt, check: check, parts: renderers.soakParts)
            if let index = soaks.lastIndex(where: { $0.check == check }) { soaks[index] = builder } else { soaks.append(builder) }
            try append(SoakStartLine(soak: .init(url: url, config: config, startedAt: startedAt, check: check)))
        }
    }

    /// The check a soak record of `name` belongs to, and that check's soak (or the run's own
    /// outside checks), nil before it started.
    private func soak(of name: String?) -> (check: String?, index: Int?) {
        let check = checkIndex(named: name).map { checks[$0].name }
        return (check, soaks.lastIndex { $0.check == check })
    }

    /// Records one attempt of a soak's connection (again each time it changes; the last wins).
    public func record(attempt: SoakAttempt, check name: String? = nil) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            let (check, index) = soak(of: name)
            if let index { soaks[index].add(attempt) }
            try appendLine(SoakAttemptLine.prefix, attempt, check.map(SoakAttemptLine.suffix(check:)) ?? SoakAttemptLine.suffix)
        }
    }

    /// Records a batch of soak samples.
    public func record(samples: SoakSamples, check name: String? = nil) throws(TaskError) {
        guard !samples.isEmpty else { return }
        try lock.withLock { _ throws(TaskError) in
            let (check, index) = soak(of: name)
            if let index { soaks[index].add(samples) }
            try appendLine(SoakSamplesLine.prefix, samples, check.map(SoakSamplesLine.suffix(check:)) ?? SoakSamplesLine.suffix)
        }
    }

    /// Records what an idle-timeout discovery found.
    public func record(idleTimeout findings: IdleTimeoutFindings, check name: String? = nil) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            let (check, index) = soak(of: name)
            if let index { soaks[index].set(idleTimeout: findings) }
            try append(SoakIdleLine(findings: findings, check: check))
        }
    }

    /// Records one finished resume trial (flushed at once: trials are few and each may be long).
    public func record(resumeTrial trial: ResumeTrial, check name: String? = nil) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            var trial = trial
            trial.check = checkIndex(named: name).map { checks[$0].name }
            resume.trials.append(trial)
            try append(ResumeTrialLine(trial: trial))
            try journal.flush()
        }
    }

    /// Records one resumability verdict.
    public func record(resumeVerdict verdict: ResumeVerdict, check name: String? = nil) throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            var verdict = verdict
            verdict.check = checkIndex(named: name).map { checks[$0].name }
            resume.verdicts.append(verdict)
            try append(ResumeVerdictLine(verdict: verdict))
            try journal.flush()
        }
    }

    /// Records one item of the report.json array `section` that a check kind fills itself
    /// (`ReportSection`; `sonde stream`'s `streams`, `sonde audit`'s `audits`), flushed at once. The
    /// item is one JSON object (keys sorted), journalled as its renderer's `journalLine` says.
    public func record(section: String, item: some Encodable & Sendable) throws(TaskError) {
        guard ReportSection.isValid(name: section) else {
            throw TaskError(code: .internalError, message: "'\(section)' cannot name a report section")
        }
        try lock.withLock { _ throws(TaskError) in
            recordedSection = true
            let json: [UInt8]
            do { json = Array(try encoder.encode(item)) } catch {
                throw TaskError(code: .internalError, message: "cannot encode a journal line: \(error)")
            }
            if let values = ReportSection.declaredValues(item: json) { declared.append(values) }
            ReportSection.add(json, to: section, in: &sections)
            if let line = renderers.renderer(of: section)?.journalLine {
                try journal.append(line: ReportSection.journalLine(type: line, item: json))
            } else {
                try append(SectionLine(name: section, section: item))
            }
            try journal.flush()
        }
    }

    /// Flushes the journal if its buffer has waited a flush interval (call this while idle).
    public func flushIfDue() throws(TaskError) {
        try lock.withLock { _ throws(TaskError) in
            try journal.flushIfDue()
        }
    }

    /// Ends the run: evaluates the run's thresholds on the whole run and each check's thresholds on
    /// that check's figures (a failing one, like a failed soak, trial or check, turns a passed run into a
    /// failed one), closes the journal with an end line that keeps the results, and completes the report
    /// files written while recording, or renders them from the journal (`ReportFiles`, as `sonde report`
    /// does) for the runs that cannot be written live (see the type's comment). A check still under way
    /// counts as interrupted.
    @discardableResult
    /// - Parameter link: a single-check run's emulated link with its counters (`RunInfo.link`).
    public func finish(status: RunStatus, thresholds: [Threshold] = [], baseline: JournalScan.Result? = nil,
                       prometheusPath: String? = nil, link: LinkUse? = nil) throws(TaskError) -> RunOutcome {
        try lock.withLock { _ throws(TaskError) in
            // However this ends, the live files go: committed ones are renamed, the rest (a journal that
            // could not be closed, a full disk) leave no `.partial` behind.
            defer { liveReport = nil }
            let result = summary.result
            run.finishedAt = Timestamp.now()
            if let link { run.link = link }
            let judged = RunJudgement(summary: result, thresholds: thresholds, baseline: baseline, soaks: soaks, resume: resume,
                                      sections: sections, renderers: renderers, declared: declared, checks: checks, status: status,
                                      finishedAt: run.finishedAt)
            run.status = judged.status
            let results = judged.thresholds, comparison = judged.comparison
            try append(EndLine(status: run.status, finishedAt: run.finishedAt!, thresholds: results, baseline: comparison,
                               checks: judged.checks.isEmpty ? nil : judged.checks, link: link))
            try journal.close()
            if rendersLive, let outcome = try finishLive(summary: result, thresholds: results, baseline: comparison,
                                                         prometheusPath: prometheusPath) {
                return outcome
            }
            self.liveReport = nil  // before the journal's writer reopens the same partial files
            return try ReportFiles.render(folder: folder, prometheusPath: prometheusPath, renderers: renderers)
        }
    }

    /// Completes the report files written while recording, report.json's tasks copied from the
    /// closed journal's lines; nil when there are none, or when those lines are not the tasks
    /// recorded (something else came between them: then the journal is the record). Call with `lock` held.
    private func finishLive(summary result: ProbeSummary, thresholds results: [ThresholdResult],
                            baseline comparison: BaselineComparison?, prometheusPath: String?) throws(TaskError) -> RunOutcome? {
        guard let liveReport else { return nil }
        var outcome = RunOutcome(tool: tool, run: run, summary: result, thresholds: results, baseline: comparison,
                                 sample: sampler.tasks)
        outcome.renderers = renderers
        let tasks = ReportWriter.JournalTasks(path: folder.journalPath, start: liveTasksStart, end: liveTasksEnd,
                                              count: summary.tasks)
        return try liveReport.finish(outcome, prometheusPath: prometheusPath, journalTasks: tasks) ? outcome : nil
    }

    /// One journal line `prefix + value + suffix`.
    private func appendLine(_ prefix: [UInt8], _ value: some JSONWritable, _ suffix: [UInt8]) throws(TaskError) {
        line.reset()
        value.writeJSON(to: &line)
        try line.withBytes { (json) throws(TaskError) in try journal.append(prefix: prefix, json, suffix: suffix) }
    }

    private func append(_ value: some Encodable) throws(TaskError) {
        try journal.append(encoded: value, with: encoder)
    }
}
