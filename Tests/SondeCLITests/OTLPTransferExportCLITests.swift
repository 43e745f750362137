import Foundation
import Testing

/// `--otlp` for resume trials and soaks: spans per trial and leg, and the transfer and WebSocket
/// metrics, each compared with report.json by `Fixtures/otlp_check.py`; `--traceparent` on the
/// trial requests, seen by nginx.
@Suite(.serialized) struct OTLPTransferExportCLITests {
    typealias Receiver = OTLPExportCLITests.Receiver

    /// Download trials of every kind (abort, drop, kill): every trial arrives once as a span, every
    /// leg once as its child with report.json's range, bytes, duration, interruption, answer and
    /// outcome, and the resume metrics count the report's trials, legs and bytes.
    @Test func everyResumeTrialAndLegArrivesOnceWithTheReportsValues() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", target.http + "/bytes/2000000", "--trials", "3", "--seed", "7", "--interrupts-per-trial", "2",
                                        "--otlp", receiver.endpoint, "--output-dir", output], timeout: 180)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(!result.stderr.contains("OTLP"), "\(result.stderr)")
        let folder = try OTLPExportCLITests.runFolder(output)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let (summary, status) = try receiver.check(report: folder + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        #expect(summary["resumeTrialSpans"] as? Int == 3, "\(summary)")
        // A leg per interruption (two planned a trial), and the one that finishes.
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let trials = report["resumeTrials"] as? [[String: Any]] ?? []
        let interruptions = trials.reduce(0) { $0 + (($1["interruptions"] as? [Any])?.count ?? 0) }
        #expect(interruptions >= 6, "\(trials)")
        let legs = interruptions + 3
        #expect(summary["resumeLegs"] as? Int == legs, "\(summary)")
        #expect(summary["resumeLegSpans"] as? Int == legs && summary["resumeLegsMetric"] as? Int == legs, "\(summary)")
        // Every leg's from_byte, bytes, duration, outcome, status at least.
        #expect((summary["resumeLegValuesEqual"] as? Int ?? 0) >= legs * 5, "\(summary)")
        let names = summary["metricNames"] as? [String] ?? []
        #expect(names.contains("sonde.transfer.resume.trials") && names.contains("sonde.transfer.resume.bytes"), "\(names)")
    }

    /// A soak whose server drops each connection: the WebSocket metrics count report.json's pings,
    /// attempts (opened, failed), reconnects and disconnects by cause (otlp_check.py compares each).
    @Test func aSoaksMetricsCountTheReportsPingsAttemptsAndReconnects() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo?dropAfter=0.6", "--duration", "2.5s", "--connections", "2",
                                        "--ping-interval", "100ms", "--backoff-initial", "50ms", "--otlp", receiver.endpoint,
                                        "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let folder = try OTLPExportCLITests.runFolder(output)
        let (summary, status) = try receiver.check(report: folder + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let soak = try #require((report["soaks"] as? [[String: Any]])?.first)
        let attempts = (soak["attempts"] as? [Any])?.count ?? 0
        #expect(attempts >= 4 && summary["wsAttemptsMetric"] as? Int == attempts, "\(summary)")
        #expect(((soak["reconnects"] as? [String: Any])?["count"] as? Int ?? 0) >= 2, "\(soak["reconnects"] ?? "")")
        #expect((summary["wsPingDurationCount"] as? Int ?? 0) >= 5 && summary["wsPingDurationCount"] as? Int == summary["wsPingEvents"] as? Int,
                "\(summary)")
        let names = summary["metricNames"] as? [String] ?? []
        #expect(["sonde.websocket.reconnects", "sonde.websocket.disconnects", "sonde.websocket.pings"].allSatisfy(names.contains), "\(names)")
    }

    /// Upload trials: each create and append request is a leg span (POST, PATCH) with report.json's values.
    @Test func uploadLegsArriveAsSpans() throws {
        let target = try TargetProcess.get()
        let receiver = try Receiver()
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", target.uploads + "/ietf", "--upload", UploadCLITests.file, "--protocol", "ietf",
                                        "--trials", "3", "--interrupt-at", "75%", "--otlp", receiver.endpoint, "--output-dir", output],
                                       timeout: 180)
        #expect(result.status == 0, "\(result.stderr)")
        let folder = try OTLPExportCLITests.runFolder(output)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let (summary, status) = try receiver.check(report: folder + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        #expect(summary["resumeTrialSpans"] as? Int == 3, "\(summary)")
        let legs = summary["resumeLegs"] as? Int ?? 0
        #expect(legs >= 6 && summary["resumeLegSpans"] as? Int == legs, "\(summary)")
    }

    /// `--traceparent` on resume legs: nginx saw each leg's request carry `00-<trace>-<leg span>-01`,
    /// where the trace is the exported one and the span the leg's exported span (otlp_check.py
    /// compares each leg span's id with report.json's `spanId`); kill legs (a worker process) included.
    @Test func everyResumeLegCarriesItsOwnSpanAsTraceparent() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let receiver = try Receiver()
        defer { receiver.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", "http://127.0.0.1:\(nginx.http)/traced/3m.bin", "--trials", "3", "--interrupt-at", "50%",
                                        "--traceparent", "--otlp", receiver.endpoint, "--output-dir", output], timeout: 180)
        #expect(result.status == 0, "\(result.stderr)")
        let folder = try OTLPExportCLITests.runFolder(output)
        let (summary, status) = try receiver.check(report: folder + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        let trace = try #require(summary["traceId"] as? String)
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let trials = report["resumeTrials"] as? [[String: Any]] ?? []
        let legs = trials.flatMap { $0["legs"] as? [[String: Any]] ?? [] }
        let kinds = Set(trials.flatMap { ($0["interruptions"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String } })
        #expect(kinds == ["clientAbort", "connectionDrop", "processKill"], "\(kinds)")
        #expect(legs.count == 6, "\(legs)")
        let expected = legs.compactMap { $0["spanId"] as? String }.map { "00-\(trace)-\($0)-01" }
        #expect(expected.count == legs.count && Set(expected).count == legs.count, "\(legs)")
        // nginx's lines: method uri "range" status "traceparent"; the reference download and the
        // resumability check go without one.
        let lines = try String(contentsOfFile: nginx.directory + "/traced-access.log", encoding: .utf8).split(separator: "\n")
        let seen = lines.compactMap { line -> String? in
            let value = line.split(separator: " ").last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            return value == "-" ? nil : value
        }
        #expect(seen.sorted() == expected.sorted(), "\(lines)")
    }

    /// `--traceparent` on a soak's handshakes: the server saw each attempt's handshake carry
    /// `00-<trace>-<attempt span>-01`, the attempt's exported `sonde.ws.connection` span.
    @Test func everyWebSocketHandshakeCarriesItsAttemptsSpanAsTraceparent() throws {
        let receiver = try Receiver()
        defer { receiver.stop() }
        let directory = Harness.temporaryDirectory()
        let port = Harness.freePort()
        let server = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/ws_traced.py", "\(port)",
                                                        directory + "/handshakes.txt", "120"],
                                       stdout: directory + "/ws.out", stderr: directory + "/ws.err")
        defer { Harness.stop(server, signal: SIGTERM, seconds: 5) }
        #expect(Harness.waitFor(seconds: 30) { ((try? String(contentsOfFile: directory + "/ws.out", encoding: .utf8)) ?? "").contains("ready") })
        let output = directory + "/runs"
        let result = try Harness.sonde(["soak", "ws://127.0.0.1:\(port)/", "--duration", "2s", "--ping-interval", "200ms", "--connections", "2",
                                        "--traceparent", "--otlp", receiver.endpoint, "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let folder = try OTLPExportCLITests.runFolder(output)
        let (summary, status) = try receiver.check(report: folder + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        #expect(summary["wsConnectionSpans"] as? Int == 2, "\(summary)")
        #expect(summary["wsPingDurationCount"] as? Int == summary["wsPingEvents"] as? Int, "\(summary)")
        let trace = try #require(summary["traceId"] as? String)
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let attempts = (report["soaks"] as? [[String: Any]] ?? []).flatMap { $0["attempts"] as? [[String: Any]] ?? [] }
        let expected = attempts.compactMap { $0["spanId"] as? String }.map { "00-\(trace)-\($0)-01" }
        #expect(expected.count == 2, "\(attempts)")
        let seen = try String(contentsOfFile: directory + "/handshakes.txt", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(seen.sorted() == expected.sorted(), "\(seen)")
    }
}
