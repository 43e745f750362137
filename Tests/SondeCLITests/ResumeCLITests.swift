import Foundation
import Testing

/// `sonde resume` end to end: trials of every interruption kind (a real SIGKILLed worker
/// process among them) against the target and against nginx serving a static file, verdicts of
/// misbehaving modes, a lying server that must fail the run, secrets, and usage errors.
@Suite(.serialized) struct ResumeCLITests {
    private func onlyFolder(_ output: String) throws -> String {
        output + "/" + (try Harness.entries(of: output)[0])
    }

    private func trials(_ report: [String: Any]) throws -> [[String: Any]] {
        try #require(report["resumeTrials"] as? [[String: Any]])
    }

    @Test func trialsOfEveryKindAgainstTheTargetAreIntactAndEveryFormatHoldsThem() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let prom = output + "/../resume-\(UUID().uuidString).prom"
        let result = try Harness.sonde(["resume", target.http + "/bytes/2000000?token=s3cret", "--trials", "6", "--seed", "7",
                                        "-H", "Authorization: Bearer hunter2", "--prom", prom, "--output-dir", output], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ resumable"))
        #expect(result.stdout.contains("6/6 intact"))
        let folder = try onlyFolder(output)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let all = try trials(report)
        #expect(all.count == 6)
        var kinds: Set<String> = []
        for trial in all {
            #expect(trial["intact"] as? Bool == true, "\(trial)")
            #expect(trial["bytesWasted"] as? Int == 0)
            let interruptions = try #require(trial["interruptions"] as? [[String: Any]])
            #expect(interruptions.count == 1)
            #expect(interruptions.allSatisfy { $0["answeredWith"] as? String == "206" })
            for item in interruptions { kinds.insert(item["kind"] as? String ?? "") }
        }
        #expect(kinds == ["clientAbort", "connectionDrop", "processKill"])
        let verdicts = try #require(report["resumeVerdicts"] as? [[String: Any]])
        #expect(verdicts.first?["resumable"] as? Bool == true)

        // Every file of the run: no secret, HTML section, JUnit suite, Prometheus; nothing left of the work.
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where !file.hasPrefix("transfers") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            #expect(!text.contains("s3cret") && !text.contains("hunter2"), "a secret in \(file)")
        }
        let transfers = try FileManager.default.contentsOfDirectory(atPath: folder + "/transfers")
        #expect(transfers.isEmpty, "partial files, resume data and worker settings are removed: \(transfers)")
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("Resumability") && html.contains("Resume trials") && html.contains("6/6 intact") && html.contains("<polyline"))
        let (checked, facts) = try CLIReportFormatTests.check(folder, prom: prom)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(facts["junitCases"] as? Int == 7 && facts["junitFailures"] as? Int == 0)
        let metrics = facts["promMetrics"] as? [String] ?? []
        #expect(metrics.contains("sonde_resume_trials") && metrics.contains("sonde_resume_resumable"))

        // The same seed replays the same interruption points.
        let again = try Harness.sonde(["resume", target.http + "/bytes/2000000", "--trials", "6", "--seed", "7", "--json",
                                       "--output-dir", Harness.temporaryDirectory()], timeout: 120)
        let replayed = try trials(try Harness.json(again.stdout))
        func planned(_ trials: [[String: Any]]) -> [String] {
            trials.map { (($0["interruptions"] as? [[String: Any]])?.first?["kind"] as? String) ?? "" }
        }
        #expect(planned(replayed) == planned(all))
    }

    @Test func aLyingServerFailsTheRunAndNoFileIsLeft() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        // Interrupted half-way, so that every trial resumes (a stop in the last chunk leaves nothing to lie about).
        let result = try Harness.sonde(["resume", target.http + "/bytes/500000?mode=lyingRange", "--trials", "3", "--interrupt-at", "50%",
                                        "--output-dir", output], timeout: 120)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✗ CORRUPT") && result.stdout.contains("0/3 intact"))
        #expect(result.stdout.contains("a lying range"))
        let folder = try onlyFolder(output)
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        for trial in try trials(report) {
            #expect(trial["intact"] as? Bool == false)
            #expect((trial["error"] as? [String: Any])?["code"] as? String == "corruptTransfer")
        }
        #expect((report["run"] as? [String: Any])?["status"] as? String == "failed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/transfers").isEmpty)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
    }

    @Test func checkAloneGivesTheVerdictOfEachMode() throws {
        let target = try TargetProcess.get()
        for (mode, failed) in [("ignoreIfRange", "ifRangeStale"), ("weakEtag", "validator"), ("ignoreRange", "rangeRequest")] {
            let output = Harness.temporaryDirectory()
            let result = try Harness.sonde(["resume", target.http + "/bytes/100000?mode=\(mode)", "--check", "--json", "--output-dir", output])
            #expect(result.status == 1, "\(mode): \(result.stderr)")
            let report = try Harness.json(result.stdout)
            #expect((report["resumeTrials"] as? [Any])?.isEmpty == true)
            let verdict = try #require((report["resumeVerdicts"] as? [[String: Any]])?.first)
            #expect(verdict["resumable"] as? Bool == false)
            let checks = try #require(verdict["checks"] as? [[String: Any]])
            #expect(checks.first { $0["name"] as? String == failed }?["passed"] as? Bool == false, "\(mode): \(checks)")
        }
        let good = try Harness.sonde(["resume", target.http + "/bytes/100000", "--check", "--output-dir", Harness.temporaryDirectory()])
        #expect(good.status == 0 && good.stdout.contains("✓ resumable"), "\(good.stdout)")
    }

    @Test func trialsAgainstNginxStaticFilesAreIntact() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let output = Harness.temporaryDirectory()
        for url in ["http://127.0.0.1:\(nginx.http)/3m.bin", "https://127.0.0.1:\(nginx.https)/3m.bin"] {
            // Two given offsets per trial: a random one in the file's last chunk leaves nothing to
            // interrupt (the chunk completes the file), and the count below would be one short.
            let result = try Harness.sonde(["resume", url, "--trials", "6", "--interrupt-at", "30%,70%", "--cacert", nginx.certificate,
                                            "--json", "--output-dir", output], timeout: 180)
            #expect(result.status == 0, "\(url): \(result.stderr)")
            let report = try Harness.json(result.stdout)
            let all = try trials(report)
            #expect(all.count == 6 && all.allSatisfy { $0["intact"] as? Bool == true }, "\(url): \(all)")
            #expect(all.allSatisfy { $0["bytesWasted"] as? Int == 0 }, "\(url)")
            let answers = all.flatMap { ($0["interruptions"] as? [[String: Any]] ?? []).compactMap { $0["answeredWith"] as? String } }
            #expect(answers.count == 12 && Set(answers) == ["206"], "\(url): \(answers)")
            let verdict = try #require((report["resumeVerdicts"] as? [[String: Any]])?.first)
            #expect(verdict["resumable"] as? Bool == true, "\(verdict)")
        }
    }

    /// The resume after a kill is a new process's first request, and the one after a drop follows
    /// a dead connection: both open a new connection (TCP and TLS), never one left in the parent's
    /// pool (issue 27 #12). nginx's own log (its `/logged/` location) shows each resume as the first
    /// request on its connection, from the client port the report names.
    @Test func theResumeAfterAKillOrADropOpensANewConnection() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let result = try Harness.sonde(["resume", "https://127.0.0.1:\(nginx.https)/logged/3m.bin", "--trials", "4", "--interrupt-at", "50%",
                                        "--kinds", "kill,drop", "--cacert", nginx.certificate, "--json",
                                        "--output-dir", Harness.temporaryDirectory()], timeout: 180)
        #expect(result.status == 0, "\(result.stderr)")
        let interruptions = try trials(try Harness.json(result.stdout)).flatMap { $0["interruptions"] as? [[String: Any]] ?? [] }
        #expect(interruptions.map { $0["kind"] as? String ?? "-" } == ["processKill", "connectionDrop", "processKill", "connectionDrop"])
        // nginx's lines: "port connection_requests method uri "range" status".
        let log = try String(contentsOfFile: nginx.directory + "/access.log", encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ") }
        let shown = log.map { $0.joined(separator: " ") }
        // A resume request asks for the rest from the byte its interruption left on disk: nginx
        // saw each as the first request on its connection.
        let ranges = Set(interruptions.compactMap { $0["atByte"] as? Int }.map { "\"bytes=\($0)-\"" })
        let resumes = log.filter { $0.count == 6 && ranges.contains(String($0[4])) }
        #expect(resumes.count == 4 && resumes.allSatisfy { $0[1] == "1" }, "\(shown)")
        for interruption in interruptions {
            let connection = interruption["resumeConnection"] as? [String: Any]
            #expect(connection?["isReusedConnection"] as? Bool == false, "\(interruption)")
            #expect((connection?["connectMs"] as? Double ?? 0) > 0 && (connection?["tlsMs"] as? Double ?? 0) > 0, "\(interruption)")
            let port = (connection?["localPort"] as? Int).map(String.init) ?? "-"
            #expect(resumes.contains { $0[0] == port }, "\(interruption): \(shown)")
        }
    }

    @Test func usageErrorsAndUnreachableServers() throws {
        let output = Harness.temporaryDirectory()
        for (arguments, says) in [
            (["ftp://127.0.0.1/x"], "not supported"), (["not a url"], "not a URL"),
            (["http://127.0.0.1:9/x", "--interrupt-at", "lots"], "--interrupt-at"),
            (["http://127.0.0.1:9/x", "--kinds", "abort,explode"], "--kinds"), (["http://127.0.0.1:9/x", "--trials", "0"], "--trials"),
        ] {
            let result = try Harness.sonde(["resume"] + arguments + ["--output-dir", output])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
        }
        #expect(try Harness.entries(of: output).isEmpty, "a usage error must not start a run")
        let target = try TargetProcess.get()
        let refused = try Harness.sonde(["resume", target.refused + "/x", "--trials", "1", "--retries", "1", "--backoff-initial", "10ms",
                                         "--output-dir", output])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("refused"), "\(refused.stderr)")
        #expect(try Harness.validate([try onlyFolder(output) + "/report.json"]).status == 0)
    }
}

/// `sonde resume --upload` end to end, with a real SIGKILLed worker among the interruptions, and
/// the target's tus server checked by an independent client (tuspy).
@Suite(.serialized) struct UploadCLITests {
    static let file: String = {
        let path = NSTemporaryDirectory() + "sonde-cli-upload-\(getpid()).bin"
        var bytes = [UInt8](repeating: 0, count: 16 << 20)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: (index &* 2_654_435_761) >> 13) }
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }()

    @Test(arguments: [("ietf", 3), ("ietf", 5), ("ietf", 6), ("ietf", 8), ("tus", 0)])
    func uploadTrialsOfEveryKindArriveIntact(proto: String, version: Int) throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", target.uploads + "/\(proto)", "--upload", Self.file, "--protocol", proto,
                                        "--interop-version", "\(max(3, version))", "--trials", "3", "--interrupt-at", "75%",
                                        "--json", "--output-dir", output], timeout: 120)
        #expect(result.status == 0, "\(proto) \(version): \(result.stderr)")
        let report = try Harness.json(result.stdout)
        let trials = try #require(report["resumeTrials"] as? [[String: Any]])
        #expect(trials.count == 3)
        for trial in trials {
            #expect(trial["intact"] as? Bool == true, "\(proto) \(version): \(trial)")
            #expect(trial["direction"] as? String == "upload")
        }
        let kinds = trials.compactMap { (($0["interruptions"] as? [[String: Any]])?.first?["kind"]) as? String }
        #expect(Set(kinds) == ["clientAbort", "connectionDrop", "processKill"], "\(kinds)")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/transfers").isEmpty)
    }

    @Test func tuspyUploadsToTheTargetAndResumesFromItsOffset() throws {
        let target = try TargetProcess.get()
        let script = Harness.root + "/Tests/SondeCLITests/Fixtures/tus_upload.py"
        for extra in [[], ["--resume-half"]] {
            let result = try Harness.run("/usr/bin/env", ["python3", script, target.uploads + "/tus", Self.file, "1048576"] + extra, timeout: 120)
            #expect(result.status == 0, "\(result.stderr)")
            let facts = try Harness.json(result.stdout)
            #expect(facts["sha256"] as? String == facts["expected"] as? String, "\(facts)")
            if !extra.isEmpty { #expect((facts["resumedAt"] as? Int ?? 0) >= 8 << 20, "a new tuspy client found the offset: \(facts)") }
        }
    }

    @Test func uploadUsageErrors() throws {
        let output = Harness.temporaryDirectory()
        for (arguments, says) in [
            (["http://127.0.0.1:9/x", "--upload", "/nonexistent/file"], "--upload /nonexistent/file: no such file"),
            (["http://127.0.0.1:9/x", "--upload", Self.file, "--protocol", "ftp"], "--protocol"),
            (["http://127.0.0.1:9/x", "--upload", Self.file, "--interop-version", "2"], "--interop-version"),
            (["http://127.0.0.1:9/x", "--upload", Self.file, "--check"], "--check"),
        ] {
            let result = try Harness.sonde(["resume"] + arguments + ["--output-dir", output])
            #expect(result.status == 64 && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        }
    }
}
