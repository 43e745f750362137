import Foundation
import SondeCore
import SondeReport

/// The registry of check kinds: the one list suites (`SuiteLoader`), serve's config, the suite
/// JSON Schema (`SuiteSchema`) and report checks find kinds in. It is a plain value, built once
/// from a static list and passed where kinds are looked up: SondeSuite cannot name the kinds of the
/// modules that depend on it, so the list lives where every kind is visible, `CheckKinds.sonde`
/// (SondeCLI). No global state: tests build their own.
///
/// Beside the kinds, the kind extensions (`KindExtension`: keys and behaviour another module adds
/// to a kind from another module): a kind's key table here is its own keys and its
/// extensions', and every spec this registry decodes carries its kind's extensions.
///
/// Invariant: names are unique (a later kind or extension of a name already listed is left out)
/// and in the order given: messages, `defaults` and the schema list kinds in that order.
public struct CheckKinds: Sendable {
    /// The kinds, in order.
    public let all: [any CheckKind.Type]
    /// The kind extensions, in order.
    public let extensions: [any KindExtension.Type]

    /// The bounds of one run of a check in `sonde serve` (`run-timeout:`, seconds): a second to a
    /// day. Every kind's `defaultRunTimeout` stays within them.
    public static let runTimeoutRange = 1.0...86_400.0

    public init(_ kinds: [any CheckKind.Type], extensions: [any KindExtension.Type] = []) {
        var seen = Set<String>()
        all = kinds.filter { seen.insert($0.name).inserted }
        var seenExtensions = Set<String>()
        self.extensions = extensions.filter { seenExtensions.insert($0.name).inserted }
    }

    /// A spec of `kind` with its required keys empty and this registry's extensions of it
    /// attached, unfilled: what the key tables are read from.
    public func unfilled(_ kind: any CheckKind.Type) -> any CheckSpec {
        func make<K: CheckKind>(_ kind: K.Type) -> any CheckSpec {
            var spec = K.Spec.unfilled
            spec.attach(extensions)
            return spec
        }
        return make(kind)
    }

    /// Every key of `kind`, its extensions' among them, in `visitKeys` order.
    public func keyTable(of kind: any CheckKind.Type) -> [SpecKey] { unfilled(kind).visitedKeys }

    /// Every key name of `kind`, its extensions' among them, in the order `--print-suite` writes them.
    public func keys(of kind: any CheckKind.Type) -> [String] { keyTable(of: kind).map(\.name) }

    /// What a decoder's `userInfo` holds for the specs it decodes to carry this registry's
    /// extensions (and to read their keys): `CheckSpec.init(from:)`.
    public var decodingUserInfo: [CodingUserInfoKey: any Sendable] { KindExtensionList(extensions).userInfo }

    /// The kind a suite calls `name`; nil for none.
    public func named(_ name: String) -> (any CheckKind.Type)? {
        all.first { $0.name == name }
    }

    /// Every kind's declared threshold metrics (`CheckKind.metrics`), in the kinds' order: what
    /// thresholds outside a check (`--threshold`, `--config`, a suite's `defaults`) may name.
    /// The extensions' follow the kinds'.
    public var declaredMetrics: DeclaredMetrics { .listed(all.flatMap { $0.metrics } + extensions.flatMap { $0.metrics }) }

    /// The kinds' and then the extensions' report section renderers (`CheckKind.sectionRenderer`,
    /// `KindExtension.sectionRenderer`) and the extensions' soak part renderers
    /// (`KindExtension.soakPartRenderer`), for the run's settings.
    public var sectionRenderers: ReportSectionRenderers {
        ReportSectionRenderers(all.compactMap { $0.sectionRenderer } + extensions.compactMap { $0.sectionRenderer },
                               soakParts: extensions.compactMap { $0.soakPartRenderer })
    }

    /// The extensions' parts of a soak (`KindExtension.soakPartRenderer`), in their order: what
    /// builds and shows them (`SoakReportBuilder`, the renderers) and the report schema take.
    public var soakParts: [any SoakPartRenderer] { extensions.compactMap { $0.soakPartRenderer } }

    /// Every kind's name, in order.
    public var names: [String] { all.map { $0.name } }

    /// The keys `defaults` may hold: every kind's keys, each once, in the kinds' order.
    public var defaultsKeys: [String] {
        all.flatMap { keys(of: $0) }.reduce(into: []) { keys, key in
            if !keys.contains(key) { keys.append(key) }
        }
    }

    /// Every key of every kind and its type, from the kinds' key tables (`CheckSpec.visitKeys`);
    /// a key several kinds have means one type (a test checks it): the first kind's is kept.
    public var valueTypes: [String: SuiteValueType] {
        var table: [String: SuiteValueType] = [:]
        for key in all.flatMap({ keyTable(of: $0) }) where table[key.name] == nil { table[key.name] = key.type }
        return table
    }
}
