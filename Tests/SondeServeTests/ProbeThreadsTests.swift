import Foundation
import Testing
@testable import SondeServe

/// `ProbeThreads`: a job never waits for another (20 jobs of 300 ms at once end together), and a
/// thread is used again by a later job.
@Suite struct ProbeThreadsTests {
    @Test func jobsDoNotWaitForEachOther() async {
        let threads = ProbeThreads(keepIdle: 4)
        let started = Date()
        let results = await withTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask { await threads.run { usleep(300_000); return index } }
            }
            var all: [Int] = []
            for await result in group { all.append(result) }
            return all.sorted()
        }
        #expect(results == Array(0..<20))
        // Serially the jobs would take 6 s; in parallel about 0.3 s (bounded generously for a busy machine).
        #expect(Date().timeIntervalSince(started) < 3, "\(Date().timeIntervalSince(started)) s")
    }

    @Test func aThreadIsUsedAgain() async {
        let threads = ProbeThreads(keepIdle: 2)
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
}
