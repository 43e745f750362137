import SondeCore

/// Named histograms, sums and gauges being filled, each with its data points by attribute set,
/// written as OTLP `Metric`s over one interval (delta temporality, or cumulative since the
/// interval's start when `cumulative`): the metrics of soaks, resume trials and serve's own
/// health, beside `OTLPMetricsBuilder`'s HTTP ones.
///
/// Invariant: a name is one kind (histogram, sum or gauge), with one unit and description (the
/// first given); metrics and their points are written in the order first seen, so a request is stable.
/// Threading: a value type, filled from one thread.
struct OTLPMetricSet {
    private struct Metric {
        var unit: String
        var description: String
        var bounds: [Double]?
        var order: [[OTLPAttribute]] = []
        var histograms: [[OTLPAttribute]: OTLPHistogram] = [:]
        var sums: [[OTLPAttribute]: Int64] = [:]
        var gauges: [[OTLPAttribute]: Double]? = nil
    }

    /// Sums and histograms are cumulative (since the start given to `write`) instead of deltas.
    var cumulative = false

    private var metrics: [String: Metric] = [:]
    private var order: [String] = []

    var isEmpty: Bool { order.isEmpty }

    /// Records `value` in histogram `name` (`bounds`: explicit bucket bounds) at `attributes`.
    mutating func record(_ name: String, unit: String, description: String, bounds: [Double], _ value: Double, _ attributes: [OTLPAttribute]) {
        if metrics[name] == nil {
            metrics[name] = Metric(unit: unit, description: description, bounds: bounds)
            order.append(name)
        }
        if metrics[name]?.histograms[attributes] == nil {
            guard let own = metrics[name], let bounds = own.bounds else { return }
            metrics[name]?.histograms[attributes] = OTLPHistogram(bounds: bounds)
            metrics[name]?.order.append(attributes)
        }
        metrics[name]?.histograms[attributes]?.record(value)
    }

    /// Adds `amount` (≥ 0; a negative amount adds 0) to the monotonic sum `name` at `attributes`;
    /// an amount of 0 still makes the point, so that a count of none is sent as 0.
    mutating func add(_ name: String, unit: String, description: String, _ amount: Int64, _ attributes: [OTLPAttribute]) {
        if metrics[name] == nil {
            metrics[name] = Metric(unit: unit, description: description, bounds: nil)
            order.append(name)
        }
        guard metrics[name]?.bounds == nil, metrics[name]?.gauges == nil else { return }
        if metrics[name]?.sums[attributes] == nil {
            metrics[name]?.sums[attributes] = 0
            metrics[name]?.order.append(attributes)
        }
        metrics[name]?.sums[attributes]? &+= Swift.max(0, amount)
    }

    /// Sets gauge `name` at `attributes` to `value` (a finite number; others are ignored).
    mutating func set(_ name: String, unit: String, description: String, _ value: Double, _ attributes: [OTLPAttribute]) {
        guard value.isFinite else { return }
        if metrics[name] == nil {
            metrics[name] = Metric(unit: unit, description: description, bounds: nil, gauges: [:])
            order.append(name)
        }
        guard metrics[name]?.gauges != nil else { return }
        if metrics[name]?.gauges?[attributes] == nil { metrics[name]?.order.append(attributes) }
        metrics[name]?.gauges?[attributes] = value
    }

    /// Writes each metric as a `Metric` (name = 1, description = 2, unit = 3, sum = 7,
    /// gauge = 5, histogram = 9) in field `field` of the enclosing `ScopeMetrics`.
    func write(_ field: Int, into scope: inout ProtobufWriter, startNanos: UInt64, endNanos: UInt64) {
        for name in order {
            guard let metric = metrics[name] else { continue }
            scope.message(field) { out in
                out.string(1, name)
                out.string(2, metric.description)
                out.string(3, metric.unit)
                let temporality: UInt64 = cumulative ? 2 : 1
                if let gauges = metric.gauges {
                    // Gauge: data_points = 1; NumberDataPoint: attributes = 7, time = 3, as_double = 4.
                    out.message(5) { gauge in
                        for attributes in metric.order {
                            guard let value = gauges[attributes] else { continue }
                            gauge.message(1) { point in
                                point.attributes(7, attributes)
                                point.fixed64(3, endNanos)
                                point.double(4, value)
                            }
                        }
                    }
                } else if metric.bounds != nil {
                    // Histogram: data_points = 1, aggregation_temporality = 2 (DELTA = 1, CUMULATIVE = 2).
                    out.message(9) { histogram in
                        for attributes in metric.order {
                            guard let point = metric.histograms[attributes] else { continue }
                            histogram.message(1) { point.write(into: &$0, attributes: attributes, startNanos: startNanos, timeNanos: endNanos) }
                        }
                        histogram.unsigned(2, temporality)
                    }
                } else {
                    // Sum: data_points = 1, aggregation_temporality = 2, is_monotonic = 3.
                    out.message(7) { sum in
                        for attributes in metric.order {
                            guard let value = metric.sums[attributes] else { continue }
                            // NumberDataPoint: attributes = 7, start = 2, time = 3, as_int = 6 (sfixed64).
                            sum.message(1) { point in
                                point.attributes(7, attributes)
                                point.fixed64(2, startNanos)
                                point.fixed64(3, endNanos)
                                point.fixed64(6, UInt64(bitPattern: value))
                            }
                        }
                        sum.unsigned(2, temporality)
                        sum.bool(3, true)
                    }
                }
            }
        }
    }
}
