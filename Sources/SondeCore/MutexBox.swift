import Synchronization

/// A `Mutex` that escaping closures can share: `Mutex` cannot be copied, so a value that a
/// callback on another thread fills in (a future's completion, a probe's result) lives in this
/// class and the closures capture the reference. Same lock, same rules as `Mutex`: hold it only
/// for the body of `withLock`, never across a wait.
///
/// Threading: any thread.
public final class MutexBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, the lock held.
    public func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { value in try body(&value) }
    }
}
