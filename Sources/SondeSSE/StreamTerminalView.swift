import SondeCore

/// The terminal's lines of `sonde stream`: one per connection, reconnect, burst and lost-id gap
/// as they happen, and the summary at the end. Server text is escaped (`TerminalSafe`).
public enum StreamTerminalView {
    /// The line for `note`.
    public static func line(_ note: StreamNote) -> String {
        switch note {
        case .connected(let stream, let attempt, let version, let id):
            return "stream \(stream): \(attempt == 1 ? "connected" : "reconnected (attempt \(attempt))") over \(version ?? "?")"
                + (id.map { ", connection \($0)" } ?? "")
        case .ended(let stream, let attempt, let cause, let error, let events, let delay, let lastID):
            var line = "stream \(stream): connection \(attempt) ended (\(cause.rawValue)) after \(events) event\(events == 1 ? "" : "s")"
            if let error { line += ": " + TerminalSafe.text(error, max: 200) }
            if let delay { line += "; reconnecting in \(delay) ms" + (lastID.map { " with Last-Event-ID \(TerminalSafe.text($0, max: 40))" } ?? "") }
            return line
        case .burst(let stream, let size, let span, let silence, let cadence):
            return "stream \(stream): burst of \(size) events within \(ms(span)) after \(ms(silence)) of silence (server cadence \(ms(cadence)))"
        case .idsLost(let stream, let from, let to):
            return "stream \(stream): ids \(from == to ? "\(from)" : "\(from)-\(to)") lost"
        case .retryRejected(let stream, let value):
            return "stream \(stream): retry: \(TerminalSafe.text(value, max: 40)) not taken (digits within 0-600000 ms only)"
        }
    }

    /// The summary at the end.
    public static func summary(_ report: StreamReport) -> [String] {
        let total = report.total
        var lines = ["── stream \(TerminalSafe.text(report.url, max: 200)): \(report.config.streams) stream\(report.config.streams == 1 ? "" : "s"), "
            + "\(count(total.events, "event")), \(count(total.comments, "comment")), \(count(total.reconnects, "reconnect"))"]
        lines.append("  connections: \(total.connections) for \(report.config.streams) stream\(report.config.streams == 1 ? "" : "s") "
            + "(at most \(total.maxStreamsPerConnection) on one)" + versions(report))
        let causes = Dictionary(grouping: report.streams.flatMap(\.connections).compactMap(\.endCause), by: { $0 }).mapValues(\.count)
        if !causes.isEmpty {
            lines.append("  connection ends: " + causes.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))
        }
        if let first = total.firstEventMs { lines.append("  first event: p50 \(ms(first.p50)), max \(ms(first.max))") }
        if let gaps = total.gapsMs { lines.append("  gaps: " + distribution(gaps)) }
        if let delay = total.deliveryDelayMs { lines.append("  delivery delay (against the send stamp): " + distribution(delay)) }
        lines.append("  burst index: " + (total.burstIndex.map { String(format: "%.2f", $0) } ?? "-") + ", \(total.bursts) burst\(total.bursts == 1 ? "" : "s")")
        lines.append("  ids: \(total.lostIDs) lost, \(total.repeatedIDs) repeated")
        if let failure = total.failure { lines.append("  failed: " + TerminalSafe.text(failure, max: 300)) }
        return lines
    }

    private static func versions(_ report: StreamReport) -> String {
        let seen = Set(report.streams.flatMap(\.connections).compactMap(\.httpVersion)).sorted()
        return seen.isEmpty ? "" : " over " + seen.joined(separator: ", ")
    }

    private static func distribution(_ d: DistributionSummary) -> String {
        "p50 \(ms(d.p50)), p95 \(ms(d.p95)), p99 \(ms(d.p99)), max \(ms(d.max)) (\(d.count))"
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func ms(_ value: Double) -> String {
        value >= 1000 ? String(format: "%.2f s", value / 1000) : String(format: "%.1f ms", value)
    }
}
