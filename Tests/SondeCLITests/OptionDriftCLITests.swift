import Foundation
import Testing

/// What had drifted between the commands: every duration option takes the same units (one
/// parser: `5s` works everywhere, a bare number is seconds), `--baseline` is honoured by upload
/// trials and `sonde report` (history baselines, `--history`) too and refused by `analyze`, and
/// only a `--capture` in option position is rewritten.
@Suite struct OptionDriftCLITests {
    /// `sonde probe --connect-timeout 5s` was refused while `sonde soak --connect-timeout 5s` worked.
    @Test func probeTimeoutsTakeUnits() throws {
        let target = try TargetProcess.get()
        let ok = try Harness.sonde(["probe", "--timeout", "5s", "--connect-timeout", "5s", "--json",
                                    "--output-dir", Harness.temporaryDirectory(), target.http + "/bytes/10"])
        #expect(ok.status == 0, "\(ok.stderr)")
        // 500ms is half a second, not 500 seconds: a 1.5 s answer times out.
        let slow = try Harness.sonde(["probe", "--timeout", "500ms", "--json", "--output-dir", Harness.temporaryDirectory(),
                                      target.http + "/delay/1500"], timeout: 30)
        #expect(slow.status == 1, "\(slow.stderr)")
        let error = (try Harness.json(slow.stdout)["probes"] as? [[String: Any]])?.first?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "timedOut", "\(error ?? [:])")
        // A bare number is seconds, as everywhere.
        let bare = try Harness.sonde(["probe", "--timeout", "5", "--json", "--output-dir", Harness.temporaryDirectory(),
                                      target.http + "/bytes/10"])
        #expect(bare.status == 0, "\(bare.stderr)")
    }

    @Test func everySoakDurationTakesUnits() throws {
        let target = try TargetProcess.get()
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo", "--duration", "1s", "--ramp", "0s", "--ping-interval", "200ms",
                                        "--pong-timeout", "5s", "--connect-timeout", "5s", "--backoff-initial", "1s", "--backoff-max", "5s",
                                        "--stable-after", "5s", "--message-size", "1KiB", "--message-rate", "5",
                                        "--output-dir", Harness.temporaryDirectory()], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test func everyResumeDurationTakesUnits() throws {
        let target = try TargetProcess.get()
        let result = try Harness.sonde(["resume", target.http + "/bytes/100000", "--check", "--stall-timeout", "5s",
                                        "--connect-timeout", "5s", "--backoff-initial", "200ms", "--backoff-max", "5s",
                                        "--output-dir", Harness.temporaryDirectory()], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    /// `--baseline` was silently dropped for upload trials: a baseline that does not exist is now
    /// the usage error it is for every other command, and one that exists is compared.
    @Test func uploadTrialsHonourTheBaseline() throws {
        let target = try TargetProcess.get()
        let file = NSTemporaryDirectory() + "sonde-drift-upload-\(getpid()).bin"
        FileManager.default.createFile(atPath: file, contents: Data(repeating: 7, count: 50_000))
        defer { unlink(file) }
        let upload = ["resume", target.uploads + "/tus", "--upload", file, "--protocol", "tus", "--trials", "1",
                      "--interrupts-per-trial", "0"]
        let missing = try Harness.sonde(upload + ["--baseline", "/nonexistent/run", "--output-dir", Harness.temporaryDirectory()])
        #expect(missing.status == 64 && missing.stderr.contains("/nonexistent/run"), "\(missing.status) \(missing.stderr)")
        let first = Harness.temporaryDirectory()
        #expect(try Harness.sonde(upload + ["--output-dir", first]).status == 0)
        let baseline = first + "/" + (try Harness.entries(of: first)[0])
        let second = try Harness.sonde(upload + ["--baseline", baseline, "--json", "--output-dir", Harness.temporaryDirectory()])
        #expect(second.status == 0, "\(second.stderr)")
        let report = try Harness.json(second.stdout)
        #expect(report["baseline"] != nil && !(report["baseline"] is NSNull), "the comparison with the baseline run is in the report")
    }

    /// `sonde analyze --baseline` was accepted and ignored: an analysis has no phases to compare,
    /// so it is refused (64) and no run folder is made.
    @Test func analyzeRefusesABaseline() throws {
        let capture = Harness.root + "/Tests/SondeCaptureTests/Corpus/tls-curl-loopback.pcap"
        let output = Harness.temporaryDirectory()
        let refused = try Harness.sonde(["analyze", capture, "--baseline", output, "--output-dir", output])
        #expect(refused.status == 64 && refused.stderr.contains("--baseline"), "\(refused.status) \(refused.stderr)")
        #expect(((try? Harness.entries(of: output)) ?? []).isEmpty, "no run folder is left")
        #expect(try Harness.sonde(["analyze", capture, "--output-dir", output]).status == 0)
    }

    /// `sonde report --baseline history:CHECK:median:N` read only a run folder and `report` had no
    /// `--history`: now both work as on the run commands, and the rebuilt run is added to `--history`.
    @Test func reportComparesWithTheHistoryAndRecordsIntoIt() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let database = output + "/history.sqlite"
        let url = target.http + "/bytes/300"
        for _ in 0..<2 {
            let recorded = try Harness.sonde(["probe", "--count", "2", url, "--output-dir", output, "--history", database])
            #expect(recorded.status == 0, "\(recorded.stderr)")
        }
        let folder = output + "/" + (try #require(try Harness.entries(of: output).filter { $0.contains("-probe-") }.sorted().last))
        let spec = "history:probe \(url):median:2"
        let compared = try Harness.sonde(["report", folder, "--baseline", spec, "--history", database, "--json",
                                          "--threshold", "total.p95.delta<100000%"])
        #expect(compared.status == 0, "\(compared.status) \(compared.stderr)")
        let baseline = (try? Harness.json(compared.stdout))?["baseline"] as? [String: Any]
        #expect(baseline?["baselineRunID"] as? String == spec, "\(String(describing: baseline))")
        // The default history is <output-dir>/history.sqlite, as for the run commands.
        let byDefault = try Harness.sonde(["report", folder, "--baseline", spec, "--output-dir", output])
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        let malformed = try Harness.sonde(["report", folder, "--baseline", "history:x:mean:3"])
        #expect(malformed.status == 64 && malformed.stderr.contains("history:CHECK:median:N"), "\(malformed.stderr)")

        let other = Harness.temporaryDirectory() + "/other.sqlite"
        let rebuilt = try Harness.sonde(["report", folder, "--history", other])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let listed = try Harness.sonde(["history", "--json", "--history", other])
        let runs = (try? Harness.json(listed.stdout))?["runs"] as? [[String: Any]] ?? []
        #expect(runs.count == 1 && runs.first?["runId"] as? String == (folder as NSString).lastPathComponent, "\(listed.stdout) \(listed.stderr)")
    }

    /// Every argv token `--capture` was rewritten `--capture=required`, arguments after `--` too:
    /// a capture file named `--capture` could not be analysed.
    @Test func aCaptureTokenAfterTheTerminatorIsAnArgument() throws {
        let directory = Harness.temporaryDirectory()
        try FileManager.default.copyItem(atPath: Harness.root + "/Tests/SondeCaptureTests/Corpus/tls-curl-loopback.pcap",
                                         toPath: directory + "/--capture")
        let result = try Harness.run("/bin/sh", ["-c", "cd \"$1\" && exec \"$0\" analyze --json --output-dir out -- --capture",
                                                 Harness.sonde, directory])
        #expect(result.status == 0, "\(result.status) \(result.stderr)")
        #expect(((try? Harness.json(result.stdout))?["captures"] as? [[String: Any]])?.count == 1)
    }

    /// A soak whose engine cannot be set up (a --cacert that is not PEM) is a usage error that
    /// leaves no half-made run folder behind.
    @Test func aSoakThatCannotStartLeavesNoRunFolder() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let notPEM = output + "-not.pem"
        FileManager.default.createFile(atPath: notPEM, contents: Data("not a certificate\n".utf8))
        defer { unlink(notPEM) }
        let result = try Harness.sonde(["soak", target.wss + "/ws/echo", "--cacert", notPEM, "--duration", "1s", "--output-dir", output])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(((try? Harness.entries(of: output)) ?? []).isEmpty, "no run folder is left")
    }

    /// `sonde analyze` ended with the JSON's path and `sonde report` with "wrote …" lines: every
    /// command that writes a run now ends as the run commands do, the HTML report's path last.
    @Test func analyzeAndReportEndWithTheReportPath() throws {
        let output = Harness.temporaryDirectory()
        let analyzed = try Harness.sonde(["analyze", Harness.root + "/Tests/SondeCaptureTests/Corpus/absurd-length.pcap", "--output-dir", output])
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first { $0.contains("-analyze-") }))
        #expect(analyzed.stdout.split(separator: "\n").last.map(String.init) == "report: " + folder + "/report.html", "\(analyzed.stdout)")
        let rebuilt = try Harness.sonde(["report", folder])
        #expect(rebuilt.stdout.split(separator: "\n").last.map(String.init) == "report: " + folder + "/report.html", "\(rebuilt.stdout)")
    }
}
