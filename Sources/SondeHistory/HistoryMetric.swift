import SondeCore

/// A figure the history keeps per check and draws as a trend, one column of `checkResult` each
/// (the raw value is the column name). Units: `unit`.
///
/// Every figure but the intact ratio is the value a threshold on `thresholdPath` observes
/// (`ThresholdMetric.value`), so `sonde history` and `--threshold` never disagree on a number.
public enum HistoryMetric: String, CaseIterable, Codable, Sendable {
    case totalP50, totalP95, totalP99, errorRate, pingP99, reconnects, messagesLost, intactRatio

    /// The threshold metric whose observed value this is; nil for the intact ratio (resume
    /// trials intact ÷ trials, as the check's figures count them).
    public var thresholdPath: String? {
        switch self {
        case .totalP50: return "total.p50"
        case .totalP95: return "total.p95"
        case .totalP99: return "total.p99"
        case .errorRate: return "errors.rate"
        case .pingP99: return "ws.ping.p99"
        case .reconnects: return "ws.reconnects.count"
        case .messagesLost: return "ws.lost.count"
        case .intactRatio: return nil
        }
    }

    /// How people read it: `total p95`, `error rate`.
    public var label: String {
        switch self {
        case .totalP50: return "total p50"
        case .totalP95: return "total p95"
        case .totalP99: return "total p99"
        case .errorRate: return "error rate"
        case .pingP99: return "ping p99"
        case .reconnects: return "reconnects"
        case .messagesLost: return "messages lost"
        case .intactRatio: return "intact ratio"
        }
    }

    public enum Unit: String, Sendable { case milliseconds = "ms", fraction = "", count = "count" }

    public var unit: Unit {
        switch self {
        case .totalP50, .totalP95, .totalP99, .pingP99: return .milliseconds
        case .errorRate, .intactRatio: return .fraction
        case .reconnects, .messagesLost: return .count
        }
    }

    /// True when a larger value is worse (times, errors, reconnects, losses); false for the
    /// intact ratio, where a smaller one is.
    public var higherIsWorse: Bool { self != .intactRatio }

    /// The value as the terminal and the page show it: `12.5 ms`, `1.2%`, `3`.
    public func format(_ value: Double) -> String {
        switch unit {
        case .milliseconds: return HistoryFormat.milliseconds(value) + " ms"
        case .fraction: return HistoryFormat.percent(value)
        case .count: return HistoryFormat.count(value)
        }
    }
}
