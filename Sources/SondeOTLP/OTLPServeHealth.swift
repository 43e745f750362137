import Foundation
import SondeCore

/// `sonde serve`'s own health as OTLP metrics: the figures its `/metrics` gives about itself
/// (`sonde_serve_*`), sent after each scheduled run to the metrics endpoint of serve's `otlp:`.
///
/// Counters are cumulative sums since serve started (`startedAt`), so a collector sees the same
/// totals `/metrics` shows; per-check latest-run figures are gauges:
/// - `sonde.serve.runs` (`{run}`) by `sonde.check`, `sonde.run.result`;
/// - `sonde.serve.skipped_runs`, `sonde.serve.write.errors`, `sonde.serve.export.errors` (`{run}`) by `sonde.check`;
/// - `sonde.serve.probes` (`{probe}`) by `sonde.module`, `sonde.probe.result`;
/// - `sonde.serve.last_run.duration` (gauge, `s`), `sonde.serve.last_run.success` (gauge, 1 or 0),
///   `sonde.serve.schedule.lateness` (gauge, `s`) by `sonde.check`;
/// (`sonde_serve_checks_in_flight` is not sent: it is read from the scheduler at a scrape, and
/// each export follows a run's end.)
/// Resource: the service (`OTLPResourceSettings`: `service.name`, `service.version`,
/// `service.instance.id`, the SDK variables' attributes), `sonde.command=serve`, `sonde.vantage`.
public struct OTLPServeHealth: Sendable {
    public struct Check: Sendable {
        public var name: String
        /// result → runs.
        public var runs: [String: Int]
        public var skipped: Int
        public var writeErrors: Int
        public var exportErrors: Int
        /// The latest run: its duration (s), whether it passed, how late it started (s); nil before the first.
        public var lastDuration: Double?
        public var lastPassed: Bool?
        public var lastLateness: Double?

        public init(name: String, runs: [String: Int], skipped: Int, writeErrors: Int, exportErrors: Int,
                    lastDuration: Double?, lastPassed: Bool?, lastLateness: Double?) {
            self.name = name
            self.runs = runs
            self.skipped = skipped
            self.writeErrors = writeErrors
            self.exportErrors = exportErrors
            self.lastDuration = lastDuration
            self.lastPassed = lastPassed
            self.lastLateness = lastLateness
        }
    }

    public var checks: [Check]
    /// "module\0result" → count, as serve keeps them; written as (module, result).
    public var probes: [(module: String, result: String, count: Int)]
    /// When serve started, Unix seconds.
    public var startedAt: Double
    public var vantage: String?

    public init(checks: [Check], probes: [(module: String, result: String, count: Int)], startedAt: Double, vantage: String?) {
        self.checks = checks
        self.probes = probes
        self.startedAt = startedAt
        self.vantage = vantage
    }

    /// The `ExportMetricsServiceRequest` at `now` (Unix seconds), under `service`'s resource.
    func request(now: Double, service: OTLPResourceSettings) -> [UInt8] {
        var set = OTLPMetricSet()
        set.cumulative = true
        for check in checks {
            let name = OTLPAttribute.string("sonde.check", check.name)
            for (result, count) in check.runs.sorted(by: { $0.key < $1.key }) {
                set.add("sonde.serve.runs", unit: "{run}", description: "Scheduled runs by check and result (passed, failed, error, interrupted, timeout).",
                        Int64(count), [name, .string("sonde.run.result", result)])
            }
            set.add("sonde.serve.skipped_runs", unit: "{run}", description: "Starts a check missed because its previous run overran them.",
                    Int64(check.skipped), [name])
            set.add("sonde.serve.write.errors", unit: "{run}", description: "Runs whose report or history could not be written.",
                    Int64(check.writeErrors), [name])
            set.add("sonde.serve.export.errors", unit: "{signal}", description: "OTLP exports of scheduled runs that failed after their bounded retries.",
                    Int64(check.exportErrors), [name])
            if let duration = check.lastDuration {
                set.set("sonde.serve.last_run.duration", unit: "s", description: "How long each check's latest run took.", duration, [name])
            }
            if let passed = check.lastPassed {
                set.set("sonde.serve.last_run.success", unit: "1", description: "Whether each check's latest run passed (1) or not (0).",
                        passed ? 1 : 0, [name])
            }
            if let lateness = check.lastLateness {
                set.set("sonde.serve.schedule.lateness", unit: "s", description: "How late the scheduler started each check's latest run.",
                        lateness, [name])
            }
        }
        for probe in probes {
            set.add("sonde.serve.probes", unit: "{probe}", description: "/probe requests answered, by module and result.", Int64(probe.count),
                    [.string("sonde.module", probe.module), .string("sonde.probe.result", probe.result)])
        }
        let start = Self.nanos(startedAt), end = Self.nanos(now)
        var own: [OTLPAttribute] = [.string("sonde.command", "serve")]
        if let vantage { own.append(.string("sonde.vantage", vantage)) }
        let attributes = service.attributes(adding: own)
        var writer = ProtobufWriter()
        writer.message(1) { resourceMetrics in
            resourceMetrics.message(1) { $0.attributes(1, attributes) }
            resourceMetrics.message(2) { scope in
                OTLPResource.writeScope(1, into: &scope)
                set.write(2, into: &scope, startNanos: start, endNanos: end)
            }
        }
        return writer.bytes
    }

    /// Unix seconds as nanoseconds (clamped: negative or huge values of a wrong clock stay in range).
    static func nanos(_ seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, 9e9) * 1e9)
    }

    /// Sends the health to `settings.metrics` (bounded: `OTLPSender`); the failure in a sentence, or nil.
    /// Threading: blocks the calling thread; call it off Swift's cooperative pool.
    public func export(settings: OTLPSettings) -> String? {
        let sent = OTLPSender(target: settings.metrics).send(request(now: Date().timeIntervalSince1970, service: settings.resource))
        return sent.failure.map { "metrics to \(settings.metrics.shownURL): \($0)" }
    }
}
