import SondeCore
import SondeReport
import SondeRun
import SondeSuite

/// `kind: sse` (`sonde stream`): Server-Sent Events read as EventSource does (docs/sse.md).
public enum SSEKind: RunnableKind {
    public typealias Spec = StreamSpec

    public static let name = "sse"

    public static func runner(for spec: StreamSpec, settings: RunSettings) throws(SpecProblem) -> any CheckRunner {
        StreamCheckRunner(options: spec.makeOptions(), displayURL: settings.redactor.redact(url: spec.url))
    }

    /// Its own `sse.*` metrics only (`StreamMetrics`).
    public static func judges(_ threshold: Threshold) -> Bool {
        threshold.metric.isDeclared && metrics.contains { $0.paths.contains(threshold.metric.path) }
    }

    public static let metricsHint = "an sse check is judged by the sse.* metrics (" + StreamMetrics.written + ")"

    public static var metrics: [DeclaredMetric] { StreamMetrics.declared }

    public static var sectionRenderer: (any ReportSectionRenderer)? { StreamSectionRenderer() }

    /// The streams' duration and a minute more, at least ten minutes, at most
    /// `CheckKinds.runTimeoutRange`'s end.
    public static func defaultRunTimeout(for spec: StreamSpec) -> Double {
        let length = spec.duration?.seconds ?? StreamSpec.defaults.duration
        return min(CheckKinds.runTimeoutRange.upperBound, max(600, length + 60))
    }
}
