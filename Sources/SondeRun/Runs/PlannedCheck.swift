import SondeCore
import SondeLink

/// One check of a run: its name in a suite (nil for a plain command's single check), its own
/// thresholds, the emulated link it runs over (nil: the machine's own network), and its engine.
public struct PlannedCheck {
    public var name: String?
    public var thresholds: [Threshold] = []
    public var link: LinkProfile?
    public var runner: CheckRunner

    public init(name: String?, thresholds: [Threshold] = [], link: LinkProfile? = nil, runner: CheckRunner) {
        self.name = name
        self.thresholds = thresholds
        self.link = link
        self.runner = runner
    }

    /// The engine of one validated suite check (`sonde run`, `sonde serve`).
    public init(_ check: SuiteCheck, settings: RunSettings) throws(SpecProblem) {
        let redactor = settings.redactor
        switch SpecRules.thresholds(check.spec.thresholds) {
        case .success(let parsed): thresholds = parsed
        case .failure(let problem): throw problem
        }
        switch check.spec {
        case .probe(let spec):
            runner = .probe(ProbeCheckRunner(groups: [ProbeGroup(requests: spec.requests, options: try spec.makeOptions())]))
        case .soak(let spec):
            runner = .soak(SoakCheckRunner(options: try spec.makeOptions(redactor: redactor), url: spec.url,
                                           displayURL: redactor.redact(url: spec.url), discoverIdleTimeout: spec.discoveryMaxIdle))
        case .resume(let spec):
            runner = .resume(ResumeCheckRunner(spec, redact: !settings.noRedact, extraRedactions: settings.extraRedactions))
        case .audit(let spec):
            runner = .audit(AuditCheckRunner(spec))
        }
        name = check.name
        link = check.spec.linkProfile
    }
}
