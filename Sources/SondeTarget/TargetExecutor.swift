import Foundation

/// The threads the embedded target's request handlers run on: a `TaskExecutor` of its own, so
/// that the target keeps answering while Swift's cooperative pool (one thread per core) is busy
/// or blocked by the process it is embedded in (`sonde demo`'s probes, a test process's many
/// tests). Hummingbird runs each connection as a child task of the server's task, and child
/// tasks inherit the executor preference the server's task is started with.
///
/// Threading: `threadCount` threads, started at `init`, live as long as the process (the target
/// is a process-wide peer); jobs run in the order enqueued, any of them on any thread.
final class TargetExecutor: TaskExecutor, @unchecked Sendable {
    /// One executor for every target of the process, a thread per core (at least two, so that one
    /// slow handler never holds the rest): as many as the cooperative pool it replaces, so that
    /// `sonde target` as a benchmark peer keeps its throughput on larger machines.
    static let shared = TargetExecutor(threadCount: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var head = 0

    init(threadCount: Int) {
        for index in 0..<max(1, threadCount) {
            let thread = Thread { [self] in work() }
            thread.name = "sonde-target-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            // Compact now and then: the run jobs' slots are dropped once they are half the array.
            if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
