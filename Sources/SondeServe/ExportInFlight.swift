import Synchronization

/// Whether an export is under way, so that at most one runs at a time and one asked for meanwhile
/// is sent once after it (with the figures of then). Any thread.
final class ExportInFlight: Sendable {
    private enum State { case idle, busy, busyWithMore }
    private let state = Mutex(State.idle)

    /// Marks an export under way and returns true; when one already is, notes that another is
    /// wanted after it and returns false.
    func begin() -> Bool {
        state.withLock { state in
            switch state {
            case .idle:
                state = .busy
                return true
            case .busy, .busyWithMore:
                state = .busyWithMore
                return false
            }
        }
    }

    /// Ends an export; returns true when another was asked for meanwhile (it is then under way).
    func end() -> Bool {
        state.withLock { state in
            switch state {
            case .busyWithMore:
                state = .busy
                return true
            case .idle, .busy:
                state = .idle
                return false
            }
        }
    }
}
