import SondeCore

extension OTLPMetricsBuilder {
    /// Adds the values of the metrics check kinds declare themselves (`DeclaredMetric`: `sse.gap.p95`,
    /// `sse.events.count`, …), as the kind's report items hold them: a gauge per path, named
    /// `sonde.` + the path, so a new kind's metrics reach OTLP without a mapping of their own.
    /// Units follow the path (`DeclaredMetric.unit(ofPath:)`): a duration in `s` (the report's ms / 1000),
    /// a count in `{count}`, a rate in `1`. Attribute `url.full` when the item names its URL.
    mutating func addDeclared(_ values: DeclaredMetricValues, resource: OTLPResource) {
        let attributes: [OTLPAttribute] = values.url.map { [.string("url.full", $0)] } ?? []
        other(resource) { set in
            for path in values.metrics.keys.sorted() {
                guard let value = values.metrics[path] else { continue }
                let name = "sonde." + path
                let description = "The check's \(path), as report.json's item holds it (a metric its kind declares)."
                switch DeclaredMetric.unit(ofPath: path) {
                case .duration: set.set(name, unit: "s", description: description, value / 1000, attributes)
                case .count: set.set(name, unit: "{count}", description: description, value, attributes)
                case .rate, .change: set.set(name, unit: "1", description: description, value, attributes)
                }
            }
        }
    }
}
