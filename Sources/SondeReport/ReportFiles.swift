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
    /// The checks of a `sonde run` suite, in the order they began ([] for runs without checks).
    public var checks: [CheckReport]
    /// Tasks the HTML draws (bounded; see `TaskSampler`: the first tasks of the run, or of each check).
    public var sample: [ProbeTask]
    /// The arrays check kinds fill themselves (`ReportSection`), in the order first recorded.
    public var sections: [ReportSection] = []
    /// The check kinds' renderers the sections were read with, for whatever shows the outcome next
    /// (the terminal, the Markdown summary).
    public var renderers = ReportSectionRenderers()
    /// What the journal the run was rendered from could not give (empty for a run rendered as it ran).
    public var losses = JournalLosses()

    public init(tool: ToolInfo, run: RunInfo, summary: ProbeSummary, thresholds: [ThresholdResult],
                baseline: BaselineComparison? = nil, captures: [CaptureReport] = [], soaks: [SoakReport] = [],
                resume: ResumeResults = ResumeResults(), checks: [CheckReport] = [], sample: [ProbeTask]) {
        self.tool = tool
        self.run = run
        self.summary = summary
        self.thresholds = thresholds
        self.baseline = baseline
        self.captures = captures
        self.soaks = soaks
        self.resume = resume
        self.checks = checks
        self.sample = sample
    }

    /// The process exit status of every command that writes a run (README.md, "Exit codes"): interrupted 130,
    /// then thresholds failed 99 (the run's or a check's), then a failed task, a run error or a
    /// run that reached its time limit (`timeout`, only inside serve) 1, else 0.
    public var exitStatus: ExitStatus {
        if run.status == .interrupted { return .interrupted }
        if thresholds.contains(where: { !$0.passed }) || checks.contains(where: { $0.thresholds.contains { !$0.passed } }) {
            return .thresholdsFailed
        }
        return run.status == .passed ? .success : .failure
    }
}

/// Renders every report file of a run folder from its journal alone, in one pass, reading each
/// task once: for `sonde report`, for a run killed before its end line (rebuilt the same way), and
/// at the end of a soak, a resume run, an analysis, a run of several checks (`sonde run`), or a
/// probe run whose tasks get capture evidence at the end. Other probe runs render while they record (`RunRecorder`), through the same
/// `ReportWriter`, to the same bytes.
/// A killed run is `interrupted`, with a warning; lines that do not decode are skipped, counted
/// in `RunOutcome.losses` and said in warnings.
///
/// Nothing is replaced until the whole journal is read: each file is written under a `.partial`
/// name and renamed at the end (`AtomicFile`), so a render that stops (an error, or
/// `keepingReportOnLoss`) leaves the folder's files as they were.
public enum ReportFiles {
    /// Thrown (as `TaskError.reason`) when `keepingReportOnLoss` kept a folder's report.
    public static let keptReportReason = "journalDamaged"

    /// - Parameters:
    ///   - thresholds: evaluate these instead of the results the journal's end line holds.
    ///   - baseline: compare with this run (replacing the comparison the end line holds).
    ///   - keepingReportOnLoss: when the folder already has a report.json and the journal lost
    ///     something (`JournalLosses`), or gives fewer tasks than that report holds, or has no end
    ///     line though the report shows the run ended (the journal was cut short), write nothing and
    ///     throw (reason `keptReportReason`) saying what was lost: a report made from the whole
    ///     journal is not replaced by a smaller one.
    @discardableResult
    public static func render(folder: RunFolder, thresholds: [Threshold]? = nil, baseline: JournalScan.Result? = nil,
                              prometheusPath: String? = nil, keepingReportOnLoss: Bool = false,
                              renderers: ReportSectionRenderers = ReportSectionRenderers()) throws(TaskError) -> RunOutcome {
        try JournalScan.requireJournal(folder)
        let writer = try ReportWriter(folder: folder, renderers: renderers)
        // A run with a live capture: every transaction gets its connection's evidence.
        let matcher = CaptureMatcher(captures: try JournalScan.liveCaptures(folder: folder))
        let scan = try JournalScan.scan(folder: folder, soakParts: renderers.soakParts, renderers: renderers, onRunLine: { (line: RunLine) in
            writer.start(tool: line.tool, run: line.run)
        }, transform: { matcher.isEmpty ? nil : matcher.attach(to: $0) },
        onTask: { (task: ProbeTask, taskJSON: ArraySlice<UInt8>) throws(TaskError) in
            let withEvidence = task.transactionMetrics.contains { $0.capture != nil }
            if withEvidence {
                try writer.add(task, journalled: nil)
            } else {
                var failure: TaskError? = nil  // (`withUnsafeBytes` rethrows untyped)
                taskJSON.withUnsafeBytes { json in
                    do throws(TaskError) { try writer.add(task, journalled: json) } catch { failure = error }
                }
                if let failure { throw failure }
            }
        })

        if keepingReportOnLoss, let lost = lost(scan, against: ExistingReport.facts(at: folder.reportJSONPath)) {
            throw TaskError(code: .localIOError,
                            message: "\(folder.journalPath) is damaged: \(lost), so a report rebuilt from it would lack what the "
                                + "report.json there holds. The folder's report files are kept as they were; give --force to "
                                + "replace them with what the journal still holds.",
                            reason: keptReportReason)
        }
        let (run, results, comparison) = judged(scan, thresholds: thresholds, baseline: baseline, renderers: renderers)
        let result = scan.summary
        var outcome = RunOutcome(tool: scan.tool, run: run, summary: result, thresholds: results, baseline: comparison,
                                 captures: scan.captures, soaks: scan.soaks, resume: scan.resume, checks: scan.checks,
                                 sample: scan.sample)
        outcome.losses = scan.losses
        outcome.sections = scan.sections
        outcome.renderers = renderers
        try writer.finish(outcome, prometheusPath: prometheusPath)
        return outcome
    }

    /// The run as it ended (or was killed), its thresholds and baseline comparison: the end line's,
    /// or `thresholds` evaluated (the status of a run that ran to its end follows them) and the
    /// comparison with `baseline`, when given.
    static func judged(_ scan: JournalScan.Result, thresholds: [Threshold]?, baseline: JournalScan.Result?,
                       renderers: ReportSectionRenderers = ReportSectionRenderers())
        -> (run: RunInfo, thresholds: [ThresholdResult], comparison: BaselineComparison?) {
        var run = scan.run
        let result = scan.summary
        var results = scan.endLine?.thresholds ?? []
        var comparison = scan.endLine?.baseline
        if let baseline {
            comparison = BaselineComparison(current: result, baseline: baseline.summary, baselineRun: baseline.run)
        }
        if let thresholds {
            let declared = ReportSection.declaredValues(in: scan.sections)
            results = thresholds.map { $0.evaluate(result, baseline: baseline?.summary, soaks: scan.soaks, declared: declared) }
            if run.status == .passed || run.status == .failed {
                run.status = result.failedTasks == 0 && scan.soaks.allSatisfy(\.passed) && scan.resume.passed && !renderers.anyFailed(scan.sections)
                    && results.allSatisfy(\.passed)
                    && scan.checks.allSatisfy({ $0.status == .passed }) ? .passed : .failed
            }
        }
        return (run, results, comparison)
    }

    /// What a rebuild from `scan` would lose beside the folder's report (`existing`), in words; nil
    /// when there is no report, or nothing is lost.
    static func lost(_ scan: JournalScan.Result, against existing: ExistingReport.Facts?) -> String? {
        guard let existing else { return nil }
        var lost: [String] = []
        if !scan.losses.isEmpty { lost.append(scan.losses.description + " could not be read") }
        if let tasks = existing.tasks, tasks > scan.summary.tasks {
            lost.append("report.json holds \(tasks) tasks and the journal gives \(scan.summary.tasks)")
        }
        if scan.endLine == nil, let status = existing.status, status != RunStatus.interrupted.rawValue {
            lost.append("the journal has no end line though report.json says the run ended (\(status)): it was cut short")
        }
        return lost.isEmpty ? nil : lost.joined(separator: "; ")
    }
}
