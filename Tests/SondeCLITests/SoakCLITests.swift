import Foundation
import Testing

/// `sonde soak` end to end: against the target's WebSocket endpoint (fault modes), against an
/// independent server (Python `websockets`) that is killed and restarted mid-soak, and through
/// Ctrl-C and SIGKILL. Every soak here lasts seconds.
@Suite(.serialized) struct SoakCLITests {
    /// The run folder under `output` (a failed expectation, not a crash of the test process, when there is none).
    private func onlyFolder(_ output: String) throws -> String {
        output + "/" + (try #require(try Harness.entries(of: output).first, "no run folder in \(output)"))
    }

    private func soaks(_ report: [String: Any]) throws -> [String: Any] {
        let soaks = try #require(report["soaks"] as? [[String: Any]])
        #expect(soaks.count == 1)
        return try #require(soaks.first)
    }

    @Test func aSoakWithDropsRecoversAndEveryFormatHoldsIt() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let prom = output + "/../soak-\(UUID().uuidString).prom"
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo?dropAfter=0.6&token=s3cret", "--duration", "2.5s",
                                        "--connections", "2", "--ping-interval", "100ms", "--message-rate", "40",
                                        "--backoff-initial", "50ms", "-H", "Authorization: Bearer hunter2",
                                        "--prom", prom, "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // A drop in the last moments may still be down when the soak ends: the verdict then says so.
        #expect(result.stdout.contains("✓ soak recovered") || (result.stdout.contains("✓ soak passed;") && result.stdout.contains("still down at the end")),
                "\(result.stdout)")
        #expect(result.stdout.contains("disconnects: eof"))
        let folder = try onlyFolder(output)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let text = try String(contentsOfFile: folder + "/report.json", encoding: .utf8)
        let soak = try soaks(try Harness.json(text))
        #expect(soak["passed"] as? Bool == true)
        let reconnects = try #require(soak["reconnects"] as? [String: Any])
        #expect((reconnects["count"] as? Int ?? 0) >= 2)
        let messages = try #require(soak["messages"] as? [String: Any])
        let sent = messages["sent"] as? Int ?? 0, received = messages["received"] as? Int ?? 0
        let lost = messages["lost"] as? Int ?? 0, corrupted = messages["corrupted"] as? Int ?? -1
        #expect(sent > 0 && sent == received + lost + corrupted && corrupted == 0)
        let attempts = try #require(soak["attempts"] as? [[String: Any]])
        #expect(attempts.allSatisfy { ($0["handshake"] as? [String: Any])?["connectMs"] != nil })
        // Secrets: neither the query token nor the header value reaches any file.
        for file in ["report.json", "report.html", "journal.jsonl", "junit.xml"] {
            let contents = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            #expect(!contents.contains("s3cret") && !contents.contains("hunter2"), "\(file) leaks a secret")
        }
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("WebSocket soak") && html.contains("Ping RTT over time") && html.contains("<svg"))
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        #expect(junit.contains("classname=\"sonde.soak\""))
        // The Prometheus file holds the soak's metrics, and passes the exposition-format checks.
        let (checked, _) = try CLIReportFormatTests.check(folder, prom: prom)
        #expect(checked.status == 0, "\(checked.stderr)")
        let metrics = try String(contentsOfFile: prom, encoding: .utf8)
        #expect(metrics.contains("sonde_ws_reconnects{url=") && metrics.contains("sonde_ws_ping_rtt_seconds{"))
    }

    @Test func ctrlCClosesEveryConnectionWith1000AndWritesTheReport() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo", "--duration", "30s", "--connections", "3",
                                        "--ping-interval", "100ms", "--output-dir", output], timeout: 30, interruptAfter: 1.5)
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        let soak = try soaks(try Harness.json(String(contentsOfFile: try onlyFolder(output) + "/report.json", encoding: .utf8)))
        let attempts = try #require(soak["attempts"] as? [[String: Any]])
        #expect(attempts.count == 3)
        for attempt in attempts {
            #expect(attempt["cause"] as? String == "runEnded")
            #expect(attempt["closeCode"] as? Int == 1000 && attempt["closedBy"] as? String == "client")
        }
    }

    @Test func aKilledSoakIsRebuiltFromItsJournal() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let pid = try Harness.spawn(Harness.sonde, ["soak", target.ws + "/ws/echo?dropAfter=0.5", "--duration", "20s",
                                                    "--ping-interval", "100ms", "--backoff-initial", "50ms", "--output-dir", output],
                                    stdout: "/dev/null", stderr: "/dev/null")
        // Killed once the journal holds three ended attempts (several drops and reconnects) and some ping samples.
        let journalled = Harness.waitFor(seconds: 30) {
            Harness.journalLines(under: output, containing: #""cause":"eof""#, #""type":"ws-attempt""#) >= 3
                && Harness.journalLines(under: output, containing: #""type":"ws-samples""#) >= 2
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(journalled, "the journal never held three dropped attempts")
        let folder = try onlyFolder(output)
        let rebuilt = try Harness.sonde(["report", folder])
        #expect(rebuilt.status == 130, "\(rebuilt.stdout)\(rebuilt.stderr)")
        #expect(rebuilt.stdout.contains("soak killed before it ended"))
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        #expect((report["run"] as? [String: Any])?["status"] as? String == "interrupted")
        let soak = try soaks(report)
        #expect(soak["finishedAt"] is NSNull)
        let attempts = try #require(soak["attempts"] as? [[String: Any]])
        #expect(attempts.count >= 3, "\(attempts.count) attempts")
        #expect(attempts.contains { $0["cause"] as? String == "eof" })
        #expect(((soak["pings"] as? [String: Any])?["rttMs"] as? [String: Any])?["count"] as? Int ?? 0 > 5)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)

        // A soak run cannot be merged with another run: said, not silently dropped.
        let merged = try Harness.sonde(["report", folder, folder, "--output-dir", Harness.temporaryDirectory()])
        #expect(merged.status == 64 && merged.stderr.contains("is a soak run"), "\(merged.stderr)")
    }

    @Test func anIndependentServerKilledAndRestartedMidSoak() throws {
        let port = Harness.freePort()
        let script = Harness.root + "/Tests/SondeCLITests/Fixtures/ws_echo_server.py"
        func startServer() throws -> pid_t {
            let log = NSTemporaryDirectory() + "sonde-ws-peer-\(UUID().uuidString).log"
            let pid = try Harness.spawn("/usr/bin/env", ["python3", script, "\(port)"], stdout: log, stderr: log)
            for _ in 0..<200 {
                if (try? String(contentsOfFile: log, encoding: .utf8))?.contains("ready") == true { return pid }
                usleep(50_000)
            }
            Harness.stop(pid, signal: SIGKILL)
            throw Harness.SpawnError(message: "the Python websockets server did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        var server = try startServer()
        defer { Harness.stop(server, signal: SIGKILL) }
        let output = Harness.temporaryDirectory()
        let soak = try Harness.spawn(Harness.sonde, ["soak", "ws://127.0.0.1:\(port)/", "--duration", "8s", "--ping-interval", "100ms",
                                                     "--message-rate", "20", "--backoff-initial", "100ms", "--backoff-max", "400ms",
                                                     "--output-dir", output],
                                     stdout: output + "/../soak-peer.out", stderr: "/dev/null")
        // The server is killed once the soak has journalled ping samples of a connection that is up,
        // and restarted after a refused reconnect has been journalled.
        let connected = Harness.waitFor(seconds: 30) { Harness.journalLines(under: output, containing: #""type":"ws-samples""#) >= 1 }
        #expect(connected, "the soak never journalled a ping sample")
        Harness.stop(server, signal: SIGKILL)
        let refusedOnce = Harness.waitFor(seconds: 30) {
            Harness.journalLines(under: output, containing: "connectionRefused", #""type":"ws-attempt""#) >= 1
        }
        #expect(refusedOnce, "no reconnect was refused while the server was down")
        server = try startServer()
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(30)
        while waitpid(soak, &status, WNOHANG) == 0 && Date() < deadline { usleep(50_000) }
        if Date() >= deadline { Harness.stop(soak, signal: SIGKILL) }
        #expect((status >> 8) & 0xff == 0, "exit status \(status)")

        let report = try Harness.json(String(contentsOfFile: try onlyFolder(output) + "/report.json", encoding: .utf8))
        let result = try soaks(report)
        let attempts = try #require(result["attempts"] as? [[String: Any]])
        let causes = attempts.compactMap { $0["cause"] as? String }
        #expect(causes.contains { $0 == "eof" || $0 == "tcpReset" }, "\(causes)")
        // While the server was down, reconnects were refused, then one got through.
        let refused = attempts.filter { ($0["error"] as? [String: Any])?["code"] as? String == "connectionRefused" }
        #expect(!refused.isEmpty, "\(attempts)")
        #expect(result["upAtEnd"] as? Int == 1)
        let last = try #require(attempts.last)
        #expect(((last["pings"] as? [String: Any])?["answered"] as? Int ?? 0) > 0, "pings answered after the restart")
        #expect(((last["messages"] as? [String: Any])?["received"] as? Int ?? 0) > 0, "echoes after the restart")
    }

    @Test(arguments: [
        (["soak", "http://127.0.0.1:1/"], "http:// is not supported here, only ws:// and wss://: did you mean ws://127.0.0.1:1/?"),
        (["soak", "ws://127.0.0.1:1/", "--jitter", "some"], "--jitter"),
        (["soak", "ws://127.0.0.1:1/", "--message-size", "4"], "--message-size"),
        (["soak", "ws://127.0.0.1:1/", "--duration", "soon"], "duration"),
        (["soak", "ws://127.0.0.1:1/", "--backoff-initial", "2s", "--backoff-max", "1s"], "maximum backoff"),
    ])
    func badInputIsAUsageError(arguments: [String], mentions: String) throws {
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(arguments + ["--output-dir", output])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(mentions), "\(result.stderr)")
        #expect((try Harness.entries(of: output)).isEmpty)
    }

    @Test func aConnectionThatGivesUpFailsTheSoak() throws {
        let target = try TargetProcess.get()
        let refused = target.refused.replacingOccurrences(of: "http://", with: "ws://")
        let result = try Harness.sonde(["soak", refused + "/", "--max-attempts", "2", "--backoff-initial", "10ms", "--duration", "5s",
                                        "--json", "--output-dir", Harness.temporaryDirectory()], timeout: 30)
        #expect(result.status == 1, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        #expect((report["run"] as? [String: Any])?["status"] as? String == "failed")
        let soak = try soaks(report)
        #expect(soak["passed"] as? Bool == false && soak["gaveUp"] as? Int == 1)
    }

    @Test func soakThresholdsDecideTheExitCode() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo?pongDelay=30", "--duration", "1s", "--ping-interval", "100ms",
                                        "--threshold", "ws.ping.p50<5ms", "--threshold", "ws.reconnects.count==0",
                                        "--output-dir", output], timeout: 30)
        #expect(result.status == 99, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✗ threshold ws.ping.p50<5ms"))
        #expect(result.stdout.contains("✓ threshold ws.reconnects.count==0"))
    }

    @Test func idleTimeoutDiscoveryFindsAFiveSecondCut() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo?idleTimeout=5", "--discover-idle-timeout", "--max-idle", "8s",
                                        "--pong-timeout", "2s", "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try Harness.json(String(contentsOfFile: try onlyFolder(output) + "/report.json", encoding: .utf8))
        let idle = try #require(try soaks(report)["idleTimeout"] as? [String: Any])
        let cut = try #require(idle["shortestCutS"] as? Double)
        #expect(abs(cut - 5) <= 1, "cut after \(cut) s")
        #expect((idle["longestSurvivedS"] as? Double ?? 0) < 5.5)
        #expect(result.stdout.contains("idle timeout: silences of"))
        // A discovery is no soak that recovered (issue 27 #13).
        #expect(result.stdout.contains("✓ idle-timeout discovery finished"), "\(result.stdout)")
        #expect(!result.stdout.contains("recovered"), "\(result.stdout)")
        // The HTML tells the discovery in its own terms (issue 27 #16): the time it ran, no
        // keepalive pings, the surviving probes' planned closes not painted as failures.
        let html = try String(contentsOfFile: try onlyFolder(output) + "/report.html", encoding: .utf8)
        let ran = try #require(html.range(of: #"the discovery ran (\d+\.\d+) s\."#, options: .regularExpression).map { html[$0] })
        let seconds = Double(ran.dropFirst("the discovery ran ".count).dropLast(3)) ?? 0
        #expect(seconds > 4 && seconds < 20, "\(ran)")
        #expect(html.contains("Idle-timeout discovery <code>"))
        #expect(!html.contains("Pings every") && !html.contains("connections for"), "the soak's unused settings")
        #expect(!html.contains("<td class=\"text fail\">probeFinished"), "a probe that survived is not a failure")
    }
}
