import Foundation
import SondeCore

/// The threads the embedded target's request handlers run on: a `TaskExecutor` of its own, so
/// that the target keeps answering while Swift's cooperative pool (one thread per core) is busy
/// or blocked by the process it is embedded in (`sonde demo`'s probes, a test process's many
/// tests). Hummingbird runs each connection as a child task of the server's task, and child
/// tasks inherit the executor preference the server's task is started with.
///
/// Threading: `threadCount` threads of a fixed `WorkerPool`, started at `init`, live as long as the
/// process (the target is a process-wide peer); jobs run in the order enqueued, any of them on any thread.
final class TargetExecutor: TaskExecutor, @unchecked Sendable {
    /// One executor for every target of the process, a thread per core (at least two, so that one
    /// slow handler never holds the rest): as many as the cooperative pool it replaces, so that
    /// `sonde target` as a benchmark peer keeps its throughput on larger machines.
    static let shared = TargetExecutor(threadCount: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let threads: WorkerPool

    init(threadCount: Int) {
        threads = WorkerPool(name: "sonde-target", sizing: .fixed(threadCount))
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        threads.submit { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
