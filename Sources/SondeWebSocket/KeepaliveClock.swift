import NIOCore
import Synchronization

/// Drives the keepalive of the soak sessions on one event loop that share a ping interval and a
/// pong timeout, from a single timer: each tick sends the pings that are due and notices the
/// pongs that are overdue. A timer per ping (and per pong timeout) made a loop with thousands of
/// connections wake a thousand times a second and spend most of its time in its timer heap and
/// in context switches.
///
/// Every session of a clock has the same interval and timeout, so deadlines are queued in the
/// order they fall due (two FIFO queues): a tick touches only what is due, and the next tick is
/// set for the earliest deadline, but never sooner than `minimumSpacing` after this one. So one
/// connection wakes the loop only when it has something to do, and ten thousand send their
/// pings a few at a time (bunching them all into a coarse tick would queue them at the server
/// and inflate the RTTs measured).
/// Precision: a ping goes out, and a missing pong is noticed, at most `minimumSpacing` late;
/// RTTs are measured from the actual send. Threading: everything runs on `loop`.
///
/// The clock also holds its loop's source of masking keys for the frames its sessions send.
final class KeepaliveClock {
    private let loop: EventLoop
    /// Masking keys for every frame this clock's sessions send (one source per loop).
    var maskingKeys = MaskingKeySource()
    private static let minimumSpacing: UInt64 = 10_000_000
    private let intervalNanos: UInt64
    private let timeoutNanos: UInt64
    private var pingsDue = CircularBuffer<(due: UInt64, session: SoakSessionHandler)>()
    private var pongsDue = CircularBuffer<(due: UInt64, session: SoakSessionHandler, sequence: UInt64)>()
    /// When the pending tick fires (monotonic ns), nil when none is pending.
    private var scheduledAt: UInt64?
    /// The pending tick, cancelled when an earlier deadline supersedes it (NIO's timer heap
    /// holds only a few tasks once the per-connection timers are gone, so cancelling is cheap).
    private var pending: NIOScheduledCallback?
    /// What NIO calls when the tick is due: one handler for every tick (a scheduled callback
    /// costs no promise and no closure per tick, as `scheduleTask` does).
    private lazy var tick = Tick(clock: self)

    private final class Tick: NIOScheduledCallbackHandler, @unchecked Sendable {
        /// Only touched on the clock's loop, where NIO calls the handler.
        let clock: KeepaliveClock
        init(clock: KeepaliveClock) { self.clock = clock }
        func handleScheduledCallback(eventLoop: some EventLoop) { clock.ticked() }
    }
    /// The clock is sending pings and noticing missed pongs (`fire`), which sets the next tick.
    private var firing = false

    private init(loop: EventLoop, pingIntervalS: Double, pongTimeoutS: Double) {
        self.loop = loop
        intervalNanos = UInt64(max(0, pingIntervalS) * 1e9)
        timeoutNanos = UInt64(pongTimeoutS * 1e9)
    }

    private struct Key: Hashable {
        var loop: ObjectIdentifier
        var interval: Double
        var timeout: Double
    }
    /// Every loop's clocks, each bound to its loop (`NIOLoopBound` checks that it is used there).
    private static let clocks = Mutex([Key: NIOLoopBound<KeepaliveClock>]())

    /// The clock of `loop` for sessions with this ping interval (0: none) and pong timeout (s).
    /// Call on `loop`.
    static func on(_ loop: EventLoop, pingIntervalS: Double, pongTimeoutS: Double) -> KeepaliveClock {
        let key = Key(loop: ObjectIdentifier(loop), interval: pingIntervalS, timeout: pongTimeoutS)
        let bound = clocks.withLock { clocks in
            if let clock = clocks[key] { return clock }
            let clock = NIOLoopBound(KeepaliveClock(loop: loop, pingIntervalS: pingIntervalS, pongTimeoutS: pongTimeoutS), eventLoop: loop)
            clocks[key] = clock
            return clock
        }
        return bound.value
    }

    /// Starts pinging `session` an interval from now (if this clock pings at all).
    func add(_ session: SoakSessionHandler) {
        guard intervalNanos > 0 else { return }
        let due = monotonicNanos() + intervalNanos
        pingsDue.append((due, session))
        wake(by: due)
    }

    /// Watches for the pong of a ping `session` has just sent.
    func expectPong(_ session: SoakSessionHandler, sequence: UInt64, sentAt: UInt64) {
        pongsDue.append((sentAt + timeoutNanos, session, sequence))
        wake(by: sentAt + timeoutNanos)
    }

    /// Makes sure a tick comes by `due` (or `minimumSpacing` from now, if later). Nothing to do
    /// while the clock fires: it sets the next tick for the earliest deadline when it is done
    /// (a tick set here for each ping's pong deadline was superseded at once but stayed in
    /// NIO's timer heap for the pong timeout: a thousand dead timers per loop at 10,000
    /// connections, and heap pops 5 % of the soak's CPU samples).
    private func wake(by due: UInt64) {
        if firing { return }
        if let scheduledAt, scheduledAt <= due { return }
        schedule(at: max(due, monotonicNanos() + Self.minimumSpacing))
    }

    private func schedule(at time: UInt64) {
        pending?.cancel()
        scheduledAt = time
        // Fails only when the loop is shutting down (and its soak with it).
        pending = try? loop.scheduleCallback(at: NIODeadline.uptimeNanoseconds(time), handler: tick)
    }

    private func ticked() {
        pending = nil
        scheduledAt = nil
        fire()
    }

    private func fire() {
        firing = true
        defer { firing = false }
        let now = monotonicNanos()
        while let first = pongsDue.first, first.due <= now {
            pongsDue.removeFirst()
            first.session.pongTimedOut(first.sequence)
        }
        while let first = pingsDue.first, first.due <= now {
            pingsDue.removeFirst()
            guard !first.session.hasEnded else { continue }
            first.session.sendPing()
            // The next one an interval after this one was due (no drift), never in the past.
            pingsDue.append((max(first.due + intervalNanos, now + intervalNanos / 2), first.session))
        }
        let earliest = min(pingsDue.first?.due ?? .max, pongsDue.first?.due ?? .max)
        if earliest != .max { schedule(at: max(earliest, now + Self.minimumSpacing)) }
    }
}
