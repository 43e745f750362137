import Testing
@testable import SondeLink

/// The spin budget: sparse deadlines and answers are polled for; a dense stream that keeps the
/// thread from sleeping 500 µs at a time is not; polling never takes more than its share of wall time.
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

    @Test func aDenseStreamIsNotPolledFor() {
        var budget = SpinBudget(spinNs: spin, share: 0.25, now: 0)
        // Deadlines 240 µs apart for 1 s (50 Mbit/s of 1,500-byte packets): the thread never
        // sleeps 500 µs at a time, so it polls at most the ten spins the bucket starts with.
        let deadlines = (1...4_166).map { Int64($0) * 240_000 }
        let polled = drive(&budget, deadlines: deadlines, until: 1_000_000_000)
        #expect(polled <= 10 * spin + 1_000, "polled \(polled)")
    }

    @Test func aStreamJustSparseEnoughToPollPollsForAtMostItsShare() {
        var budget = SpinBudget(spinNs: spin, share: 0.1, now: 0)
        // Deadlines 750 µs apart for 1 s: 550 µs of sleep between one deadline's polling and the
        // next's, so each may be polled for, and the share bounds it.
        let deadlines = (1...1_333).map { Int64($0) * 750_000 }
        let polled = drive(&budget, deadlines: deadlines, until: 1_000_000_000)
        // At most 10 % of the second, plus the ten spins the bucket starts with and one step.
        #expect(polled <= 100_000_000 + 10 * spin + 1_000, "polled \(polled)")
        #expect(polled >= 80_000_000, "polled \(polled)")
    }

    @Test func anIdleThreadSleepsUntilAPacketAndPollsAfterIt() {
        var budget = SpinBudget(spinNs: spin, share: 0.1, now: 0)
        #expect(budget.wake(for: nil, lastActivity: -1_000_000, now: 0) == -1)
        // A packet read 10 ms later, after the quiet spell: polled for after it.
        #expect(budget.wake(for: 1_010_000_000, lastActivity: 9_950_000, now: 10_000_000) == 10_000_000, "polls just after a packet")
        #expect(budget.wake(for: 11_200_000, lastActivity: 9_950_000, now: 10_100_000) == 11_100_000, "sleeps to the spin before the deadline")
        // The 1 ms sleep was a quiet spell: the deadline is polled for.
        #expect(budget.wake(for: 11_200_000, lastActivity: 9_950_000, now: 11_100_000) == 11_100_000)
    }

    @Test func aThreadKeptAwakeByPacketsSleepsStraightToItsDeadlines() {
        var budget = SpinBudget(spinNs: spin, share: 1, now: 0)
        #expect(budget.wake(for: 5_000_000, lastActivity: -1_000_000, now: 0) == 4_900_000)
        // Sleeps of 200–300 µs (shorter than the quiet spell) between packets and deadlines: no
        // polling after a packet, and the thread sleeps straight to each deadline.
        #expect(budget.wake(for: 500_000, lastActivity: 199_000, now: 200_000) == 500_000)
        #expect(budget.wake(for: 700_000, lastActivity: 500_000, now: 500_000) == 700_000)
    }

    @Test func aPacketAfterAShortSleepHasItsDeadlinePolledForAfterAQuietSpell() {
        var budget = SpinBudget(spinNs: spin, share: 1, now: 0)
        #expect(budget.wake(for: nil, lastActivity: -1_000_000, now: 0) == -1)
        // An answer read 50 µs after the thread went to sleep: no polling after it (the sleep
        // was short), but its deadline 1 ms away is a quiet spell away: the thread sleeps to its spin.
        #expect(budget.wake(for: 1_050_000, lastActivity: 50_000, now: 50_000) == 950_000)
        #expect(budget.wake(for: 1_050_000, lastActivity: 50_000, now: 950_000) == 950_000, "polls before the deadline")
    }

    @Test func noSpinSleepsToTheDeadline() {
        var budget = SpinBudget(spinNs: 0, share: 1, now: 0)
        #expect(budget.wake(for: 5_000, lastActivity: 0, now: 0) == 5_000)
        #expect(budget.wake(for: nil, lastActivity: 0, now: 0) == -1)
    }
}
