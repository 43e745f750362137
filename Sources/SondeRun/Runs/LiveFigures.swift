import Synchronization
import SondeCore
import SondeSuite

/// The figures a check's plain status lines show (`StatusLines`), kept while it works: what is
/// done and failed, the bytes of the transfer under way, a latency distribution, what it is doing.
/// Each runner fills the ones that describe its work.
///
/// Threading: written by the engine's thread (or NIO's), read by the status lines' task; every
/// access takes the lock.
public final class LiveFigures: Sendable {
    public struct Values: Sendable {
        /// Units of work ended (tasks, trials, URLs).
        public var done = 0
        /// Of those, the ones that failed.
        public var failed = 0
        /// Bytes moved by the transfer under way (resume), or by every task so far (probe).
        public var bytes: Int64 = 0
        /// The transfer's whole length when it is known (bytes).
        public var length: Int64?
        /// The transfer under way started at this instant (`monotonicMicroseconds`).
        public var transferStartedMicros: Int64?
        /// The tasks' total times (ms).
        public var latency = LatencyDistribution(precision: .coarse)
        /// What is under way ("reference download", "https://…").
        public var doing: String?
    }

    private let state = Mutex(Values())

    public init() {}

    public func update(_ change: (inout Values) -> Void) { state.withLock { change(&$0) } }

    public func read<T>(_ body: (Values) -> T) -> T { state.withLock { body($0) } }
}
