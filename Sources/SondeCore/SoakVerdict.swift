/// What a soak's outcome is called, in the terminal and in the HTML: "recovered" only when
/// there was a disconnect and every outage ended with a reconnect.
public enum SoakVerdict: Sendable, Equatable {
    /// Killed (or stopped) before it ended: the report was rebuilt from the journal.
    case interrupted
    case failed
    /// An idle-timeout discovery that ran to its end (its probes are cut on purpose).
    case discoveryFinished
    /// Passed without a disconnect.
    case held
    /// Passed, and each of the `disconnects` was followed by a reconnect.
    case recovered(disconnects: Int)
    /// Passed, but `disconnects - recovered` outages were still going on when it ended.
    case downAtEnd(disconnects: Int, recovered: Int)

    /// True for the verdicts of a soak (or discovery) that passed.
    public var passed: Bool {
        switch self {
        case .interrupted, .failed: return false
        case .discoveryFinished, .held, .recovered, .downAtEnd: return true
        }
    }

    /// The verdict in words, without a mark: "passed, no disconnects", "recovered from 2 disconnects".
    public var words: String {
        switch self {
        case .interrupted: return "killed before it ended"
        case .failed: return "failed"
        case .discoveryFinished: return "finished"
        case .held: return "passed, no disconnects"
        case .recovered(let count): return "recovered from \(count) disconnect\(count == 1 ? "" : "s")"
        case .downAtEnd(let count, let recovered):
            return "passed; \(recovered) of \(count) disconnect\(count == 1 ? "" : "s") recovered, "
                + "\(count - recovered) still down at the end"
        }
    }
}

extension SoakReport {
    /// Disconnects of open connections by cause, the run's own closes (and a discovery probe's
    /// planned close) left out.
    public var unplannedDisconnects: [String: Int] {
        disconnects.byCause.filter { $0.key != DisconnectCause.runEnded.rawValue && $0.key != DisconnectCause.probeFinished.rawValue }
    }

    /// The number of `unplannedDisconnects`.
    public var disconnectCount: Int { unplannedDisconnects.values.reduce(0) { $0 &+ $1 } }

    public var verdict: SoakVerdict {
        if finishedAt == nil { return .interrupted }
        if !passed { return .failed }
        if idleTimeout != nil { return .discoveryFinished }
        let count = disconnectCount
        if count == 0 { return .held }
        return reconnects.count >= count ? .recovered(disconnects: count) : .downAtEnd(disconnects: count, recovered: reconnects.count)
    }
}
