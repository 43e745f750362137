import Foundation
import SondeCore

/// The threads `/probe` runs its blocking work on (libcurl's easy and multi handles, the TLS
/// handshake), kept between probes: a new thread per probe would also make OpenSSL set up its
/// per-thread random generators again (about 4 % of a probe's CPU over https, measured with perf).
/// Only threads are kept; every probe still makes its own connection and TLS session.
///
/// A job never waits for another: it goes to an idle thread, or a new thread is started for it.
/// At most `keepIdle` threads wait for work; one more idle thread ends.
///
/// Threading: any thread; jobs run on the pool's threads.
final class ProbeThreads: @unchecked Sendable {
    static let shared = ProbeThreads(keepIdle: 8)

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [() -> Void] = []
    /// Threads waiting for a job; invariant (under the lock): a queued job always has an idle thread
    /// that will take it (`idle >= jobs.count`), because `submit` starts a thread otherwise.
    private var idle = 0
    private let keepIdle: Int

    init(keepIdle: Int) { self.keepIdle = max(0, keepIdle) }

    /// Runs `body` on one of the pool's threads and returns its result.
    func run<T>(_ body: @escaping () -> T) async -> T {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: body()) }
        }
    }

    /// Queues `job` for an idle thread, or starts a thread for it.
    func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        let startThread = idle < jobs.count
        if !startThread { condition.signal() }
        condition.unlock()
        if startThread { _ = Thread.startNamed("sonde-probe", stackSize: 8 << 20) { self.work() } }
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty {
                if idle >= keepIdle {
                    condition.unlock()
                    return
                }
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
