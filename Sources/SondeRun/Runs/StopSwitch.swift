import CSignalFlags
import Synchronization

/// What ends a run early: SIGINT or SIGTERM for every run of the process, or this switch for one
/// run (a scheduled check past its time limit). Engines poll `shouldEnd`. Pulled once, never reset.
/// Threading: any thread.
public final class StopSwitch: Sendable {
    private let pulled = Atomic<Bool>(false)

    public init() {}

    /// Whether SIGINT or SIGTERM arrived, or the switch was pulled.
    public var shouldEnd: Bool { sonde_received_signal() != 0 || pulled.load(ordering: .relaxed) }

    /// Whether this switch (not a signal) was pulled.
    public var isPulled: Bool { pulled.load(ordering: .relaxed) }

    public func pull() { pulled.store(true, ordering: .relaxed) }
}
