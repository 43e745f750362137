import Dispatch

/// Runs blocking work (bcrypt, rendering the history page) on threads of its own, never on Swift's
/// cooperative pool, whose few threads every endpoint shares: `/-/healthy` stays fast while a
/// page renders or a password is checked. At most `limit` jobs run at once; at most `maxWaiting`
/// more wait for a turn, and a job beyond that is refused at once (`Busy`), so a flood queues
/// nothing unbounded.
/// Threading: any task.
final class BlockingLane: Sendable {
    /// The lane had `maxWaiting` jobs waiting already.
    struct Busy: Error {}

    private let slots: AsyncSlots
    private let queue: DispatchQueue
    let limit: Int
    let maxWaiting: Int

    init(label: String, limit: Int, maxWaiting: Int) {
        self.limit = max(1, limit)
        self.maxWaiting = max(0, maxWaiting)
        slots = AsyncSlots(limit: self.limit)
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    /// `work`'s result, computed on the lane's queue once a slot is free.
    /// - Throws: `Busy` when too many jobs wait already, `CancellationError` when the task is cancelled while waiting.
    func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async throws -> Value {
        do { try await slots.acquire(maxWaiting: maxWaiting) } catch is AsyncSlots.Full { throw Busy() }
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            queue.async { continuation.resume(returning: work()) }
        }
        await slots.release()
        return value
    }
}
