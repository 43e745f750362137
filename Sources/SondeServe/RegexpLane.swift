import Foundation
import SondeCore
import SondeSuite

/// Where `/probe` matches its regular expressions (`GoRegexp`, RE2) against what a target sent
/// (a line, a record, a header, a body), each match bounded by the probe's deadline.
///
/// RE2 is linear in the text, but one byte can cost it microseconds (a pattern whose DFA keeps
/// building states, or a large program run by its NFA: 1 to 12 µs a byte measured here), and a
/// match cannot be interrupted. So a match of more than `inlineBytes` runs on one of the lane's
/// own threads while the probe waits for it until its deadline: a probe ends on time whatever the
/// match costs, a match never holds Swift's cooperative pool (where `/-/healthy` runs), and at most
/// `threads` matches use the CPU at once. A match still queued when its deadline passes is dropped
/// unstarted; one that is running when its probe gave up finishes alone (bounded by the text's
/// size: a line is at most 64 KiB, a body `BlackboxModule.maxMatchedBodyBytes`).
///
/// Threading: any thread or task; jobs run on the lane's threads.
final class RegexpLane: @unchecked Sendable {
    static let shared = RegexpLane(threads: max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Texts up to this many bytes are matched on the caller's thread (at most a few ms).
    static let inlineBytes = 256

    /// The match did not end before the deadline.
    struct Overdue: Error {}

    private final class Job: Sendable {
        let deadline: Int64
        let work: @Sendable () -> Void
        init(deadline: Int64, work: @escaping @Sendable () -> Void) {
            self.deadline = deadline
            self.work = work
        }
    }

    private let threads: WorkerPool

    init(threads: Int) {
        self.threads = WorkerPool(name: "sonde-regexp", sizing: .fixed(threads))
    }

    /// Whether `text` has a match, decided before `deadline` (monotonic µs).
    func matches(_ regexp: GoRegexp, _ text: [UInt8], deadline: Int64) throws(Overdue) -> Bool {
        if text.count <= Self.inlineBytes { return regexp.matches(text) }
        return try run(deadline: deadline) { regexp.matches(text) }
    }

    /// The first match in `text` with its groups, found before `deadline` (monotonic µs).
    func firstMatch(_ regexp: GoRegexp, _ text: [UInt8], deadline: Int64) async throws(Overdue) -> GoRegexp.Match? {
        if text.count <= Self.inlineBytes { return regexp.firstMatch(in: text) }
        return try await run(deadline: deadline) { regexp.firstMatch(in: text) }
    }

    /// `work`'s result computed on a lane thread, waiting on the calling thread until `deadline`.
    func run<Value: Sendable>(deadline: Int64, _ work: @escaping @Sendable () -> Value) throws(Overdue) -> Value {
        let result = ResultSlot<Value>()
        submit(Job(deadline: deadline) { result.fill(work()) })
        guard let value = result.wait(until: deadline) else { throw Overdue() }
        return value
    }

    /// `work`'s result computed on a lane thread; the task waits until `deadline` at most.
    func run<Value: Sendable>(deadline: Int64, _ work: @escaping @Sendable () -> Value) async throws(Overdue) -> Value {
        let result = ResultSlot<Value>()
        let value: Value? = await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            result.onFill { continuation.resume(returning: $0) }
            submit(Job(deadline: deadline) { result.fill(work()) })
            let wait = max(0, deadline - monotonicMicroseconds())
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int(min(wait, Int64(Int32.max))))) { result.fill(nil) }
        }
        guard let value else { throw Overdue() }
        return value
    }

    /// Queues `job`; a job whose waiter has given up by the time a thread takes it is not started.
    private func submit(_ job: Job) {
        threads.submit {
            if monotonicMicroseconds() < job.deadline { job.work() }
        }
    }
}

/// One value handed from a lane thread to its waiter, filled once (later fills are ignored).
/// Threading: any thread (a condition guards it).
private final class ResultSlot<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value?
    private var filled = false
    private var callback: (@Sendable (Value?) -> Void)?

    /// Fills the slot (nil: given up) and wakes its waiter; only the first fill counts.
    func fill(_ newValue: Value?) {
        condition.lock()
        guard !filled else {
            condition.unlock()
            return
        }
        filled = true
        value = newValue
        let callback = self.callback
        self.callback = nil
        condition.broadcast()
        condition.unlock()
        callback?(newValue)
    }

    /// Calls `callback` once, with the first fill.
    func onFill(_ callback: @escaping @Sendable (Value?) -> Void) {
        condition.lock()
        self.callback = callback
        condition.unlock()
    }

    /// The value, or nil when `deadline` (monotonic µs) passed first.
    func wait(until deadline: Int64) -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while !filled {
            let left = deadline - monotonicMicroseconds()
            if left <= 0 {
                filled = true
                return nil
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(left) / 1e6))
        }
        return value
    }
}
