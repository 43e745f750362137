import CSignalFlags
import SondeHTTP

/// What ends a run early: SIGINT or SIGTERM for every run of the process, or this switch for one
/// run (a scheduled check past its time limit). Engines poll `shouldEnd`; transfers watch `run`
/// from libcurl's progress callback. Pulled once, never reset. Threading: any thread.
public final class StopSwitch: Sendable {
    /// This run's own stop, as libcurl's progress callback reads it.
    public let run = RunStop()

    public init() {}

    /// Whether SIGINT or SIGTERM arrived, or the switch was pulled.
    public var shouldEnd: Bool { sonde_received_signal() != 0 || run.isPulled }

    /// Whether this switch (not a signal) was pulled.
    public var isPulled: Bool { run.isPulled }

    public func pull() { run.pull() }
}
