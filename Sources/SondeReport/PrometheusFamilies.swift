/// Metric families for Prometheus text exposition (format 0.0.4), in the order first added, each
/// written once with its samples together (as the format requires); a family without samples is
/// left out. Label values are escaped as the format requires (backslash, double quote, newline).
///
/// sonde's own writer rather than swift-prometheus's registry: the series here are a finished
/// run's figures, rebuilt whole from a report, not live counters; one writer keeps report files
/// and `sonde serve`'s `/metrics` in one format.
public struct PrometheusFamilies: Sendable {
    public typealias Sample = (labels: [(String, String)], value: Double)

    /// One line of a family: its sample name is the family's name and `suffix` (`_bucket`, `_sum`,
    /// `_count` of a histogram; `_sum`, `_count` of a summary; "" for a gauge, counter or quantile).
    private typealias Line = (suffix: String, labels: [(String, String)], value: Double)

    private var order: [String] = []
    private var families: [String: (type: String, help: String, lines: [Line])] = [:]

    public init() {}

    /// Adds `samples` to family `name` (made with `type` and `help` the first time).
    public mutating func add(_ name: String, _ type: String, _ help: String, _ samples: [Sample]) {
        append(name, type, help, samples.map { ("", $0.labels, $0.value) })
    }

    private mutating func append(_ name: String, _ type: String, _ help: String, _ lines: [Line]) {
        if families[name] == nil {
            order.append(name)
            families[name] = (type, help, [])
        }
        families[name]?.lines += lines
    }

    /// One series of a histogram: per upper bound (seconds or whatever the family measures,
    /// ascending, +Inf last) the count of values at or below it (cumulative, so never decreasing),
    /// the values' sum and their count (the +Inf bucket's).
    public struct HistogramSeries: Sendable {
        public var labels: [(String, String)]
        public var buckets: [(upperBound: Double, cumulativeCount: Int)]
        public var sum: Double
        public var count: Int

        public init(labels: [(String, String)], buckets: [(upperBound: Double, cumulativeCount: Int)], sum: Double, count: Int) {
            self.labels = labels
            self.buckets = buckets
            self.sum = sum
            self.count = count
        }
    }

    /// Adds a histogram family `name`: `name_bucket{…,le="…"}`, `name_sum`, `name_count` per series.
    public mutating func addHistogram(_ name: String, _ help: String, _ series: [HistogramSeries]) {
        var lines: [Line] = []
        for one in series {
            for bucket in one.buckets {
                lines.append(("_bucket", one.labels + [("le", Self.format(bucket.upperBound))], Double(bucket.cumulativeCount)))
            }
            lines.append(("_sum", one.labels, one.sum))
            lines.append(("_count", one.labels, Double(one.count)))
        }
        append(name, "histogram", help, lines)
    }

    /// One series of a summary: per quantile (its label value, e.g. "0.95"; "1" for the maximum)
    /// the value, and the observations' sum and count.
    public struct SummarySeries: Sendable {
        public var labels: [(String, String)]
        public var quantiles: [(quantile: String, value: Double)]
        public var sum: Double
        public var count: Int

        public init(labels: [(String, String)], quantiles: [(quantile: String, value: Double)], sum: Double, count: Int) {
            self.labels = labels
            self.quantiles = quantiles
            self.sum = sum
            self.count = count
        }
    }

    /// Adds a summary family `name`: `name{…,quantile="…"}`, `name_sum`, `name_count` per series
    /// (the only kind of family whose samples may carry `quantile`).
    public mutating func addSummary(_ name: String, _ help: String, _ series: [SummarySeries]) {
        var lines: [Line] = []
        for one in series {
            for quantile in one.quantiles { lines.append(("", one.labels + [("quantile", quantile.quantile)], quantile.value)) }
            lines.append(("_sum", one.labels, one.sum))
            lines.append(("_count", one.labels, Double(one.count)))
        }
        append(name, "summary", help, lines)
    }

    /// Every family of `other` added after these.
    public mutating func add(_ other: PrometheusFamilies) {
        for name in other.order {
            guard let family = other.families[name] else { continue }
            append(name, family.type, family.help, family.lines)
        }
    }

    /// These families with `label` first on every sample that does not have a label of that name.
    public func labelled(_ label: (String, String)) -> PrometheusFamilies {
        var result = self
        for name in order {
            result.families[name]?.lines = families[name]?.lines.map { line -> Line in
                line.labels.contains { $0.0 == label.0 } ? line : (line.suffix, [label] + line.labels, line.value)
            } ?? []
        }
        return result
    }

    /// The names of the families, in order.
    public var names: [String] { order }

    public var text: String {
        var out = ""
        for name in order {
            guard let family = families[name], !family.lines.isEmpty else { continue }
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for line in family.lines {
                let labels = line.labels.isEmpty ? "" :
                    "{" + line.labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                out += "\(name)\(line.suffix)\(labels) \(Self.format(line.value))\n"
            }
        }
        return out
    }

    public static func escapeLabel(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
