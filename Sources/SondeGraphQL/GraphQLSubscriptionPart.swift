import SondeCore
import SondeReport

/// A soak's GraphQL subscription as a part of the soak's model and outputs: each attempt's
/// exchange (`attempts[].subscription`, `GraphQLSubscriptionRecord`), the config's subscription
/// (`config.graphql`, `GraphQLSubscriptionConfig`) and the soak's figures over every attempt
/// (`subscription`, `GraphQLSubscriptionSummary`), which fail the soak when the server sent an
/// `error` or a `next` with errors. Shown as one line in words in the terminal and report.html,
/// `sonde_ws_graphql_messages` and `sonde_ws_graphql_next_gap_seconds` in Prometheus,
/// `sonde.graphql.subscription.messages` in OTLP. A soak without a subscription gives nothing.
struct GraphQLSubscriptionPart: SoakPartRenderer {
    static let attemptKey = "subscription"
    static let summaryKey = "subscription"
    static let configKey = "graphql"

    var attemptKey: String { Self.attemptKey }
    var summaryKey: String { Self.summaryKey }
    var configKey: String { Self.configKey }

    var attemptSchema: ModelSchema { GraphQLSubscriptionRecord.schemaDefinition }
    var summarySchema: ModelSchema { GraphQLSubscriptionSummary.schemaDefinition }
    var configSchema: ModelSchema { GraphQLSubscriptionConfig.schemaDefinition }

    func summary(config: SoakConfig, attempts: [SoakAttempt], eventGapsMs: DistributionSummary?) -> (part: any JSONWritable, problem: String?)? {
        guard let subscription = config.parts.value(Self.configKey, as: GraphQLSubscriptionConfig.self) else { return nil }
        var summary = GraphQLSubscriptionSummary(operationName: subscription.operationName)
        var ackTimes = LatencyDistribution()
        for attempt in attempts {
            if let counts = attempt.parts.value(Self.attemptKey, as: GraphQLSubscriptionRecord.self) { summary.add(counts, ackTimes: &ackTimes) }
        }
        summary.ackMs = ackTimes.summary
        summary.nextGapMs = eventGapsMs
        return (summary, summary.problem)
    }

    /// The soak's figures; nil for a soak without a subscription.
    static func summary(of soak: SoakReport) -> GraphQLSubscriptionSummary? {
        soak.parts.value(summaryKey, as: GraphQLSubscriptionSummary.self)
    }

    /// "GraphQL subscription Tick (graphql-transport-ws): 2 of 2 attempts acked (ack ms p50 …), …".
    func lines(_ soak: SoakReport) -> [String] {
        guard let s = Self.summary(of: soak) else { return [] }
        let attempts = soak.attempts.count
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
        return [text + "; pings are the protocol's ping/pong messages"]
    }

    func prometheus(_ soaks: [SoakReport], labels: [(String, String)]) -> PrometheusFamilies {
        var families = PrometheusFamilies()
        let subscribed = soaks.compactMap { soak in Self.summary(of: soak).map { (soak.url, $0) } }
        guard !subscribed.isEmpty else { return families }
        families.add("sonde_ws_graphql_messages", "gauge", "GraphQL subscription messages from the server (graphql-transport-ws), by type.",
                     subscribed.flatMap { url, s in
                         Self.messageCounts(s).map { (labels + [("url", url), ("type", $0.type)], Double($0.count)) }
                     })
        families.addSummary("sonde_ws_graphql_next_gap_seconds", "Time between consecutive next messages of a GraphQL subscription, quantiles.",
                            subscribed.compactMap { url, s in
                                s.nextGapMs.map { PrometheusWriter.seconds($0, labels: labels + [("url", url)], quantiles: ["0.5", "0.9", "0.99", "1"]) }
                            })
        return families
    }

    /// `sonde.graphql.subscription.messages` (sum, `{message}`) by `sonde.graphql.message.type`
    /// (next, next_with_errors, error, complete); the subscription's pings are the protocol's, in
    /// the soak's ping metrics.
    func otlpSums(_ soak: SoakReport) -> [SoakPartSum] {
        guard let s = Self.summary(of: soak) else { return [] }
        return Self.messageCounts(s).map { type, count in
            SoakPartSum(name: "sonde.graphql.subscription.messages", unit: "{message}",
                        description: "GraphQL subscription messages from the server (graphql-transport-ws), by type.",
                        value: Int64(count), attributes: [("sonde.graphql.message.type", type)])
        }
    }

    /// The server's messages by type, in the order the outputs list them.
    private static func messageCounts(_ s: GraphQLSubscriptionSummary) -> [(type: String, count: Int)] {
        [("next", s.nexts), ("next_with_errors", s.nextErrors), ("error", s.errors), ("complete", s.completes)]
    }
}
