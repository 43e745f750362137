/// A threshold metric a check kind declares itself (`sse.gap.p95`, `sse.reconnects.count`),
/// beside the catalogue `ThresholdMetric` knows (phases, errors, `ws.*`): the kind names it and
/// its unit, and its check records the values (`DeclaredMetricValues`), so that a new kind's
/// metrics need no change here.
///
/// Invariant: `name` is lower-case dotted words (`[a-z0-9]`, at least two), not starting with a
/// namespace of the catalogue's (`ThresholdMetric.namespaces`). The unit follows from the path's
/// last segment (`ThresholdMetric.declaredKind`), so a journal's expressions read back without the
/// kinds: an aggregation but `count` is a duration (ms), `count` a count, anything else a rate
/// (a share, 0…1, written as a fraction or with %).
public struct DeclaredMetric: Sendable, Equatable {
    /// The path as thresholds write it, lower-case (`sse.burstindex`), without the aggregation of a distribution.
    public let name: String
    /// Whether the name takes an aggregation (`sse.gap.p95`).
    public let isDistribution: Bool

    /// A plain value: a count when it ends in `.count`, else a rate (0…1).
    public static func value(_ name: String) -> DeclaredMetric {
        DeclaredMetric(name: name.lowercased(), isDistribution: false)
    }

    /// A distribution in ms, judged by an aggregation (`p95`, `max`, `count`, …).
    public static func distribution(_ name: String) -> DeclaredMetric {
        DeclaredMetric(name: name.lowercased(), isDistribution: true)
    }

    /// Every path a threshold may write for this metric (`sse.gap.p50`, … or `sse.burstindex`).
    public var paths: [String] { isDistribution ? ThresholdMetric.aggregations.map { name + "." + $0 } : [name] }

    /// `text` in words for messages and docs: `sse.gap.<aggregation>`.
    public var written: String { isDistribution ? name + ".<aggregation>" : name }

    /// The unit of a recorded value at `path` (lower-case, as `DeclaredMetricValues` holds it), from
    /// its last segment as thresholds read it: what exports that carry the values (OTLP) convert by.
    public static func unit(ofPath path: String) -> ThresholdMetric.Kind {
        ThresholdMetric.declaredKind(last: path.split(separator: ".").last.map(String.init) ?? path)
    }
}

/// Which declared metrics a threshold may name when it is parsed.
public enum DeclaredMetrics: Sendable {
    /// Those listed (the registered kinds' or one kind's): any other is an unknown metric.
    case listed([DeclaredMetric])
    /// Any path of the declared form, its unit from its last segment: for expressions sonde
    /// wrote itself after checking them (a journal's check lines).
    case any
}

/// The values of declared metrics one check recorded, by path (`sse.gap.p95` → ms), lower-case;
/// `check` is the suite check's name (nil for a plain command).
public struct DeclaredMetricValues: Sendable, Equatable, Codable {
    public var check: String?
    public var metrics: [String: Double]
    /// The URL the item measured, when it names one (redacted as the report holds it).
    public var url: String?

    public init(check: String?, metrics: [String: Double], url: String? = nil) {
        self.check = check
        self.metrics = metrics
        self.url = url
    }
}
