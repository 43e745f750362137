import SondeCore

/// `kind: probe` (`sonde probe`): URLs fetched through libcurl, each transaction timed.
public enum ProbeKind: CheckKind {
    public typealias Spec = ProbeSpec

    public static let name = "probe"


    /// Every metric of SondeCore's catalogue but the soak's `ws.*`: phases, errors, reuse, tasks
    /// (no kind's own metric, `ThresholdMetric.isDeclared`).
    public static func judges(_ threshold: Threshold) -> Bool { !threshold.metric.path.hasPrefix("ws.") && !threshold.metric.isDeclared }

    public static let metricsHint = "a probe check is judged by the probe metrics (phases, errors, reuse, tasks), not ws.*"
}
