import SondeCore
import SondeSuite

/// A kind of check (SondeSuite's `CheckKind`: its spec, keys and thresholds) that sonde can run:
/// how one validated spec becomes its engine. Every kind sonde registers conforms, checked by the
/// compiler where the registry is built (`CheckKinds(running:extensions:)`).
public protocol RunnableKind: CheckKind {
    /// The engine of one validated spec (`sonde run`, `sonde serve`): what `PlannedCheck` runs.
    /// Throws the spec's problem when it cannot be set up (a file that went away).
    static func runner(for spec: Spec, settings: RunSettings) throws(SpecProblem) -> any CheckRunner
}

extension CheckKinds {
    /// A registry of kinds that run (the compiler refuses one without a runner) and extensions.
    public init(running kinds: [any RunnableKind.Type], extensions: [any KindExtension.Type] = []) {
        self.init(kinds.map { $0 as any CheckKind.Type }, extensions: extensions)
    }
}

extension CheckSpec {
    /// The engine of this spec (`RunnableKind.runner(for:settings:)`); a problem naming the kind
    /// when it has no runner (a registry built from spec-only kinds).
    public func runner(settings: RunSettings) throws(SpecProblem) -> any CheckRunner {
        guard let kind = Kind.self as? any RunnableKind.Type else {
            throw SpecProblem(key: "kind", "kind \(Kind.name) cannot run here")
        }
        return try runner(of: kind, settings: settings)
    }

    private func runner<K: RunnableKind>(of kind: K.Type, settings: RunSettings) throws(SpecProblem) -> any CheckRunner {
        guard let spec = self as? K.Spec else { throw SpecProblem(key: "kind", "kind \(K.name) cannot run a \(Self.self)") }
        return try K.runner(for: spec, settings: settings)
    }
}
