import Foundation
import Testing

/// `--otlp` and serve's `otlp:` against an OTLP/HTTP receiver written with the
/// `opentelemetry-proto` Python package (`Fixtures/otlp_receiver.py`, installed by `make test`),
/// compared with the run's report.json by `Fixtures/otlp_check.py`.
@Suite(.serialized) struct OTLPExportCLITests {
    /// The receiver on a free loopback port, recording into its own folder; stopped by `stop()`.
    final class Receiver {
        let directory = Harness.temporaryDirectory()
        let port = Harness.freePort()
        let pid: pid_t
        var endpoint: String { "http://127.0.0.1:\(port)" }

        /// - Parameters:
        ///   - failFirst: requests answered 503 (Retry-After: 0), or calls UNAVAILABLE, before it records any.
        ///   - grpc: an OTLP/gRPC receiver instead of OTLP/HTTP.
        ///   - redirectTo: a base URL every POST is answered 303 to (its path appended), recording nothing.
        init(failFirst: Int = 0, grpc: Bool = false, redirectTo: String? = nil) throws {
            let mode = grpc ? ["grpc"] : redirectTo.map { ["redirect=" + $0] } ?? []
            pid = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/otlp_receiver.py", "\(port)",
                                                     directory, "300", "\(failFirst)"] + mode,
                                    stdout: directory + "/receiver.out", stderr: directory + "/receiver.err")
            let out = directory + "/receiver.out"
            guard Harness.waitFor(seconds: 30, { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("ready") }) else {
                Harness.stop(pid, signal: SIGKILL)
                throw Harness.SpawnError(message: "the OTLP receiver did not start: "
                    + ((try? String(contentsOfFile: directory + "/receiver.err", encoding: .utf8)) ?? ""))
            }
        }

        func stop() { Harness.stop(pid, signal: SIGTERM, seconds: 5) }

        /// Compares what arrived with `report` (otlp_check.py): its summary, and its exit status.
        func check(report: String) throws -> (summary: [String: Any], status: Int32) {
            let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/otlp_check.py", report, directory])
            return (try Harness.json(result.stdout), result.status)
        }

        /// What arrived in the semantic conventions' terms, beside `report` (otlp_conventions.py).
        func conventions(report: String) throws -> [String: Any] {
            let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/otlp_conventions.py",
                                                          report, directory])
            #expect(result.status == 0, "\(result.stderr)")
            return try Harness.json(result.stdout)
        }

        /// Every request that reached the receiver, of any method (requests.jsonl).
        var requests: [[String: Any]] {
            let text = (try? String(contentsOfFile: directory + "/requests.jsonl", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? Harness.json(String($0)) }
        }
    }

    static func runFolder(_ output: String) throws -> String {
        let folders = try Harness.entries(of: output).filter { !$0.hasPrefix("history") }
        return output + "/" + (try #require(folders.first))
    }

    /// Every transaction of a run (redirect hops, cold and warm, h1 and h2 over TLS) arrives once as a
    /// client span whose phases and timing equal report.json's; the duration histograms count them
    /// all; the probed requests carried the run's traceparent.
    @Test func everyTransactionArrivesOnceWithTheReportsValues() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", target.http + "/redirect/2", target.https + "/bytes/2000", target.http + "/status/503",
                                        "--cacert", target.caFile, "--count", "3", "--otlp", receiver.endpoint, "--traceparent",
                                        "--output-dir", output], timeout: 120)
        // 503 fails its tasks: the run's status is the one it has without export.
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(!result.stderr.contains("OTLP"), "\(result.stderr)")
        let folder = try Self.runFolder(output)
        let (summary, status) = try receiver.check(report: folder + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        // 3 × (3 hops + 1 + 1) transactions, 9 tasks.
        #expect(summary["transactions"] as? Int == 15)
        #expect(summary["clientSpans"] as? Int == 15)
        #expect(summary["taskSpans"] as? Int == 9)
        #expect(summary["durationCount"] as? Int == 15)
        #expect((summary["phaseValuesEqual"] as? Int ?? 0) >= 15 * 4, "\(summary)")
        #expect((summary["timingValuesEqual"] as? Int ?? 0) >= 15 * 4, "\(summary)")
        let sent = summary["traceparentSent"] as? [String] ?? []
        #expect(sent.count == 1 && sent.first == summary["traceparentExpected"] as? String, "\(summary)")
    }

    /// The same over OTLP/gRPC (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`) to grpcio's server: every
    /// transaction arrives once with report.json's values, headers arrive as metadata, and a
    /// collector that answers UNAVAILABLE twice is retried.
    @Test func overGRPCEveryTransactionArrivesOnceWithTheReportsValues() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver(failFirst: 2, grpc: true)
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.run("/usr/bin/env", ["OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_HEADERS=X-Sonde-Test=grpc",
                                                      Harness.sonde, "probe", target.http + "/redirect/2", target.https + "/bytes/2000",
                                                      "--cacert", target.caFile, "--count", "2", "--otlp", receiver.endpoint,
                                                      "--output-dir", output], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.stderr.contains("OTLP"), "\(result.stderr)")
        let (summary, status) = try receiver.check(report: try Self.runFolder(output) + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        // 2 × (3 hops + 1) transactions.
        #expect(summary["transactions"] as? Int == 8 && summary["clientSpans"] as? Int == 8 && summary["durationCount"] as? Int == 8, "\(summary)")
        #expect((summary["phaseValuesEqual"] as? Int ?? 0) >= 8 * 4, "\(summary)")
        let records = try String(contentsOfFile: receiver.directory + "/traces.jsonl", encoding: .utf8)
        #expect(records.contains("\"x-sonde-test\": \"grpc\""), "\(records.prefix(300))")
    }

    /// A suite's run: each check's transactions arrive under a resource naming the check.
    @Test func aSuitesChecksAreResources() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let directory = Harness.temporaryDirectory()
        let suite = directory + "/suite.yaml"
        try """
            checks:
              - {name: plain, kind: probe, urls: ["\(target.http)/bytes/10"], count: 2}
              - {name: hops, kind: probe, urls: ["\(target.http)/redirect/1"], count: 1}
            """.write(toFile: suite, atomically: true, encoding: .utf8)
        let result = try Harness.sonde(["run", suite, "--otlp", receiver.endpoint, "--output-dir", directory + "/runs"])
        #expect(result.status == 0, "\(result.stderr)")
        let (summary, status) = try receiver.check(report: try Self.runFolder(directory + "/runs") + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        #expect(summary["checks"] as? [String] == ["hops", "plain"], "\(summary)")
        #expect((summary["spanChecks"] as? [String: Int]) == ["plain": 2, "hops": 2], "\(summary)")
    }

    /// A soak: a span per connection attempt, and a ping event per ping of the report's timeline with its RTT.
    @Test func aSoaksAttemptsAreSpansWithTheirPings() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo", "--duration", "2s", "--ping-interval", "200ms", "--connections", "2",
                                        "--otlp", receiver.endpoint, "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let (summary, status) = try receiver.check(report: try Self.runFolder(output) + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        #expect(summary["wsConnectionSpans"] as? Int == 2, "\(summary)")
        #expect((summary["wsPingEvents"] as? Int ?? 0) >= 10, "\(summary)")
    }

    /// A receiver that is down: the run's files are all written, its exit status is the same as
    /// without export, and the failure is said once on stderr.
    @Test func aReceiverThatIsDownLosesNothingOfTheRun() throws {
        let target = try TargetProcess.get()
        let down = "http://127.0.0.1:\(Harness.freePort())"
        let plainOutput = Harness.temporaryDirectory()
        let plain = try Harness.sonde(["probe", target.http + "/bytes/100", target.http + "/status/500", "--count", "2", "--output-dir", plainOutput])
        let output = Harness.temporaryDirectory()
        let started = Date()
        let result = try Harness.sonde(["probe", target.http + "/bytes/100", target.http + "/status/500", "--count", "2",
                                        "--otlp", down, "--output-dir", output])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == plain.status && result.status == 1, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "the OTLP export failed").count == 2, "\(result.stderr)")
        #expect(elapsed < 30, "the export held the run \(elapsed) s")
        let folder = try Self.runFolder(output)
        for file in ["report.json", "report.html", "report.har", "junit.xml", "journal.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: folder + "/" + file), "\(file) is missing")
        }
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let plainReport = try Harness.json(String(contentsOfFile: try Self.runFolder(plainOutput) + "/report.json", encoding: .utf8))
        let transactions = (report["summary"] as? [String: Any])?["transactions"] as? Int
        #expect(transactions == 4)
        #expect(transactions == (plainReport["summary"] as? [String: Any])?["transactions"] as? Int)
    }

    /// A collector that accepts connections and never answers: each signal's export ends at its
    /// timeout (`OTEL_EXPORTER_OTLP_TIMEOUT`, retries included), the run's status and files stand,
    /// and the message names the export's timeout settings, not the probe's `--timeout`.
    @Test func aSlowCollectorIsBoundedByItsTimeout() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let started = Date()
        let result = try Harness.run("/usr/bin/env", ["OTEL_EXPORTER_OTLP_TIMEOUT=1000", Harness.sonde, "probe", target.http + "/bytes/10",
                                                      "--otlp", target.blackhole, "--output-dir", output])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "the OTLP export failed").count == 2, "\(result.stderr)")
        #expect(result.stderr.contains("OTEL_EXPORTER_OTLP_TIMEOUT") && result.stderr.contains("otlp: {timeout:}")
                && !result.stderr.contains("--timeout"), "\(result.stderr)")
        // Two signals of at most 1 s each, and the run itself.
        #expect(elapsed < 10, "the export held the run \(elapsed) s")
        #expect(FileManager.default.fileExists(atPath: try Self.runFolder(output) + "/report.html"))
    }

    /// A collector answering 503 is retried (bounded) and the run then arrives whole; the
    /// `OTEL_EXPORTER_OTLP_*` variables alone turn export on, and their headers are sent.
    @Test func theEnvironmentAloneExportsAndRefusalsAreRetried() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver(failFirst: 2)
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.run("/usr/bin/env", ["OTEL_EXPORTER_OTLP_ENDPOINT=" + receiver.endpoint,
                                                      "OTEL_EXPORTER_OTLP_HEADERS=x-sonde-test=yes%20indeed",
                                                      Harness.sonde, "probe", target.http + "/bytes/10", "--count", "2", "--output-dir", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("OTLP"), "\(result.stderr)")
        let (summary, status) = try receiver.check(report: try Self.runFolder(output) + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        #expect(summary["clientSpans"] as? Int == 2)
        let headers = (summary["headers"] as? [[String: String]])?.first
        #expect(headers?["x-sonde-test"] == "yes indeed", "\(summary)")
    }

    /// Bad settings are usage errors before anything runs; gRPC says it is not carried out yet.
    @Test func badSettingsAreUsageErrors() throws {
        let output = Harness.temporaryDirectory()
        let scheme = try Harness.sonde(["probe", "http://127.0.0.1:1/", "--otlp", "ftp://127.0.0.1:4318", "--output-dir", output])
        #expect(scheme.status == 64, "\(scheme.stderr)")
        #expect(scheme.stderr.contains("--otlp"), "\(scheme.stderr)")
        let json = try Harness.run("/usr/bin/env", ["OTEL_EXPORTER_OTLP_PROTOCOL=http/json", Harness.sonde, "probe", "http://127.0.0.1:1/",
                                                    "--otlp", "http://127.0.0.1:4318", "--output-dir", output])
        #expect(json.status == 64, "\(json.stderr)")
        #expect(json.stderr.contains("OTEL_EXPORTER_OTLP_PROTOCOL") && json.stderr.contains("http/protobuf"), "\(json.stderr)")
        let grpcPath = try Harness.run("/usr/bin/env", ["OTEL_EXPORTER_OTLP_PROTOCOL=grpc", Harness.sonde, "probe", "http://127.0.0.1:1/",
                                                        "--otlp", "http://127.0.0.1:4317/v1/traces", "--output-dir", output])
        #expect(grpcPath.status == 64 && grpcPath.stderr.contains("not a gRPC endpoint"), "\(grpcPath.stderr)")
    }

    /// serve exports each scheduled run to `otlp:`; with the collector down, it counts
    /// `sonde_serve_export_errors_total` and says so once in its log (the endpoint's password
    /// redacted), and the runs go on.
    @Test func serveExportsEachRunAndCountsFailures() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let serve = try ServeCLITests.Serve(config: """
            vantage: lab-1
            otlp: {endpoint: \(receiver.endpoint), timeout: 5s}
            checks:
              - {name: api, kind: probe, urls: ["\(target.http)/bytes/10"], count: 2, every: 1s}
            """)
        defer { serve.stop() }
        #expect(Harness.waitFor(seconds: 60) {
            ((try? String(contentsOfFile: receiver.directory + "/traces.jsonl", encoding: .utf8)) ?? "").contains("lab-1")
        }, "\(serve.logText())\(serve.errorText())")
        serve.stop()
        let down = "http://collector:pa55-in-serve-log@127.0.0.1:\(Harness.freePort())"
        let failing = try ServeCLITests.Serve(config: """
            otlp: {endpoint: \(down), timeout: 2s}
            checks:
              - {name: api, kind: probe, urls: ["\(target.http)/bytes/10"], count: 1, every: 1s}
            """)
        defer { failing.stop() }
        var errors = 0.0
        _ = Harness.waitFor(seconds: 60) {
            errors = ServeCLITests.samples((try? ServeCLITests.fetch(failing.base + "/metrics").body) ?? "")["sonde_serve_export_errors_total{check=\"api\"}"] ?? 0
            return errors >= 4
        }
        #expect(errors >= 4, "\(failing.logText())")
        #expect(failing.logText().components(separatedBy: "the OTLP export failed").count == 2, "\(failing.logText())")
        #expect(!failing.logText().contains("pa55-in-serve-log") && !failing.errorText().contains("pa55-in-serve-log")
                && failing.logText().contains("collector:REDACTED@"), "\(failing.logText())")
        #expect((try ServeCLITests.runFolders(failing.output)).count >= 2)
    }
}
