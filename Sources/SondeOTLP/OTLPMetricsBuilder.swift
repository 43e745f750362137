import SondeCore

/// Aggregates a run's transactions into OTLP metrics and writes the
/// `ExportMetricsServiceRequest`:
///
/// - `http.client.request.duration` (histogram, `s`): each transaction's `phases.total`, by the
///   conventions' stable attributes (`OTLPTransactionFacts.stableAttributes`), with their advised bounds;
/// - `sonde.http.phase.duration` (histogram, `s`, `OTLPHistogram.phaseDurationBounds`: from 50 µs,
///   so that loopback and LAN phases spread over buckets): each phase a transaction went through, by
///   `sonde.phase` (dns, connect, tls, send, wait, receive, total), `sonde.connection` (cold, warm),
///   `server.address`, `server.port`, `url.scheme`, `network.protocol.version`;
/// - `sonde.tasks` (sum, `{task}`): the tasks, by `sonde.task.outcome` (ok, error);
/// - a soak's and a resume trial's metrics (`OTLPMetricsBuilder+Transfers.swift`);
/// - the metrics check kinds declare, as gauges (`OTLPMetricsBuilder+Declared.swift`).
///
/// One `ResourceMetrics` per check (resource attribute `sonde.check`), delta temporality from the
/// run's start to its end (a run is one interval: each export holds that run only).
///
/// Threading: a value type, filled from one thread. Memory: one histogram per attribute set, not per transaction.
struct OTLPMetricsBuilder {
    private struct Series {
        var durations: [[OTLPAttribute]: OTLPHistogram] = [:]
        var phases: [[OTLPAttribute]: OTLPHistogram] = [:]
        var tasks: [String: Int] = [:]
        /// Attribute sets in the order first seen, so that the request's order is stable.
        var durationOrder: [[OTLPAttribute]] = []
        var phaseOrder: [[OTLPAttribute]] = []
        /// Soak and resume metrics.
        var other = OTLPMetricSet()
        var hasTasks: Bool { !tasks.isEmpty }
    }

    private var series: [OTLPResource: Series] = [:]
    private var resourceOrder: [OTLPResource] = []
    /// Transactions recorded in `http.client.request.duration` (those with a measured total).
    private(set) var transactions = 0
    /// The methods the conventions call known (`OTLPSettings.knownMethods`).
    let knownMethods: Set<String>

    init(knownMethods: Set<String> = OTLPSettings.defaultKnownMethods) {
        self.knownMethods = knownMethods
    }

    /// Adds one task: its transactions, each phase, and its outcome.
    mutating func add(_ task: ProbeTask, resource: OTLPResource) {
        ensure(resource)
        let count = task.transactionMetrics.count
        for (index, transaction) in task.transactionMetrics.enumerated() {
            let facts = OTLPTransactionFacts(transaction, taskError: index == count - 1 ? task.error : nil, knownMethods: knownMethods)
            if let seconds = facts.durationSeconds {
                let key = facts.stableAttributes
                if series[resource]?.durations[key] == nil {
                    series[resource]?.durations[key] = OTLPHistogram(bounds: OTLPHistogram.httpDurationBounds)
                    series[resource]?.durationOrder.append(key)
                }
                series[resource]?.durations[key]?.record(seconds)
                transactions += 1
            }
            var common: [OTLPAttribute] = [.string("sonde.connection", facts.connection)]
            if let address = facts.serverAddress { common.append(.string("server.address", address)) }
            if let port = facts.serverPort { common.append(.int("server.port", port)) }
            if let scheme = facts.scheme { common.append(.string("url.scheme", scheme)) }
            if let version = facts.protocolVersion { common.append(.string("network.protocol.version", version)) }
            for phase in Phase.allCases {
                guard let milliseconds = transaction.phases[phase] else { continue }
                let key = [OTLPAttribute.string("sonde.phase", phase.name)] + common
                if series[resource]?.phases[key] == nil {
                    series[resource]?.phases[key] = OTLPHistogram(bounds: OTLPHistogram.phaseDurationBounds)
                    series[resource]?.phaseOrder.append(key)
                }
                series[resource]?.phases[key]?.record(milliseconds / 1000)
            }
        }
        series[resource]?.tasks[task.error == nil ? "ok" : "error", default: 0] += 1
    }

    /// Whether anything was added.
    var isEmpty: Bool { resourceOrder.isEmpty }

    mutating func ensure(_ resource: OTLPResource) {
        if series[resource] == nil {
            series[resource] = Series()
            resourceOrder.append(resource)
        }
    }

    /// Applies `change` to `resource`'s soak and resume metrics.
    mutating func other(_ resource: OTLPResource, _ change: (inout OTLPMetricSet) -> Void) {
        ensure(resource)
        change(&series[resource, default: Series()].other)
    }

    /// The `ExportMetricsServiceRequest` (resource_metrics = 1).
    func request(startNanos: UInt64, endNanos: UInt64) -> [UInt8] {
        var writer = ProtobufWriter()
        for resource in resourceOrder {
            guard let own = series[resource] else { continue }
            // ResourceMetrics: resource = 1, scope_metrics = 2.
            writer.message(1) { resourceMetrics in
                resource.write(1, into: &resourceMetrics)
                // ScopeMetrics: scope = 1, metrics = 2.
                resourceMetrics.message(2) { scope in
                    OTLPResource.writeScope(1, into: &scope)
                    own.other.write(2, into: &scope, startNanos: startNanos, endNanos: endNanos)
                    guard own.hasTasks else { return }
                    scope.message(2) { metric in
                        Self.writeHistogram(into: &metric, name: "http.client.request.duration", unit: "s",
                                            description: "Duration of HTTP client requests (each redirect hop), from sonde's phases.total.",
                                            points: own.durationOrder.compactMap { key in own.durations[key].map { (key, $0) } },
                                            start: startNanos, end: endNanos)
                    }
                    scope.message(2) { metric in
                        Self.writeHistogram(into: &metric, name: "sonde.http.phase.duration", unit: "s",
                                            description: "Time each HTTP transaction spent in each phase (dns, connect, tls, send, wait, receive, total).",
                                            points: own.phaseOrder.compactMap { key in own.phases[key].map { (key, $0) } },
                                            start: startNanos, end: endNanos)
                    }
                    scope.message(2) { metric in
                        // Metric: name = 1, description = 2, unit = 3, sum = 7.
                        metric.string(1, "sonde.tasks")
                        metric.string(2, "Tasks of the run (a URL fetched once, redirects included), by outcome.")
                        metric.string(3, "{task}")
                        metric.message(7) { sum in
                            // Sum: data_points = 1, aggregation_temporality = 2 (DELTA = 1), is_monotonic = 3.
                            for outcome in ["ok", "error"] {
                                guard let count = own.tasks[outcome] else { continue }
                                sum.message(1) { point in
                                    // NumberDataPoint: attributes = 7, start = 2, time = 3, as_int = 6 (sfixed64).
                                    point.attributes(7, [.string("sonde.task.outcome", outcome)])
                                    point.fixed64(2, startNanos)
                                    point.fixed64(3, endNanos)
                                    point.fixed64(6, UInt64(count))
                                }
                            }
                            sum.unsigned(2, 1)
                            sum.bool(3, true)
                        }
                    }
                }
            }
        }
        return writer.bytes
    }

    /// Writes a `Metric` holding a delta `Histogram` (Metric: name = 1, description = 2, unit = 3,
    /// histogram = 9; Histogram: data_points = 1, aggregation_temporality = 2).
    private static func writeHistogram(into metric: inout ProtobufWriter, name: String, unit: String, description: String,
                                       points: [([OTLPAttribute], OTLPHistogram)], start: UInt64, end: UInt64) {
        metric.string(1, name)
        metric.string(2, description)
        metric.string(3, unit)
        metric.message(9) { histogram in
            for (attributes, point) in points {
                histogram.message(1) { point.write(into: &$0, attributes: attributes, startNanos: start, timeNanos: end) }
            }
            histogram.unsigned(2, 1)
        }
    }
}
