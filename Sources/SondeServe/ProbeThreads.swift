import Foundation
import SondeCore
import SondeHTTP

/// The threads `/probe` runs its blocking work on (libcurl's easy and multi handles, the TLS
/// handshake), kept between probes: a new thread per probe would also make OpenSSL set up its
/// per-thread random generators again (about 4 % of a probe's CPU over https, measured with perf).
/// Each thread also keeps a libcurl multi handle (`ProbeThreadContext`), which keeps the CA store
/// it parsed: loading the CA file for every https probe was about 15 % of a probe's CPU (issue
/// 32). Only those are kept; every probe still makes its own connection and a full TLS handshake
/// (`BlackboxProber`: no connection reuse, no TLS session resumption).
///
/// A job never waits for another: it goes to an idle thread, or a new thread is started for it.
/// At most `keepIdle` threads wait for work; one more idle thread ends.
///
/// Threading: any thread; jobs run on the pool's threads.
final class ProbeThreads: @unchecked Sendable {
    static let shared = ProbeThreads(keepIdle: 8)

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [(ProbeThreadContext) -> Void] = []
    /// Threads waiting for a job; invariant (under the lock): a queued job always has an idle thread
    /// that will take it (`idle >= jobs.count`), because `submit` starts a thread otherwise.
    private var idle = 0
    private let keepIdle: Int

    init(keepIdle: Int) { self.keepIdle = max(0, keepIdle) }

    /// Runs `body` on one of the pool's threads, with that thread's context, and returns its result.
    func run<T: Sendable>(_ body: @escaping (ProbeThreadContext) -> T) async -> T {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: body($0)) }
        }
    }

    /// Queues `job` for an idle thread, or starts a thread for it.
    func submit(_ job: @escaping (ProbeThreadContext) -> Void) {
        condition.lock()
        jobs.append(job)
        let startThread = idle < jobs.count
        if !startThread { condition.signal() }
        condition.unlock()
        if startThread { _ = Thread.startNamed("sonde-probe", stackSize: 8 << 20) { self.work() } }
    }

    private func work() {
        let context = ProbeThreadContext()
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
            job(context)
            condition.lock()
        }
    }
}

/// What a probe thread keeps between the probes it runs.
///
/// Threading: confined to its thread.
final class ProbeThreadContext {
    /// The thread's multi handle, made on first use; nil when libcurl could not make one (the
    /// probe then makes its own).
    lazy var multi: MultiHandle? = try? MultiHandle(multiplex: true)
}
