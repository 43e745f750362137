import Foundation
import SondeCore
import SondeRun
@testable import SondeServe
import Testing

/// Every match of `/probe` ends by the probe's deadline (issue 39, item 10): RE2 is linear, but a
/// pattern whose DFA keeps building states costs it microseconds a byte, and a match cannot be
/// interrupted, so the lane's waiter gives up at the deadline.
@Suite struct RegexpLaneTests {
    /// 1 MiB of random `a`/`b` against `[ab]*a[ab]{20}c`: seconds of RE2's time (about 4 µs a byte
    /// measured here). The probe waits 300 ms and no longer. Only the blocking wait is timed here:
    /// the async one also waits for a free thread of the cooperative pool to resume on, which
    /// this process shares with every other suite running at once (serve's CLI tests time it end
    /// to end: `BlackboxRegexpCLITests`).
    @Test func aSlowMatchEndsAtTheDeadline() async throws {
        let expression = try GoRegexp("[ab]*a[ab]{20}c")
        var state: UInt32 = 1
        let text = (0..<(1 << 20)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return state >> 16 & 1 == 0 ? UInt8(ascii: "a") : UInt8(ascii: "b")
        }
        let lane = RegexpLane(threads: 1)
        var started = monotonicMicroseconds()
        #expect(throws: RegexpLane.Overdue.self) { try lane.matches(expression, text, deadline: started + 300_000) }
        var waited = Double(monotonicMicroseconds() - started) / 1e6
        #expect(waited >= 0.29 && waited < 1, "the blocking wait ended after \(waited) s")
        started = monotonicMicroseconds()
        await #expect(throws: RegexpLane.Overdue.self) { try await lane.firstMatch(expression, text, deadline: started + 300_000) }
        waited = Double(monotonicMicroseconds() - started) / 1e6
        #expect(waited >= 0.29, "the async wait ended after \(waited) s")
        // A short text is matched at once on the caller's thread; a long one on a free lane, in time.
        #expect(try lane.matches(expression, Array("aaaaaaaaaaaaaaaaaaaaaac".utf8), deadline: monotonicMicroseconds() + 1_000_000))
        let found = try await RegexpLane(threads: 1).firstMatch(try GoRegexp("c(b+)"), text + Array("cbbb".utf8), deadline: monotonicMicroseconds() + 5_000_000)
        #expect(found?.groups[1]?.count == 3)
    }
}
