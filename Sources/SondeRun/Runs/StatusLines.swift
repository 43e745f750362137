import Foundation
import SondeCore
import SondeSuite

/// Plain status lines while a check works (`ProgressView.plain`): one every `interval`, the
/// first `interval` after `start`, each written at once as one line, so that a CI runner that
/// kills a job after minutes without output sees a long soak or download alive. Short work
/// (under `interval`) prints none.
///
/// Threading: the lines are written from a task of Swift's cooperative pool (the engines run on
/// threads of their own or on NIO's); `line` reads the check's live figures under their lock.
public final class StatusLines: Sendable {
    /// Between two status lines (s): well inside the 10 s a line must follow another at most.
    public static let interval: Duration = .seconds(5)

    private let task: Task<Void, Never>?

    /// Starts writing `prefix` + `line(elapsed seconds)` every `interval` when `view` is plain
    /// (a nil line skips that turn: the work is at its end, its summary follows); does nothing
    /// for the other views.
    public init(_ view: ProgressView, prefix: String, interval: Duration = StatusLines.interval, line: @escaping @Sendable (Double) -> String?) {
        guard case .plain(let stream) = view else {
            task = nil
            return
        }
        let started = ContinuousClock.now
        task = Task {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                let elapsed = ContinuousClock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                if let text = line(seconds) { StandardStreams.line(prefix + text, to: stream) }
            }
        }
    }

    /// Stops the lines (none is written after this returns).
    public func stop() async {
        task?.cancel()
        _ = await task?.value
    }

    /// "[12 s] ", "[1 m 5 s/10 m] ": the elapsed time, and the planned length when there is one.
    public static func elapsed(_ seconds: Double, of planned: Double? = nil) -> String {
        let shown = formatDuration(seconds.rounded())
        guard let planned else { return "[\(shown)] " }
        return "[\(formatDuration(min(seconds, planned).rounded()))/\(formatDuration(planned))] "
    }
}
