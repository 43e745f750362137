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
    /// The audited URLs (`sonde audit`, `audit` checks), in the order they were recorded.
    public var audits: [AuditResult]
    /// The checks of a `sonde run` suite, in the order they began ([] for runs without checks).
    public var checks: [CheckReport]
    /// Tasks the HTML draws (bounded; see `TaskSampler`: the first tasks of the run, or of each check).
    public var sample: [ProbeTask]

    public init(tool: ToolInfo, run: RunInfo, summary: ProbeSummary, thresholds: [ThresholdResult],
                baseline: BaselineComparison? = nil, captures: [CaptureReport] = [], soaks: [SoakReport] = [],
                resume: ResumeResults = ResumeResults(), audits: [AuditResult] = [], checks: [CheckReport] = [], sample: [ProbeTask]) {
        self.tool = tool
        self.run = run
        self.summary = summary
        self.thresholds = thresholds
        self.baseline = baseline
        self.captures = captures
        self.soaks = soaks
        self.resume = resume
        self.audits = audits
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
/// A killed run is `interrupted`, with a warning; lines that do not decode (cut mid-write) are
/// skipped and counted in a warning.
public enum ReportFiles {
    /// - Parameters:
    ///   - thresholds: evaluate these instead of the results the journal's end line holds.
    ///   - baseline: compare with this run (replacing the comparison the end line holds).
    @discardableResult
    public static func render(folder: RunFolder, thresholds: [Threshold]? = nil, baseline: JournalScan.Result? = nil,
                              prometheusPath: String? = nil) throws(TaskError) -> RunOutcome {
        try JournalScan.requireJournal(folder)
        let writer = try ReportWriter(folder: folder)
        // A run with a live capture: every transaction gets its connection's evidence.
        let matcher = CaptureMatcher(captures: try JournalScan.liveCaptures(folder: folder))
        let scan = try JournalScan.scan(folder: folder, onRunLine: { (line: RunLine) in
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
                run.status = result.failedTasks == 0 && scan.soaks.allSatisfy(\.passed) && scan.resume.passed && scan.audits.allSatisfy(\.passed)
                    && results.allSatisfy(\.passed)
                    && scan.checks.allSatisfy({ $0.status == .passed }) ? .passed : .failed
            }
        }
        let outcome = RunOutcome(tool: scan.tool, run: run, summary: result, thresholds: results, baseline: comparison,
                                 captures: scan.captures, soaks: scan.soaks, resume: scan.resume, audits: scan.audits, checks: scan.checks,
                                 sample: scan.sample)
        try writer.finish(outcome, prometheusPath: prometheusPath)
        return outcome
    }
}
