import SondeCore

/// One check of a run as recorded so far: its begin line's facts, its probe tasks summarised, and
/// how it ended; `report` makes its `CheckReport` once the run's soaks and resume results are
/// known. `RunRecorder` and `JournalScan` both build checks with it, so a finished run and one
/// rebuilt from its journal judge a check the same way.
///
/// Invariant: `end` is nil while the check is under way; a check whose journal has no end line
/// (the process was killed) keeps it nil and reports as `interrupted`.
struct CheckBuilder {
    let begin: CheckBeginLine.Begin
    /// The begin line's threshold expressions, parsed; one that does not parse (a journal another
    /// tool altered) is kept as its syntax error and fails.
    let thresholds: [Result<Threshold, ThresholdSyntaxError>]
    private(set) var summary = ProbeSummaryBuilder()
    var end: CheckEndLine.End?

    init(begin: CheckBeginLine.Begin) {
        self.begin = begin
        thresholds = begin.thresholds.map { (expression) -> Result<Threshold, ThresholdSyntaxError> in
            // Checked against the kinds when the run began: a kind's own metric reads back by its form.
            do throws(ThresholdSyntaxError) { return .success(try Threshold(parsing: expression, declared: .any)) } catch { return .failure(error) }
        }
    }

    init(begin: CheckBeginLine.Begin, thresholds: [Threshold]) {
        self.begin = begin
        self.thresholds = thresholds.map { .success($0) }
    }

    var name: String { begin.name }

    mutating func add(_ task: ProbeTask) { summary.add(task) }

    /// The check's report: its thresholds evaluated on its own probe summary and soaks (those of
    /// `soaks` whose `check` is its name), its status from those and its resume results.
    /// - Parameter runFinishedAt: when the run ended, the end of a check that never ended.
    /// - Parameter declared: the run's values of declared metrics; the check judges those whose `check` is its name.
    /// - Parameter sections: the run's section items; the check fails when one of its own fails (`renderers`' `failed`).
    func report(soaks: [SoakReport], resume: ResumeResults, sections: [ReportSection] = [],
                renderers: ReportSectionRenderers = ReportSectionRenderers(), declared: [DeclaredMetricValues] = [],
                baseline: ProbeSummary?, runFinishedAt: Timestamp?) -> CheckReport {
        let result = summary.result
        let own = soaks.filter { $0.check == name }
        let ownDeclared = declared.filter { $0.check == name }
        let ownResume = ResumeResults(trials: resume.trials.filter { $0.check == name },
                                      verdicts: resume.verdicts.filter { $0.check == name })
        let results = thresholds.map { (threshold) -> ThresholdResult in
            var evaluated: ThresholdResult
            switch threshold {
            case .success(let threshold): evaluated = threshold.evaluate(result, baseline: baseline, soaks: own, declared: ownDeclared)
            case .failure(let error):
                evaluated = ThresholdResult(expression: error.expression, observed: nil, passed: false,
                                            message: "the journal holds a threshold sonde cannot read: \(error.problem)")
            }
            evaluated.check = name
            return evaluated
        }
        let status = CheckReport.status(ended: end != nil, timedOut: end?.timedOut == true, interrupted: end?.interrupted ?? true, error: end?.error,
                                        failedTasks: result.failedTasks, soaks: own, resume: ownResume,
                                        failedItems: renderers.anyFailed(sections, check: name), thresholds: results)
        return CheckReport(name: name, kind: begin.kind, status: status, startedAt: begin.startedAt,
                           finishedAt: end?.finishedAt ?? runFinishedAt ?? begin.startedAt, error: end?.error,
                           thresholds: results, summary: result.tasks > 0 ? result : nil, link: end?.link ?? begin.link)
    }
}
