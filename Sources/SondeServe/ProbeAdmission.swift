import Synchronization

/// Counts the `/probe` calls under way and admits at most `limit` at once (`ServeLimits.maxProbes`).
/// Threading: any thread (an atomic).
public final class ProbeAdmission: Sendable {
    public let limit: Int
    private let running = Atomic<Int>(0)

    public init(limit: Int) { self.limit = max(1, limit) }

    /// Takes a place, or returns false when `limit` probes run already (nothing taken).
    func enter() -> Bool {
        let now = running.add(1, ordering: .acquiringAndReleasing).newValue
        guard now <= limit else {
            running.subtract(1, ordering: .acquiringAndReleasing)
            return false
        }
        return true
    }

    /// Gives back a place `enter` took.
    func leave() { running.subtract(1, ordering: .acquiringAndReleasing) }
}
