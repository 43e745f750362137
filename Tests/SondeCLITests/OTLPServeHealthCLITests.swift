import Foundation
import Testing

/// serve's own health over OTLP: with `otlp:`, each scheduled run is followed by serve's
/// `sonde.serve.*` metrics, whose totals equal what its /metrics says about itself.
@Suite(.serialized) struct OTLPServeHealthCLITests {
    @Test func serveSendsItsOwnHealthAfterEachRun() throws {
        let target = try TargetProcess.get()
        let receiver = try OTLPExportCLITests.Receiver()
        defer { receiver.stop() }
        // Once a minute: each check runs once within its first 6 s, then not again for the test.
        let serve = try ServeCLITests.Serve(config: """
            vantage: lab-2
            otlp: {endpoint: \(receiver.endpoint), timeout: 5s}
            checks:
              - {name: good, kind: probe, urls: ["\(target.http)/bytes/10"], count: 1, every: 60s}
              - {name: bad, kind: probe, urls: ["\(target.http)/status/500"], count: 1, every: 60s}
            """)
        defer { serve.stop() }
        var health: [String: Any] = [:]
        func runs() -> [String: Int] { ((health["last"] as? [String: Any])?["sonde.serve.runs"] as? [String: Int]) ?? [:] }
        let arrived = Harness.waitFor(seconds: 60) {
            guard let result = try? Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/otlp_serve_health.py",
                                                                 receiver.directory]),
                  let parsed = try? Harness.json(result.stdout) else { return false }
            health = parsed
            return runs().values.reduce(0, +) >= 2
        }
        #expect(arrived, "\(health)\(serve.logText())\(serve.errorText())")
        let metrics = ServeCLITests.samples(try ServeCLITests.fetch(serve.base + "/metrics").body)
        // The last export's totals are /metrics' (no run since: the next is a minute away).
        #expect(runs() == ["sonde.check=good,sonde.run.result=passed": 1, "sonde.check=bad,sonde.run.result=failed": 1], "\(health)")
        for (check, result) in [("good", "passed"), ("bad", "failed")] {
            let series = metrics.filter { $0.key.hasPrefix("sonde_serve_runs_total{") && $0.key.contains("check=\"\(check)\"") }
            #expect(series.count == 1 && series.first?.key.contains("result=\"\(result)\"") == true && series.first?.value == 1,
                    "\(series)")
        }
        let last = health["last"] as? [String: Any] ?? [:]
        #expect((last["sonde.serve.last_run.success"] as? [String: Double]) == ["sonde.check=good": 1, "sonde.check=bad": 0], "\(last)")
        #expect((last["sonde.serve.export.errors"] as? [String: Int]) == ["sonde.check=good": 0, "sonde.check=bad": 0], "\(last)")
        let durations = last["sonde.serve.last_run.duration"] as? [String: Double] ?? [:]
        #expect(durations.count == 2 && durations.values.allSatisfy { $0 > 0 && $0 < 60 }, "\(last)")
        #expect((health["temporality"] as? [String: String])?["sonde.serve.runs"] == "AGGREGATION_TEMPORALITY_CUMULATIVE", "\(health)")
        #expect((health["resource"] as? [String: Any])?["sonde.vantage"] as? String == "lab-2", "\(health)")
    }
}
