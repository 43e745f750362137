import Foundation
import Synchronization
import Testing
import SondeCore

/// `WorkerPool`: elastic, a job never waits for another (20 jobs run at once) and a thread is used
/// again by a later job; fixed, at most its threads run at once and every job runs, in order.
@Suite struct WorkerPoolTests {
    /// 20 jobs that each wait (up to 10 s) until all 20 have started: they finish only if none
    /// was queued behind another.
    @Test func jobsDoNotWaitForEachOther() {
        let threads = WorkerPool(name: "test-elastic", sizing: .elastic(keepIdle: 4))
        let arrived = Mutex(0)
        let released = Mutex([Bool]())
        let barrier = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<20 {
            done.enter()
            threads.submit {
                let count = arrived.withLock { value -> Int in
                    value += 1
                    return value
                }
                if count == 20 { for _ in 0..<20 { barrier.signal() } }
                let passed = barrier.wait(timeout: .now() + 10) == .success
                released.withLock { $0.append(passed) }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        let outcomes = released.withLock { $0 }
        #expect(outcomes.count == 20 && outcomes.allSatisfy { $0 }, "\(outcomes.filter { $0 }.count) of 20 jobs ran at once")
    }

    @Test func aThreadIsUsedAgain() async {
        let threads = WorkerPool(name: "test-elastic", sizing: .elastic(keepIdle: 2))
        var seen: Set<UInt> = []
        var reused = false
        for _ in 0..<5 {
            let id = await threads.run { UInt(pthread_self()) }
            if seen.contains(id) { reused = true }
            seen.insert(id)
            try? await Task.sleep(nanoseconds: 20_000_000)  // the thread is idle again by then
        }
        #expect(reused && seen.count < 5, "threads: \(seen.count)")
    }

    /// A fixed pool of 2: 40 jobs all run, never more than 2 at once, and a single thread takes
    /// them in the order queued.
    @Test func aFixedPoolBoundsItsJobsAndKeepsTheirOrder() {
        let pool = WorkerPool(name: "test-fixed", sizing: .fixed(2))
        let running = Mutex((now: 0, most: 0))
        let done = DispatchGroup()
        for _ in 0..<40 {
            done.enter()
            pool.submit {
                running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                usleep(2_000)
                running.withLock { $0.now -= 1 }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(running.withLock { $0.most } == 2, "at most \(running.withLock { $0.most }) at once")
        let single = WorkerPool(name: "test-order", sizing: .fixed(1))
        let order = Mutex([Int]())
        let all = DispatchGroup()
        for index in 0..<100 {
            all.enter()
            single.submit {
                order.withLock { $0.append(index) }
                all.leave()
            }
        }
        #expect(all.wait(timeout: .now() + 30) == .success)
        #expect(order.withLock { $0 } == Array(0..<100))
    }
}
