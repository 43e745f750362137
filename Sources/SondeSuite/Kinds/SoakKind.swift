import SondeCore

/// `kind: soak` (`sonde soak`): WebSocket connections held for a while, or idle-timeout discovery.
public enum SoakKind: CheckKind {
    public typealias Spec = SoakSpec

    public static let name = "soak"


    /// The `ws.*` metrics only.
    public static func judges(_ threshold: Threshold) -> Bool { threshold.metric.path.hasPrefix("ws.") }

    public static let metricsHint = "a soak check is judged by the ws.* metrics (ws.ping.p95, ws.reconnects.count, …)"

    /// The soak's duration (or idle-timeout discovery's longest silence) and a minute more, at
    /// least ten minutes, at most `CheckKinds.runTimeoutRange`'s end.
    public static func defaultRunTimeout(for spec: SoakSpec) -> Double {
        let length = max(spec.duration?.seconds ?? SoakSpec.defaults.duration, spec.discoveryMaxIdle ?? 0)
        return min(CheckKinds.runTimeoutRange.upperBound, max(600, length + 60))
    }
}
