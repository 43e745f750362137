import SondeCore
import Synchronization

/// Lets work through at most once per interval (monotonic clock), however many callers ask:
/// serve's pruning of old run folders (once a minute) and `malloc_trim` after `/probe` (once a
/// second). Thread-safe (an atomic compare-and-swap: of callers racing, one is let in).
final class IntervalGate: Sendable {
    /// When the work was last let in or done (`monotonicMicroseconds`).
    private let lastMicros = Atomic<Int64>(Int64.min / 2)

    init() {}

    /// Notes that the work was just done: the next `claim` waits a whole interval from now.
    func note() {
        lastMicros.store(monotonicMicroseconds(), ordering: .relaxed)
    }

    /// Whether this caller is let in now: the work was last let in or done at least `seconds` ago.
    func claim(every seconds: Double) -> Bool {
        let now = monotonicMicroseconds(), last = lastMicros.load(ordering: .relaxed)
        guard now - last >= Int64(seconds * 1_000_000) else { return false }
        return lastMicros.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
    }
}
