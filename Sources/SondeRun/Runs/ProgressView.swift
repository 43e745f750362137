import Foundation
import SondeCore
import SondeSuite

/// What one check shows of its progress while it works, decided once from `--progress`, the
/// run's output (`--json`, serve) and where standard error goes.
public enum ProgressView: Equatable, Sendable {
    /// A status line redrawn in place on standard error (a terminal), cleared at the end.
    case terminal
    /// A plain status line every `StatusLines.interval` on the stream: stdout, or stderr
    /// with `--json` (stdout holds the report document).
    case plain(StandardStreams.Stream)
    case none

    /// - Parameters:
    ///   - quiet: inside `sonde serve`, which writes nothing while its runs work.
    ///   - overlapping: other checks run beside this one: no terminal line is redrawn (their
    ///     lines would mix); plain lines carry the check's name.
    ///   - errorIsTerminal: whether standard error is a terminal.
    static func of(_ mode: ProgressMode, json: Bool, quiet: Bool, overlapping: Bool,
                   errorIsTerminal: Bool = isatty(STDERR_FILENO) == 1) -> ProgressView {
        if quiet || mode == .off { return .none }
        if mode == .auto && errorIsTerminal { return json || overlapping ? .none : .terminal }
        return .plain(json ? .error : .output)
    }

    public var isTerminal: Bool { self == .terminal }
}
