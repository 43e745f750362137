import SondeCore
import SondeRun

/// One check of a run: its name in a suite (nil for a plain command's single check), its own
/// thresholds, and its engine.
struct PlannedCheck {
    var name: String?
    var thresholds: [Threshold] = []
    var runner: CheckRunner

    init(name: String?, thresholds: [Threshold] = [], runner: CheckRunner) {
        self.name = name
        self.thresholds = thresholds
        self.runner = runner
    }

    /// The engine of one validated suite check (`sonde run`, `sonde serve`).
    init(_ check: SuiteCheck, report: ReportOptions) throws(SpecProblem) {
        let redactor = report.redactor
        switch SpecRules.thresholds(check.spec.thresholds) {
        case .success(let parsed): thresholds = parsed
        case .failure(let problem): throw problem
        }
        switch check.spec {
        case .probe(let spec):
            runner = .probe(ProbeCheckRunner(groups: [ProbeGroup(urls: spec.urls, options: try spec.makeOptions())]))
        case .soak(let spec):
            runner = .soak(SoakCheckRunner(options: try spec.makeOptions(redactor: redactor), url: spec.url,
                                           displayURL: redactor.redact(url: spec.url), discoverIdleTimeout: spec.discoveryMaxIdle))
        case .resume(let spec):
            runner = .resume(ResumeCheckRunner(spec, redact: !report.noRedact, extraRedactions: report.extraRedactions))
        }
        name = check.name
    }
}
