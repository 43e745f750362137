import Foundation
import SondeCore
import SondeSuite
@testable import SondeServe
import Testing

/// Every match of `/probe` ends by the probe's deadline (issue 39, item 10): RE2 is linear, but a
/// pattern whose DFA keeps building states costs it microseconds a byte, and a match cannot be
/// interrupted, so the lane's waiter gives up at the deadline.
@Suite struct RegexpLaneTests {
    /// A job that outlasts its deadline (a sleep standing in for a match: how long RE2 takes on a
    /// given text depends on the machine, and CI's is faster than this one) ends its wait at the
    /// deadline, blocking or async; a job queued behind it is dropped unstarted.
    @Test func aSlowJobEndsAtTheDeadline() async throws {
        let lane = RegexpLane(threads: 1)
        var started = monotonicMicroseconds()
        #expect(throws: RegexpLane.Overdue.self) {
            try lane.run(deadline: started + 300_000) { () -> Bool in
                usleep(1_500_000)
                return true
            }
        }
        var waited = Double(monotonicMicroseconds() - started) / 1e6
        #expect(waited >= 0.29 && waited < 1.2, "the blocking wait ended after \(waited) s")
        // The lane's one thread still sleeps for the job above: this one waits in the queue.
        let ran = ResultFlag()
        started = monotonicMicroseconds()
        await #expect(throws: RegexpLane.Overdue.self) {
            try await lane.run(deadline: started + 300_000) { () -> Bool in
                ran.set()
                return true
            }
        }
        waited = Double(monotonicMicroseconds() - started) / 1e6
        #expect(waited >= 0.29, "the async wait ended after \(waited) s")
        try await Task.sleep(for: .milliseconds(1500))
        #expect(!ran.isSet, "a job whose deadline passed in the queue was started")
    }

    /// A short text is matched at once on the caller's thread; a long one on a free lane, with the
    /// same answer as a match on the caller's thread.
    @Test func longAndShortTextsMatchAsRE2Does() async throws {
        let expression = try GoRegexp("[ab]*a[ab]{20}c")
        let lane = RegexpLane(threads: 1)
        #expect(try lane.matches(expression, Array("aaaaaaaaaaaaaaaaaaaaaac".utf8), deadline: monotonicMicroseconds() + 1_000_000))
        let text = Array(repeating: UInt8(ascii: "b"), count: 4096) + Array("cbbb".utf8)
        let found = try await lane.firstMatch(try GoRegexp("c(b+)"), text, deadline: monotonicMicroseconds() + 30_000_000)
        #expect(found?.groups[1]?.count == 3)
        #expect(try lane.matches(try GoRegexp("c(b+)"), text, deadline: monotonicMicroseconds() + 30_000_000))
    }
}

/// Set once from a lane thread, read from the test. Threading: any thread (a lock guards it).
private final class ResultFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
