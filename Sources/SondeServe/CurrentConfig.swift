import SondeSuite
import Synchronization

/// The config in force, replaced whole by a reload; read by every request.
/// Threading: any thread (a mutex).
public final class CurrentConfig: Sendable {
    private let config: Mutex<ServeConfig>

    public init(_ config: ServeConfig) { self.config = Mutex(config) }

    public var value: ServeConfig { config.withLock { $0 } }

    public func replace(with config: ServeConfig) { self.config.withLock { $0 = config } }
}
