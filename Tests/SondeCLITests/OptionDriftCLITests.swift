import Foundation
import Testing

/// What had drifted between the commands: every duration option takes the same units (one
/// parser: `5s` works everywhere, a bare number is seconds), and `--baseline` is honoured by
/// upload trials too.
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
        let baseline = first + "/" + (try FileManager.default.contentsOfDirectory(atPath: first)[0])
        let second = try Harness.sonde(upload + ["--baseline", baseline, "--json", "--output-dir", Harness.temporaryDirectory()])
        #expect(second.status == 0, "\(second.stderr)")
        let report = try Harness.json(second.stdout)
        #expect(report["baseline"] != nil && !(report["baseline"] is NSNull), "the comparison with the baseline run is in the report")
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
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []).isEmpty, "no run folder is left")
    }
}
