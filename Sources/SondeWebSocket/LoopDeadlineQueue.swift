import NIOCore
import Synchronization

/// Runs callbacks a fixed delay after they were added, on one event loop, from a single NIO
/// timer: the queue of the soak's per-connection deadlines that all have the same delay (the
/// handshake timeout, the journal snapshot interval). A NIO timer each kept ten thousand tasks
/// in the loop's timer heap for a 10,000-connection soak, and every timer the loop popped (each
/// keepalive tick) moved and retained about fourteen of them: more user CPU than the pings'
/// own work (perf, docs/measurements.md section 6).
///
/// Every entry of a queue has the same delay, so entries fall due in the order they were added
/// (FIFO): adding and running are O(1), and NIO's heap holds one task for the whole queue.
/// Entries cannot be cancelled: a callback checks, when it runs, whether it still applies.
/// Precision: a callback runs at most `minimumSpacing` (10 ms) after it was due; due entries
/// are run together. Threading: everything runs on `loop`.
final class LoopDeadlineQueue {
    private let loop: EventLoop
    private let delayNanos: UInt64
    private static let minimumSpacing: UInt64 = 10_000_000
    private var entries = CircularBuffer<(due: UInt64, run: () -> Void)>()
    /// A tick is pending, or the queue is running its due entries (which may add more).
    private var busy = false

    private init(loop: EventLoop, delayNanos: UInt64) {
        self.loop = loop
        self.delayNanos = delayNanos
    }

    private struct Key: Hashable {
        var loop: ObjectIdentifier
        var delayNanos: UInt64
    }
    /// Every loop's queues, each bound to its loop (`NIOLoopBound` checks that it is used there).
    private static let queues = Mutex([Key: NIOLoopBound<LoopDeadlineQueue>]())

    /// The queue of `loop` whose entries run `delay` after they are added (a negative delay
    /// counts as 0). Call on `loop`.
    static func on(_ loop: EventLoop, delay: TimeAmount) -> LoopDeadlineQueue {
        let nanos = UInt64(max(0, delay.nanoseconds))
        let key = Key(loop: ObjectIdentifier(loop), delayNanos: nanos)
        let bound = queues.withLock { queues in
            if let queue = queues[key] { return queue }
            let queue = NIOLoopBound(LoopDeadlineQueue(loop: loop, delayNanos: nanos), eventLoop: loop)
            queues[key] = queue
            return queue
        }
        return bound.value
    }

    /// Runs `body` on the loop once the queue's delay has passed from now.
    func add(_ body: @escaping () -> Void) {
        let due = monotonicNanos() &+ delayNanos
        entries.append((due, body))
        if !busy { schedule(at: due) }
    }

    private func schedule(at time: UInt64) {
        busy = true
        loop.scheduleTask(deadline: NIODeadline.uptimeNanoseconds(time)) { [self] in fire() }
    }

    private func fire() {
        let now = monotonicNanos()
        while let first = entries.first, first.due <= now {
            entries.removeFirst()
            first.run()
        }
        busy = false
        if let first = entries.first { schedule(at: max(first.due, now &+ Self.minimumSpacing)) }
    }
}
