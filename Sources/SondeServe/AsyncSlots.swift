/// At most `limit` holders at once, waiters served in order; a waiter whose task is cancelled
/// leaves the queue (and `acquire` throws `CancellationError`).
/// Threading: an actor; `acquire`/`release` from any task.
actor AsyncSlots {
    private let limit: Int
    private var held = 0
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, Error>)] = []
    private var nextID = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Holders now.
    var inUse: Int { held }

    /// Takes a slot, waiting in line; throws `Full` at once when `maxWaiting` wait already (checked
    /// and queued in one step of the actor, so a burst cannot overshoot it).
    func acquire(maxWaiting: Int) async throws {
        if held >= limit || !waiters.isEmpty, waiters.count >= maxWaiting { throw Full() }
        try await acquire()
    }

    /// `acquire(maxWaiting:)` found the line full.
    struct Full: Error {}

    func acquire() async throws {
        if held < limit && waiters.isEmpty {
            held += 1
            return
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    func release() {
        if waiters.isEmpty {
            held = max(0, held - 1)
        } else {
            // The slot passes to the first waiter: `held` stays.
            waiters.removeFirst().continuation.resume()
        }
    }

    private func cancel(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
