import SondeCore

/// The kind extensions' values a spec of `Base` carries (`ExtensibleSpec.extensions`), at most one
/// of each extension, in the order they were added (the registry's, for a decoded spec).
///
/// Invariant: equality looks only at the extensions with a value given (`KindExtension.isGiven`),
/// so a spec made on the command line equals the same check read from a suite, whichever
/// extensions each happens to carry unfilled.
public struct SpecExtensions<Base: ExtensibleSpec>: Equatable, Sendable {
    private var values: [any KindExtension<Base>] = []

    public init() {}

    /// Extension `type`'s values: those carried, or its `unfilled` (setting one adds it).
    public subscript<E: KindExtension>(_ type: E.Type) -> E where E.Base == Base {
        get { values.lazy.compactMap { $0 as? E }.first ?? E.unfilled }
        set {
            if let index = values.firstIndex(where: { $0 is E }) { values[index] = newValue } else { values.append(newValue) }
        }
    }

    /// Adds each of `types` that extends `Base` and is not carried yet, unfilled.
    public mutating func attach(_ types: [any KindExtension.Type]) {
        for case let type as any KindExtension<Base>.Type in types where !values.contains(where: { Swift.type(of: $0).name == type.name }) {
            values.append(type.unfilled)
        }
    }

    /// Visits each extension's keys (`KindExtension.visitKeys`), in order.
    public mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
        for index in values.indices { values[index].visitKeys(&v) }
    }

    /// Every extension's problems with `spec`.
    public func problems(in spec: Base) -> [SpecProblem] {
        values.flatMap { $0.problems(in: spec) }
    }

    /// Every extension with its paths resolved against `folder`.
    public func resolvingPaths(against folder: String) -> SpecExtensions {
        var resolved = self
        resolved.values = values.map { $0.resolvingPaths(against: folder) }
        return resolved
    }

    /// Every extension's change to the engine's options, in order.
    public func apply(to options: inout Base.EngineOptions, of spec: Base, redactor: Redactor) throws(SpecProblem) {
        for value in values { try value.apply(to: &options, of: spec, redactor: redactor) }
    }

    public static func == (lhs: SpecExtensions, rhs: SpecExtensions) -> Bool {
        let given = lhs.values.filter { $0.isGiven }
        let other = rhs.values.filter { $0.isGiven }
        return given.count == other.count && given.allSatisfy { value in other.contains { value.isEqual($0) } }
    }
}
