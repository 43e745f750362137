import SondeCore
import SondeReport

/// The registry of check kinds: the one list suites (`SuiteLoader`), serve's config, the suite
/// JSON Schema (`SuiteSchema`) and report checks find kinds in. It is a plain value, built once
/// from a static list and passed where kinds are looked up: SondeRun cannot name the kinds of the
/// modules that depend on it, so the list lives where every kind is visible, `CheckKinds.sonde`
/// (SondeCLI). No global state: tests build their own.
///
/// Invariant: names are unique (a later kind of a name already listed is left out) and in the
/// order given: messages, `defaults` and the schema list kinds in that order.
public struct CheckKinds: Sendable {
    /// The kinds, in order.
    public let all: [any CheckKind.Type]

    /// The bounds of one run of a check in `sonde serve` (`run-timeout:`, seconds): a second to a
    /// day. Every kind's `defaultRunTimeout` stays within them.
    public static let runTimeoutRange = 1.0...86_400.0

    public init(_ kinds: [any CheckKind.Type]) {
        var seen = Set<String>()
        all = kinds.filter { seen.insert($0.name).inserted }
    }

    /// The kind a suite calls `name`; nil for none.
    public func named(_ name: String) -> (any CheckKind.Type)? {
        all.first { $0.name == name }
    }

    /// Every kind's declared threshold metrics (`CheckKind.metrics`), in the kinds' order: what
    /// thresholds outside a check (`--threshold`, `--config`, a suite's `defaults`) may name.
    public var declaredMetrics: DeclaredMetrics { .listed(all.flatMap { $0.metrics }) }

    /// The kinds' report section renderers (`CheckKind.sectionRenderer`), for the run's settings.
    public var sectionRenderers: ReportSectionRenderers { ReportSectionRenderers(all.compactMap { $0.sectionRenderer }) }

    /// Every kind's name, in order.
    public var names: [String] { all.map { $0.name } }

    /// The keys `defaults` may hold: every kind's keys, each once, in the kinds' order.
    public var defaultsKeys: [String] {
        all.flatMap { $0.keys }.reduce(into: []) { keys, key in
            if !keys.contains(key) { keys.append(key) }
        }
    }

    /// Every key of every kind and its type, from the kinds' key tables (`CheckSpec.visitKeys`);
    /// a key several kinds have means one type (a test checks it): the first kind's is kept.
    public var valueTypes: [String: SuiteValueType] {
        var table: [String: SuiteValueType] = [:]
        for key in all.flatMap({ $0.keyTable }) where table[key.name] == nil { table[key.name] = key.type }
        return table
    }
}
