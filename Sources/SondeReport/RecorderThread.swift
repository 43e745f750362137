import Foundation
import SondeCore

/// Runs a `RunRecorder` on its own thread, so the engine's thread only hands finished tasks
/// over and goes back to driving libcurl (encoding a journal line and updating the histograms
/// cost about as much CPU as the transfer itself; see docs/performance.md).
///
/// Invariants: tasks are recorded in the order they were submitted; at most `capacity` tasks wait
/// (the engine blocks when the recorder falls that far behind, so memory stays bounded); the first
/// recording failure (e.g. disk full) is kept and thrown to the next `submit` and by `finish`.
/// The wrapped recorder is touched only by this thread until `finish` returns.
///
/// Priority: the thread runs at `SCHED_IDLE` where it can be raised again (`BackgroundPriority`),
/// so recording only uses CPU time that neither the engine nor the server under test wants: on a
/// saturated machine a normal-priority recorder preempted the engine mid-transfer and inflated
/// what it measured (docs/performance.md). It is raised to normal priority while the engine waits
/// on a full queue, while a queued task has waited longer than the journal's flush interval, and
/// for `finish`; it lowers itself again once it has caught up.
public final class RecorderThread: @unchecked Sendable {
    public let recorder: RunRecorder
    public let capacity: Int
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var pending: [ProbeTask] = []
    private var closed = false
    private var finished = false
    private var consumerWaiting = false
    private var producerWaiting = false
    private var failure: TaskError?
    /// The recorder's thread, once it runs; nil when it cannot be lowered to `SCHED_IDLE`.
    private var backgroundThread: pthread_t?
    /// Whether the recorder is raised to normal priority now.
    private var raised = false
    /// When the oldest task still queued was queued (monotonic µs), or nil when none is.
    private var oldestQueuedMicros: Int64?
    /// How long a queued task may wait before the recorder is raised (the journal's flush interval).
    static let longestWaitMicros: Int64 = 1_000_000

    /// Queued tasks that make the engine wake the recorder at once (never more than `capacity`).
    private let wakeBatch: Int
    /// Longest time (s) a queued task waits before the recorder looks on its own.
    static let pollInterval: TimeInterval = 0.1

    public init(recorder: RunRecorder, capacity: Int = 4096) {
        self.recorder = recorder
        self.capacity = max(1, capacity)
        wakeBatch = min(256, self.capacity)
        pending.reserveCapacity(self.capacity)
        Thread.startNamed("sonde-recorder") { [self] in consume() }
    }

    /// Queues one task; blocks while `capacity` tasks wait. Throws the recorder's first failure.
    public func submit(_ task: ProbeTask) throws(TaskError) {
        condition.lock()
        defer { condition.unlock() }
        while pending.count >= capacity && failure == nil {
            raiseRecorder()
            producerWaiting = true
            if consumerWaiting { condition.signal() }
            condition.wait()
        }
        if let failure { throw failure }
        if pending.isEmpty {
            oldestQueuedMicros = monotonicMicroseconds()
        } else if let since = oldestQueuedMicros, monotonicMicroseconds() - since > Self.longestWaitMicros {
            raiseRecorder()
        }
        pending.append(task)
        // Waking the recorder per task costs a futex call each; it takes a batch instead, and looks
        // at least every `pollInterval` on its own, so a slow probe's tasks still reach the journal.
        if consumerWaiting && pending.count >= wakeBatch { condition.signal() }
    }

    /// Whether recording has failed (the engine should stop early).
    public var hasFailed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return failure != nil
    }

    /// Records everything still queued, stops the thread and waits for it. Throws the first failure.
    public func finish() throws(TaskError) {
        condition.lock()
        closed = true
        raiseRecorder()
        condition.broadcast()
        while !finished { condition.wait() }
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
    }

    /// Raises the recorder to normal priority (call with `condition` locked).
    private func raiseRecorder() {
        guard !raised, let thread = backgroundThread else { return }
        BackgroundPriority.raise(thread)
        raised = true
        timesRaised += 1
    }

    /// How often the recorder was raised to normal priority (for tests).
    private(set) var timesRaised = 0

    /// Whether the recorder runs at `SCHED_IDLE` (lowered once it has started, when that is available).
    var runsInBackground: Bool {
        condition.lock()
        defer { condition.unlock() }
        return backgroundThread != nil
    }

    private func consume() {
        condition.lock()
        if !closed, BackgroundPriority.lower(pthread_self()) { backgroundThread = pthread_self() }
        condition.unlock()
        var batch: [ProbeTask] = []
        batch.reserveCapacity(capacity)
        while true {
            condition.lock()
            if raised && !closed && pending.count < wakeBatch, let thread = backgroundThread {
                // Caught up: back to using only the CPU time nobody else wants.
                BackgroundPriority.lower(thread)
                raised = false
            }
            while pending.count < wakeBatch && !closed {
                consumerWaiting = true
                if !condition.wait(until: Date(timeIntervalSinceNow: Self.pollInterval)) {
                    if !pending.isEmpty { break }
                    // Idle: keep the journal no more than its flush interval behind.
                    if failure == nil {
                        condition.unlock()
                        let flushFailure: TaskError?
                        do throws(TaskError) { try recorder.flushIfDue(); flushFailure = nil } catch { flushFailure = error }
                        condition.lock()
                        if let flushFailure, failure == nil { failure = flushFailure; condition.broadcast() }
                    }
                }
            }
            consumerWaiting = false
            if pending.isEmpty && closed {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            swap(&batch, &pending)
            oldestQueuedMicros = nil
            if producerWaiting {
                producerWaiting = false
                condition.broadcast()
            }
            let failedAlready = failure != nil
            condition.unlock()

            if !failedAlready {
                do throws(TaskError) {
                    for task in batch { try recorder.record(task) }
                } catch {
                    condition.lock()
                    self.failure = error
                    condition.broadcast()
                    condition.unlock()
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
