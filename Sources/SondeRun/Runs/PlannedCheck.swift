import SondeCore
import SondeSuite
import SondeLink

/// One check of a run: its name in a suite (nil for a plain command's single check), its own
/// thresholds, the emulated link it runs over (nil: the machine's own network), and its engine.
public struct PlannedCheck {
    public var name: String?
    public var thresholds: [Threshold] = []
    public var link: LinkProfile?
    public var runner: any CheckRunner

    public init(name: String?, thresholds: [Threshold] = [], link: LinkProfile? = nil, runner: any CheckRunner) {
        self.name = name
        self.thresholds = thresholds
        self.link = link
        self.runner = runner
    }

    /// The engine of one validated suite check (`sonde run`, `sonde serve`).
    public init(_ check: SuiteCheck, settings: RunSettings) throws(SpecProblem) {
        switch SpecRules.thresholds(check.spec.thresholds, kind: check.spec.kind) {
        case .success(let parsed): thresholds = parsed
        case .failure(let problem): throw problem
        }
        runner = try check.spec.runner(settings: settings)
        name = check.name
        link = check.spec.linkProfile
    }
}
