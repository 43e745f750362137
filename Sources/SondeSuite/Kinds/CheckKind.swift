import SondeCore
import SondeReport

/// A kind of check (`kind: probe` in a suite, `checks[].kind` in a report): its spec type and what
/// its thresholds judge; how a spec becomes its engine is SondeRun's `RunnableKind`. A kind is a
/// type with static members only (a caseless enum): `ProbeKind`, `SoakKind` and `ResumeKind` here,
/// others in their own modules (SondeSSE, SondeAudit); sonde finds it through the registry
/// (`CheckKinds`), never by a switch.
///
/// A kind in another module conforms here and to `RunnableKind` (SondeRun), its spec to
/// `CheckSpec` (`typealias Kind`), its engine to `CheckRunner`, and it is listed once in
/// `CheckKinds.sonde` (SondeCLI).
public protocol CheckKind: SendableMetatype {
    associatedtype Spec: CheckSpec

    /// The kind as a suite writes it (`kind: probe`), as reports and the journal carry it
    /// (`checks[].kind`, `check.begin`): unique among the kinds, `[a-z0-9-]`.
    static var name: String { get }

    /// Whether `threshold` judges what a check of this kind measures. A threshold in a suite's
    /// `defaults` applies to the checks whose kind judges it; in a check's own list, one its kind
    /// does not judge is an error (`metricsHint` says why).
    static func judges(_ threshold: Threshold) -> Bool

    /// What a check of this kind can be judged by, in words for messages.
    static var metricsHint: String { get }

    /// The threshold metrics the kind declares itself (`sse.gap.p95`), beside SondeCore's catalogue:
    /// its runner records their values in its report section's items (`metrics`,
    /// `ReportSection.declaredValues`). None unless the kind says.
    static var metrics: [DeclaredMetric] { get }

    /// How the kind's report section (`ReportSection`) shows in the HTML report and the Prometheus
    /// file; nil for a kind without a section of its own.
    static var sectionRenderer: (any ReportSectionRenderer)? { get }

    /// `sonde serve`'s bound on one run of the check without `run-timeout:` (s).
    static func defaultRunTimeout(for spec: Spec) -> Double
}

extension CheckKind {
    public static var metrics: [DeclaredMetric] { [] }

    public static var sectionRenderer: (any ReportSectionRenderer)? { nil }

    /// Ten minutes: what a check takes unless its kind knows better (a soak's duration).
    public static func defaultRunTimeout(for spec: Spec) -> Double { 600 }

    /// The kind's own keys, in `visitKeys` order (its extensions' too: `CheckKinds.keyTable(of:)`).
    public static var keyTable: [SpecKey] { Spec.keyTable }

    /// The kind's own key names, in the order `--print-suite` writes them (`CheckKinds.keys(of:)`
    /// with its extensions').
    public static var keys: [String] { Spec.keys }

    /// The keys every check of this kind must give (`visitRequired`: `url`, `urls`).
    public static var requiredKeys: [String] { Spec.requiredKeys }
}
