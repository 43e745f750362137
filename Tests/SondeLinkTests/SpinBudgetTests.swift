import Testing
@testable import SondeLink

/// The spin budget: sparse deadlines and answers are polled for; a dense stream polls for at most
/// the share of wall time, however long it runs.
@Suite struct SpinBudgetTests {
    private let spin: Int64 = 100_000

    /// Drives the budget like the thread does: a wait that polls returns after `step` ns; one that
    /// sleeps returns at its wake time (or at `until` when it sleeps forever). Returns the polled ns.
    private func drive(_ budget: inout SpinBudget, deadlines: [Int64], activity: [Int64] = [], until end: Int64, step: Int64 = 1_000) -> Int64 {
        var now: Int64 = 0, polled: Int64 = 0
        var pending = deadlines[...], seen = activity[...]
        var last: Int64 = -1_000_000_000
        var iterations = 0
        while now < end, iterations < 10_000_000 {
            iterations += 1
            while let d = pending.first, d <= now { pending.removeFirst(); last = d }
            while let a = seen.first, a <= now { seen.removeFirst(); last = a }
            let wake = budget.wake(for: pending.first, lastActivity: last, now: now)
            let nextEvent = min(pending.first ?? end, seen.first ?? end, end)
            if wake == now { polled += min(step, nextEvent - now); now = min(now + step, nextEvent) }
            else { now = wake < 0 ? nextEvent : min(max(wake, now + 1), nextEvent) }
        }
        return polled
    }

    @Test func sparseDeadlinesAreEachPolledFor() {
        var budget = SpinBudget(spinNs: spin, share: 0.1, now: 0)
        // A deadline every 2 ms: each gets its 100 µs of polling before it and after it.
        let deadlines = (1...500).map { Int64($0) * 2_000_000 }
        let polled = drive(&budget, deadlines: deadlines, until: 1_001_000_000)
        #expect(polled >= 500 * 2 * spin - 1_000_000 && polled <= 500 * 2 * spin + 1_000_000, "polled \(polled)")
    }

    @Test func aDenseStreamPollsForAtMostItsShare() {
        var budget = SpinBudget(spinNs: spin, share: 0.1, now: 0)
        // Deadlines 120 µs apart for 1 s (100 Mbit/s of 1,500-byte packets).
        let deadlines = (1...8_333).map { Int64($0) * 120_000 }
        let polled = drive(&budget, deadlines: deadlines, until: 1_000_000_000)
        // At most 10 % of the second, plus the ten spins the bucket starts with and one step.
        #expect(polled <= 100_000_000 + 10 * spin + 1_000, "polled \(polled)")
        #expect(polled >= 80_000_000, "polled \(polled)")
    }

    @Test func anIdleThreadSleepsUntilAPacket() {
        var budget = SpinBudget(spinNs: spin, share: 0.1, now: 0)
        #expect(budget.wake(for: nil, lastActivity: -1_000_000, now: 0) == -1)
        #expect(budget.wake(for: nil, lastActivity: -50_000, now: 0) == 0, "polls just after a packet")
        #expect(budget.wake(for: 1_000_000, lastActivity: -1_000_000, now: 0) == 900_000, "sleeps to the spin before the deadline")
    }

    @Test func noSpinSleepsToTheDeadline() {
        var budget = SpinBudget(spinNs: 0, share: 1, now: 0)
        #expect(budget.wake(for: 5_000, lastActivity: 0, now: 0) == 5_000)
        #expect(budget.wake(for: nil, lastActivity: 0, now: 0) == -1)
    }
}
