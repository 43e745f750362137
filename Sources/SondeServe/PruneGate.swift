import SondeCore
import Synchronization

/// Lets one caller in per `seconds` (monotonic clock): serve prunes old run folders at most once
/// a minute however many runs end. Thread-safe (an atomic compare-and-swap).
final class PruneGate: Sendable {
    private let lastMicros = Atomic<Int64>(Int64.min / 2)
    let seconds: Double

    init(seconds: Double = 60) { self.seconds = seconds }

    /// Whether this caller is the one let in now.
    func claim() -> Bool {
        let now = monotonicMicroseconds(), last = lastMicros.load(ordering: .relaxed)
        guard now - last >= Int64(seconds * 1_000_000) else { return false }
        return lastMicros.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
    }
}
