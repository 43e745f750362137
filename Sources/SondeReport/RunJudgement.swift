import SondeCore

/// What a finished run comes to: its thresholds judged on the whole run, each check's on that
/// check's figures, the soaks and resume trials, and the status by the one rule (a failing
/// threshold, soak, trial, failed section item or check turns a passed run into a failed one; any
/// other status stays).
/// Pure: `RunRecorder.finish` builds it from what it recorded.
struct RunJudgement {
    let thresholds: [ThresholdResult]
    let checks: [CheckReport]
    let comparison: BaselineComparison?
    let status: RunStatus

    init(summary: ProbeSummary, thresholds: [Threshold], baseline: JournalScan.Result?, soaks: [SoakReportBuilder],
         resume: ResumeResults, sections: [ReportSection] = [], renderers: ReportSectionRenderers = ReportSectionRenderers(),
         declared: [DeclaredMetricValues] = [], checks: [CheckBuilder], status: RunStatus,
         finishedAt: Timestamp?) {
        let soakReports = soaks.map { $0.result(finishedAt: finishedAt) }
        self.thresholds = thresholds.map { $0.evaluate(summary, baseline: baseline?.summary, soaks: soakReports, declared: declared) }
        self.checks = checks.map {
            $0.report(soaks: soakReports, resume: resume, sections: sections, renderers: renderers, declared: declared,
                      baseline: baseline?.summary, runFinishedAt: finishedAt)
        }
        let failedGate = self.thresholds.contains { !$0.passed } || soakReports.contains { !$0.passed } || !resume.passed
            || renderers.anyFailed(sections)
            || self.checks.contains { $0.status != .passed }
        self.status = status == .passed && failedGate ? .failed : status
        comparison = baseline.map { BaselineComparison(current: summary, baseline: $0.summary, baselineRun: $0.run) }
    }
}
