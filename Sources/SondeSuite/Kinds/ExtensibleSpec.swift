/// A check spec that takes kind extensions (`KindExtension`): it holds them in `extensions`,
/// visits their keys in its `visitKeys`, adds their problems to its `problems()`, resolves their
/// paths in `resolvingPaths(against:)` and lets them change its `EngineOptions` when it makes them.
public protocol ExtensibleSpec: CheckSpec {
    /// What the kind's engine runs with (`ProbeOptions`, `SoakOptions`), what an extension changes.
    associatedtype EngineOptions

    /// The extensions' values (each registered one once the spec was decoded or attached).
    var extensions: SpecExtensions<Self> { get set }
}

extension ExtensibleSpec {
    /// Adds each of `types` that extends this kind, with none of its keys given (those present stay).
    public mutating func attach(_ types: [any KindExtension.Type]) {
        extensions.attach(types)
    }
}
