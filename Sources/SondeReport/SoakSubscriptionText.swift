import SondeCore

/// A soak's GraphQL subscription figures in words, one line, as the terminal and the HTML
/// report show them (each escapes it its own way).
enum SoakSubscriptionText {
    /// "GraphQL subscription Tick (graphql-transport-ws): 2 of 2 connections acked (ack p50 …), …".
    static func line(_ s: SoakReport.SubscriptionSummary, attempts: Int) -> String {
        var text = "GraphQL subscription " + (s.operationName ?? "(anonymous)") + " (graphql-transport-ws): "
            + "\(s.acked) of \(attempts) attempt\(attempts == 1 ? "" : "s") acked"
        if let ack = s.ackMs { text += " (ack ms p50 \(formatMs(ack.p50)) max \(formatMs(ack.max)))" }
        text += ", \(s.subscribes) subscribe\(s.subscribes == 1 ? "" : "s"), \(s.nexts) next"
        if let gap = s.nextGapMs {
            text += " (gap ms p50 \(formatMs(gap.p50)) p90 \(formatMs(gap.p90)) p99 \(formatMs(gap.p99)) max \(formatMs(gap.max)))"
        }
        text += ", \(s.nextErrors) next with errors, \(s.errors) error\(s.errors == 1 ? "" : "s"), \(s.completes) complete"
        if !s.closes.isEmpty {
            text += "; protocol closes: " + s.closes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        return text + "; pings are the protocol's ping/pong messages"
    }
}
