import SondeCore

/// The `sse.*` threshold metrics: what `SSEKind` declares (`DeclaredMetric`) and each stream
/// check's values of them, recorded in its `streams` item (`StreamReport.metrics`) for the
/// thresholds to read. Distributions in ms over every stream of the check, counts summed,
/// the burst index a share (0…1). Paths are lower-case, as thresholds are read.
enum StreamMetrics {
    /// The distributions (`sse.<name>.<aggregation>`): first event (one value per stream), gaps
    /// between events, delivery delay against the events' stamps (`--stamp-field`).
    static let distributions: [(name: String, value: @Sendable (StreamTotals) -> DistributionSummary?)] = [
        ("sse.firstevent", { $0.firstEventMs }),
        ("sse.gap", { $0.gapsMs }),
        ("sse.delay", { $0.deliveryDelayMs }),
    ]

    /// The counts (`sse.<name>.count`).
    static let counts: [(name: String, value: @Sendable (StreamTotals) -> Int)] = [
        ("sse.events.count", { $0.events }),
        ("sse.comments.count", { $0.comments }),
        ("sse.reconnects.count", { $0.reconnects }),
        ("sse.bursts.count", { $0.bursts }),
        ("sse.lostids.count", { $0.lostIDs }),
        ("sse.repeatedids.count", { $0.repeatedIDs }),
    ]

    /// What `SSEKind.metrics` declares.
    static var declared: [DeclaredMetric] {
        distributions.map { .distribution($0.name) } + counts.map { .value($0.name) } + [.value("sse.burstindex")]
    }

    /// The metrics as messages and docs write them.
    static let written = "sse.firstEvent.<aggregation>, sse.gap.<aggregation>, sse.delay.<aggregation>, sse.burstIndex, "
        + "sse.events.count, sse.comments.count, sse.reconnects.count, sse.bursts.count, sse.lostIDs.count, sse.repeatedIDs.count"

    /// The values of one check's figures, by path; a distribution without data (no stamp, one
    /// event) and a burst index without an eligible event are left out, so a threshold on them
    /// fails as having no data.
    static func values(of total: StreamTotals) -> [String: Double] {
        var values: [String: Double] = [:]
        for (name, value) in distributions {
            guard let distribution = value(total) else { continue }
            let figures: [String: Double] = ["min": distribution.min, "p50": distribution.p50, "p90": distribution.p90, "p95": distribution.p95,
                                             "p99": distribution.p99, "max": distribution.max, "mean": distribution.mean,
                                             "count": Double(distribution.count)]
            for (aggregation, figure) in figures where figure.isFinite { values[name + "." + aggregation] = figure }
        }
        for (name, value) in counts { values[name] = Double(value(total)) }
        if let index = total.burstIndex, index.isFinite { values["sse.burstindex"] = index }
        return values
    }
}
