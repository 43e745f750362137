import Foundation
import SondeCore

/// Receives a probe run's tasks as they complete and keeps nothing unbounded: each task goes to
/// the JSONL journal at once, into the summary's histograms, (the first few hundred) into the
/// sample the HTML report draws, and into the report files as far as they can be written before
/// the run ends (`ReportWriter`), so that `finish` only writes their heads and tails and the HTML.
///
/// Runs whose tasks change after they were journalled (a live capture attaches its evidence at the
/// end), soaks, resume runs and captures analysed are instead rendered from the journal at `finish`
/// (`ReportFiles.render`), which is also what `sonde report` does: both give the same files.
public final class RunRecorder {
    public let folder: RunFolder
    public let tool: ToolInfo
    public private(set) var run: RunInfo
    private let journal: Journal
    private var summary = ProbeSummaryBuilder()
    /// The soak recorded so far (nil until `record(soakStart:…)`).
    private var soak: SoakReportBuilder?
    /// The resume trials and verdicts recorded so far.
    private var resume = ResumeResults()
    private let encoder = ReportJSONWriter.makeEncoder()
    /// Reused for every journal line's value (its capacity persists), written without `JSONEncoder`.
    private var line = JSONOutput(capacity: 8192)
    /// The report files written while tasks are recorded (created at the first task of a run that
    /// can render that way; see the type's comment).
    private var liveReport: ReportWriter?
    private var sampler = TaskSampler()
    /// Whether any capture was recorded (such a run is rendered from its journal).
    private var recordedCapture = false

    public init(folder: RunFolder, tool: ToolInfo, run: RunInfo) throws(TaskError) {
        self.folder = folder
        self.tool = tool
        self.run = run
        journal = try Journal(path: folder.journalPath)
        try append(RunLine(tool: tool, run: run))
        try journal.flush()
    }

    /// Whether this run's report files can be written while it records (see the type's comment).
    private var rendersLive: Bool { run.capture == nil && soak == nil && resume.isEmpty && !recordedCapture }

    /// Tasks recorded so far that ended in an error (cheap: no distribution is summarised).
    public var failedTasks: Int { summary.failedTasks }

    /// Journals the task, then counts it and hands it to the live report files. A task the journal
    /// refused (disk full) is not counted; if the live files fail, they are dropped and `finish`
    /// renders from the journal, so the summary always describes the journalled tasks.
    public func record(_ task: ProbeTask) throws(TaskError) {
        try appendLine(ReportJSONWriter.probeLinePrefix, task, ReportJSONWriter.probeLineSuffix)
        summary.add(task)
        if summary.tasks == 1 && rendersLive {
            let writer = try ReportWriter(folder: folder)
            writer.start(tool: tool, run: run)
            liveReport = writer
        }
        guard let liveReport else { return }
        sampler.add(task)
        do throws(TaskError) {
            try line.withBytes { (json) throws(TaskError) in try liveReport.add(task, journalled: json) }
        } catch {
            self.liveReport = nil
            throw error
        }
    }

    /// Records the evidence of one capture (a line of its own in the journal).
    public func record(capture: CaptureReport) throws(TaskError) {
        recordedCapture = true
        try append(CaptureLine(capture: capture))
    }

    /// Records the start of a WebSocket soak.
    public func record(soakStart url: String, config: SoakConfig, startedAt: Timestamp) throws(TaskError) {
        soak = SoakReportBuilder(url: url, config: config, startedAt: startedAt)
        try append(SoakStartLine(soak: .init(url: url, config: config, startedAt: startedAt)))
    }

    /// Records one attempt of a soak's connection (again each time it changes; the last wins).
    public func record(attempt: SoakAttempt) throws(TaskError) {
        soak?.add(attempt)
        try appendLine(SoakAttemptLine.prefix, attempt, SoakAttemptLine.suffix)
    }

    /// Records a batch of soak samples.
    public func record(samples: SoakSamples) throws(TaskError) {
        guard !samples.isEmpty else { return }
        soak?.add(samples)
        try appendLine(SoakSamplesLine.prefix, samples, SoakSamplesLine.suffix)
    }

    /// Records what an idle-timeout discovery found.
    public func record(idleTimeout findings: IdleTimeoutFindings) throws(TaskError) {
        soak?.set(idleTimeout: findings)
        try append(SoakIdleLine(findings: findings))
    }

    /// Records one finished resume trial (flushed at once: trials are few and each may be long).
    public func record(resumeTrial trial: ResumeTrial) throws(TaskError) {
        resume.trials.append(trial)
        try append(ResumeTrialLine(trial: trial))
        try journal.flush()
    }

    /// Records one resumability verdict.
    public func record(resumeVerdict verdict: ResumeVerdict) throws(TaskError) {
        resume.verdicts.append(verdict)
        try append(ResumeVerdictLine(verdict: verdict))
        try journal.flush()
    }

    /// Flushes the journal if its buffer has waited a flush interval (call this while idle).
    public func flushIfDue() throws(TaskError) { try journal.flushIfDue() }

    /// Ends the run: evaluates the thresholds on the summary (a failing one, like a failed soak or trial,
    /// turns a passed run into a failed one), closes the journal with an end line that keeps the results, and
    /// completes the report files written while recording, or renders them from the journal (`ReportFiles`,
    /// as `sonde report` does) for the runs that cannot be written live (see the type's comment).
    @discardableResult
    public func finish(status: RunStatus, thresholds: [Threshold] = [], baseline: JournalScan.Result? = nil,
                       prometheusPath: String? = nil) throws(TaskError) -> RunOutcome {
        // However this ends, the live files go: committed ones are renamed, the rest (a journal that
        // could not be closed, a full disk) leave no `.partial` behind.
        defer { liveReport = nil }
        let result = summary.result
        run.finishedAt = Timestamp.now()
        let soaks = soak.map { [$0.result(finishedAt: run.finishedAt)] } ?? []
        let results = thresholds.map { $0.evaluate(result, baseline: baseline?.summary, soaks: soaks) }
        let failedGate = results.contains { !$0.passed } || soaks.contains { !$0.passed } || !resume.passed
        run.status = status == .passed && failedGate ? .failed : status
        let comparison = baseline.map { BaselineComparison(current: result, baseline: $0.summary, baselineRun: $0.run) }
        try append(EndLine(status: run.status, finishedAt: run.finishedAt!, thresholds: results, baseline: comparison))
        try journal.close()
        guard let liveReport, rendersLive else {
            self.liveReport = nil  // before the journal's writer reopens the same partial files
            return try ReportFiles.render(folder: folder, prometheusPath: prometheusPath)
        }
        let outcome = RunOutcome(tool: tool, run: run, summary: result, thresholds: results, baseline: comparison,
                                 sample: sampler.tasks)
        try liveReport.finish(outcome, prometheusPath: prometheusPath)
        return outcome
    }

    /// One journal line `prefix + value + suffix`; `line` keeps the value's JSON afterwards.
    private func appendLine(_ prefix: [UInt8], _ value: some JSONWritable, _ suffix: [UInt8]) throws(TaskError) {
        line.reset()
        value.writeJSON(to: &line)
        try line.withBytes { (json) throws(TaskError) in try journal.append(prefix: prefix, json, suffix: suffix) }
    }

    private func append(_ value: some Encodable) throws(TaskError) {
        try journal.append(encoded: value, with: encoder)
    }
}

struct RunLine: Codable {
    var type = JournalEntryKind.run
    let tool: ToolInfo
    let run: RunInfo
}

/// `{"trial":…,"type":"resume-trial"}` (sorted keys: `type` last).
struct ResumeTrialLine: Codable, Sendable {
    let trial: ResumeTrial
    var type = JournalEntryKind.resumeTrial
}

/// `{"type":"resume-verdict","verdict":…}`.
struct ResumeVerdictLine: Codable, Sendable {
    var type = JournalEntryKind.resumeVerdict
    let verdict: ResumeVerdict
}

struct CaptureLine: Codable, Sendable {
    var type = JournalEntryKind.capture
    let capture: CaptureReport
}

struct SoakStartLine: Codable, Sendable {
    struct Start: Codable, Sendable {
        let url: String
        let config: SoakConfig
        let startedAt: Timestamp
    }
    let soak: Start
    var type = JournalEntryKind.soak
}

/// `{"attempt":…,"type":"ws-attempt"}`, written with `JSONOutput` and read with `JSONReader`
/// (JSONDecoder is the fallback), the keys in sorted order as the other lines have them.
struct SoakAttemptLine: Codable, Sendable {
    var type = JournalEntryKind.wsAttempt
    let attempt: SoakAttempt
    static let prefix = Array(#"{"attempt":"#.utf8)
    static let suffix = Array(#","type":"ws-attempt"}"#.utf8)
}

/// `{"samples":…,"type":"ws-samples"}`, like `SoakAttemptLine`.
struct SoakSamplesLine: Codable, Sendable {
    var type = JournalEntryKind.wsSamples
    let samples: SoakSamples
    static let prefix = Array(#"{"samples":"#.utf8)
    static let suffix = Array(#","type":"ws-samples"}"#.utf8)
}

extension JournalScan {
    /// The value between a soak line's fixed prefix and suffix, read with `JSONReader`; nil when
    /// the line is not in that exact form (then `JSONDecoder` gets a chance).
    static func readSoakValue<T: JSONReadable>(_ type: T.Type, in line: ArraySlice<UInt8>, prefix: [UInt8], suffix: [UInt8]) -> T? {
        guard line.count > prefix.count + suffix.count, line.starts(with: prefix), line.suffix(suffix.count).elementsEqual(suffix) else {
            return nil
        }
        return try? JSONReader.read(type, from: line[(line.startIndex + prefix.count)..<(line.endIndex - suffix.count)])
    }
}

struct SoakIdleLine: Codable, Sendable {
    var type = JournalEntryKind.wsIdle
    let findings: IdleTimeoutFindings
}

struct EndLine: Codable, Sendable {
    var type = JournalEntryKind.end
    let status: RunStatus
    let finishedAt: Timestamp
    let thresholds: [ThresholdResult]
    /// The comparison with `--baseline`, when one was given.
    var baseline: BaselineComparison?
}

extension Journal {
    /// Appends `value` as one JSON line (the run, capture and end lines; task lines are written
    /// with `JSONOutput`). An encoding failure is an internal error, never a crash.
    func append(encoded value: some Encodable, with encoder: JSONEncoder) throws(TaskError) {
        let bytes: Data
        do {
            bytes = try encoder.encode(value)
        } catch {
            throw TaskError(code: .internalError, message: "cannot encode a journal line: \(error)")
        }
        try append(line: Array(bytes))
    }
}
