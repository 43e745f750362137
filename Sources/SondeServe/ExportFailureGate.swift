import Synchronization

/// Whether serve's last OTLP export failed, so that a failing collector is said once in the log
/// (and its recovery once), however many runs it fails. Any thread.
final class ExportFailureGate: Sendable {
    private let failing = Mutex(false)

    /// Records whether the latest export failed; returns whether the one before it had.
    func update(failing now: Bool) -> Bool {
        failing.withLock { state in
            let before = state
            state = now
            return before
        }
    }
}
