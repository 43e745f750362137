import Foundation

/// Threads of its own for blocking work, off Swift's cooperative pool: the one thread-pool type of
/// sonde. Its users: serve's probe threads (libcurl and TLS handshakes, `elastic`), serve's regexp
/// lane (RE2 matches bounded by a deadline, `fixed`), the embedded target's task executor
/// (`fixed`, a thread per core), and the audit's parallel probes (`ProbePool`, `elastic`).
///
/// - `fixed(n)`: `n` threads (at least 1), started at `init`, living as long as the pool; a job
///   waits in the queue while all of them are busy (at most `n` jobs use the CPU at once).
/// - `elastic(keepIdle:)`: a job never waits for another: it goes to an idle thread, or a new thread
///   is started for it; at most `keepIdle` threads wait for work, one more idle thread ends.
///   Invariant (under the lock): `idle >= jobs.count` (a queued job always has a thread that takes it).
///
/// Jobs run in the order queued (FIFO), any of them on any of the pool's threads, each thread named
/// `name` (elastic) or `name-INDEX` (fixed) where Linux tools show it (`Thread.startNamed`).
///
/// Threading: `submit` and `run` from any thread or task.
public final class WorkerPool: @unchecked Sendable {
    public enum Sizing: Sendable, Equatable {
        case fixed(Int)
        case elastic(keepIdle: Int)
    }

    private let name: String
    private let sizing: Sizing
    private let stackSize: Int?
    private let condition = NSCondition()
    /// Guarded by `condition`: the queue is `jobs[head...]` (the slots before `head` are dropped
    /// in bulk once they are half the array, so taking a job is O(1)).
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    /// Guarded by `condition`: threads waiting for a job (elastic only).
    private var idle = 0

    /// - Parameter stackSize: bytes per thread, or nil for Foundation's default.
    public init(name: String, sizing: Sizing, stackSize: Int? = nil) {
        self.name = name
        self.stackSize = stackSize
        switch sizing {
        case .fixed(let count):
            self.sizing = .fixed(max(1, count))
            for index in 0..<max(1, count) {
                Thread.startNamed("\(name)-\(index)", stackSize: stackSize) { [self] in work() }
            }
        case .elastic(let keepIdle):
            self.sizing = .elastic(keepIdle: max(0, keepIdle))
        }
    }

    /// Queues `job` (elastic: for an idle thread, or a new thread started for it).
    public func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        var startThread = false
        if case .elastic = sizing { startThread = idle < jobs.count - head }
        if !startThread { condition.signal() }
        condition.unlock()
        if startThread { Thread.startNamed(name, stackSize: stackSize) { [self] in work() } }
    }

    /// Runs `body` on one of the pool's threads and returns its result.
    ///
    /// `body` need not be `Sendable`: it is called once, on the pool's thread, while the caller waits.
    public func run<T>(_ body: @escaping () -> T) async -> T {
        let handoff = BodyHandoff(body: body)
        return await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: handoff.body()) }
        }
    }

    private func work() {
        condition.lock()
        while true {
            while head == jobs.count {
                if case .elastic(let keepIdle) = sizing {
                    if idle >= keepIdle {
                        condition.unlock()
                        return
                    }
                    idle += 1
                    condition.wait()
                    idle -= 1
                } else {
                    condition.wait()
                }
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
