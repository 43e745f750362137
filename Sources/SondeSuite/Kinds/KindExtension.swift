import SondeCore
import SondeReport

/// Keys and behaviour added to an existing check kind (its `Base` spec: `ProbeSpec`, `SoakSpec`)
/// by another module, which depends on SondeSuite. An extension is a value holding its keys' values; the base spec carries one of
/// each registered extension (`SpecExtensions`), visits their keys where its own `visitKeys` says,
/// adds their `problems(in:)` to its own and lets them change its engine's options
/// (`apply(to:of:redactor:)`). It is listed once in the registry (`CheckKinds.sonde`'s
/// `extensions`), from which suites, the suite schema, `--print-suite` and the decoders know its
/// keys: SondeSuite never names it. docs/architecture.md, "Adding a kind extension".
public protocol KindExtension<Base>: Equatable, Sendable {
    /// The spec of the kind this extends.
    associatedtype Base: ExtensibleSpec

    /// The extension's name (`[a-z0-9-]`): unique among a registry's extensions.
    static var name: String { get }

    /// The extension with none of its keys given: what decoding fills in, and what the key table is read from.
    static var unfilled: Self { get }

    /// Visits every key of the extension once, as `CheckSpec.visitKeys` does: its one declaration
    /// of its keys (`SpecKey`s of its own module).
    mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V)

    /// What keeps the check from running, as far as this extension's keys go (with the base
    /// spec's keys they conflict with); empty when nothing of it is given. Reads no network.
    func problems(in spec: Base) -> [SpecProblem]

    /// The extension with its path-valued keys resolved against a suite file's `folder`.
    func resolvingPaths(against folder: String) -> Self

    /// What the extension makes of the engine's options (call after `problems(in:)` came back
    /// empty); nothing when none of its keys is given. `redactor` is the run's.
    func apply(to options: inout Base.EngineOptions, of spec: Base, redactor: Redactor) throws(SpecProblem)

    /// The threshold metrics the extension declares (as `CheckKind.metrics`); none unless it says.
    static var metrics: [DeclaredMetric] { get }

    /// How the extension's report section shows (as `CheckKind.sectionRenderer`); nil for none.
    static var sectionRenderer: (any ReportSectionRenderer)? { get }

    /// The extension's part of its kind's report, how it is summed and judged and how it shows (a
    /// soak's: `SoakPartRenderer`, a `SoakPart`); nil for none.
    static var soakPartRenderer: (any SoakPartRenderer)? { get }
}

extension KindExtension {
    public static var metrics: [DeclaredMetric] { [] }

    public static var sectionRenderer: (any ReportSectionRenderer)? { nil }

    public static var soakPartRenderer: (any SoakPartRenderer)? { nil }

    public func resolvingPaths(against folder: String) -> Self { self }

    /// Whether any of its keys has a value.
    public var isGiven: Bool {
        var copy = self
        var check = SpecGivenCheck()
        copy.visitKeys(&check)
        return check.isGiven
    }

    /// Its keys, in `visitKeys` order.
    public static var keyTable: [SpecKey] {
        var value = unfilled
        var collector = SpecKeyCollector()
        value.visitKeys(&collector)
        return collector.keys
    }

    /// Whether `other` is this extension with the same values.
    func isEqual(_ other: any KindExtension<Base>) -> Bool {
        (other as? Self) == self
    }
}
