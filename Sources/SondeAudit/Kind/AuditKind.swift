import SondeCore
import SondeReport
import SondeRun
import SondeSuite

/// `kind: audit` (`sonde audit`): URLs checked for mobile clients (docs/audit.md).
public enum AuditKind: RunnableKind {
    public typealias Spec = AuditSpec

    public static let name = "audit"

    public static func runner(for spec: AuditSpec, settings: RunSettings) throws(SpecProblem) -> any CheckRunner {
        AuditCheckRunner(spec)
    }

    /// None: the findings pass or fail the check (`fail-on`).
    public static func judges(_ threshold: Threshold) -> Bool { false }

    public static let metricsHint = "an audit check has no threshold metrics: its findings pass or fail it (fail-on)"

    /// report.json's `audits` in the other outputs, and the audits' verdict on their check.
    public static var sectionRenderer: (any ReportSectionRenderer)? { AuditSectionRenderer() }
}
