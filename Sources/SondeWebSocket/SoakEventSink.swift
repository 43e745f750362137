import NIOCore
import SondeCore

/// Where the soak engine reports, as things happen. Called from NIO event-loop threads,
/// concurrently: implementations must be thread-safe and quick (buffer, do not block).
public protocol SoakEventSink: AnyObject, Sendable {
    /// An attempt opened, failed, or ended (the same attempt is reported again as it changes;
    /// the last report is its final state).
    func attempt(_ attempt: SoakAttempt)
    /// A pong arrived `rttMicros` after its ping; `atMicros` since the soak started.
    func ping(connection: Int, attempt: Int, atMicros: Int64, rttMicros: Int64)
    /// A ping's pong did not come within the pong timeout.
    func missedPing(connection: Int, attempt: Int, atMicros: Int64)
    /// A message's echo came back intact after `rttMicros`.
    func echo(rttMicros: Int64)
    /// A subprotocol's event came `micros` after the previous one (`SoakSubprotocolAction.eventGap`).
    func eventGap(micros: Int64)
}

extension SoakEventSink {
    /// Sinks that keep no subscription figures (the idle-timeout probes) drop the gaps.
    public func eventGap(micros: Int64) {}
}

/// The soak's time base: one monotonic origin and the wall-clock time it corresponds to, so
/// every timestamp of a soak is consistent even if the wall clock steps.
public struct SoakClock: Sendable {
    public let startNanos: UInt64
    public let startedAt: Timestamp

    public init() {
        startNanos = NIODeadline.now().uptimeNanoseconds
        startedAt = Timestamp.now()
    }

    /// Microseconds since the soak started.
    public func micros(at nanos: UInt64 = NIODeadline.now().uptimeNanoseconds) -> Int64 {
        Int64(nanos &- startNanos) / 1000
    }

    /// The wall-clock time of a monotonic instant.
    public func timestamp(at nanos: UInt64 = NIODeadline.now().uptimeNanoseconds) -> Timestamp {
        startedAt.adding(microseconds: micros(at: nanos))
    }
}
