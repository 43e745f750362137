import Foundation
import Testing

/// Issue #18's input defects, end to end through the built binary: planted symbolic links in a
/// shared output folder, secrets left by a killed resume run, a YAML alias bomb, numbers that
/// overflow, journals rewritten by other tools or holding huge lines, and the probe's timeout.
@Suite(.serialized) struct InputHardeningCLITests {
    private func onlyFolder(_ output: String) throws -> String {
        output + "/" + (try Harness.entries(of: output).sorted()[0])
    }

    /// Every regular file under `folder`, recursively (links are not followed).
    private func files(under folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var result: [String] = []
        while let name = enumerator.nextObject() as? String {
            var status = stat()
            if lstat(folder + "/" + name, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG { result.append(folder + "/" + name) }
        }
        return result
    }

    /// A probe run of the target into a new output folder: the run folder.
    private func probeRun(_ path: String = "/bytes/10") throws -> String {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let run = try Harness.sonde(["probe", "--count", "3", "--output-dir", output, target.http + path])
        #expect(run.status == 0, "\(run.stderr)")
        return try onlyFolder(output)
    }

    // MARK: 3. Planted symbolic links

    /// Someone who can write to a shared --output-dir plants a link under every name the coming
    /// run folder can have (two seconds ahead, each of the 65,536 suffixes), pointing at a folder
    /// whose journal.jsonl links to a victim file; the run starts inside those seconds. It must
    /// not write through any link: the victim keeps its content, the decoy folder stays as
    /// planted, and with every name of its second taken the run says so (exit 64).
    @Test func plantedRunFolderLinksAreNeverWrittenThrough() throws {
        let target = try TargetProcess.get()
        // On tmpfs when there is one: planting 131,072 links there takes a fraction of a second.
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm/sonde-cli-\(UUID().uuidString)" : Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let shared = base + "/shared", decoy = base + "/decoy", victim = base + "/victim.txt"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: decoy, withIntermediateDirectories: true)
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, decoy + "/journal.jsonl") == 0)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        // The window starts a few whole seconds ahead, far enough for the planting to finish first.
        let windowStart = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 6).rounded(.down))
        let hex = Array("0123456789abcdef")
        for second in 0..<2 {
            let prefix = shared + "/" + formatter.string(from: windowStart.addingTimeInterval(Double(second))) + "-probe-"
            for suffix in 0...0xFFFF {
                let name = prefix + String([hex[suffix >> 12], hex[(suffix >> 8) & 15], hex[(suffix >> 4) & 15], hex[suffix & 15]])
                _ = symlink(decoy, name)
            }
        }
        let wait = windowStart.timeIntervalSinceNow + 0.05
        try #require(wait > 0, "planting took longer than the window's lead: the test cannot run on this machine")
        usleep(useconds_t(wait * 1_000_000))
        let run = try Harness.sonde(["probe", "--output-dir", shared, target.http + "/bytes/10"], timeout: 60)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n", "the victim was written through a planted link")
        #expect(try FileManager.default.contentsOfDirectory(atPath: decoy) == ["journal.jsonl"], "sonde wrote into the decoy folder")
        #expect(run.status == 64 && run.stderr.contains("already taken"), "\(run.status) \(run.stderr)")
    }

    /// Files sonde rewrites in an existing run folder (`sonde report DIR`) go through a
    /// `.partial` name: links planted under those names (and under the final names) are replaced,
    /// never written through.
    @Test func plantedFileLinksInARunFolderAreReplacedNotFollowed() throws {
        let folder = try probeRun()
        let victims = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: victims) }
        let names = ["report.json.partial", "report.html.partial", "report.har.partial", "junit.xml.partial",
                     ".report.json.tasks.partial", ".junit.xml.cases.partial", "report.html"]
        for name in names {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
            try "precious \(name)\n".write(toFile: victims + "/" + name, atomically: false, encoding: .utf8)
            #expect(symlink(victims + "/" + name, folder + "/" + name) == 0)
        }
        let rebuilt = try Harness.sonde(["report", folder])
        #expect(rebuilt.status == 0, "\(rebuilt.stdout)\(rebuilt.stderr)")
        for name in names {
            #expect(try String(contentsOfFile: victims + "/" + name, encoding: .utf8) == "precious \(name)\n", "written through \(name)")
        }
        var status = stat()
        #expect(lstat(folder + "/report.html", &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG, "report.html is a file of its own")
    }

    // MARK: 5. Secrets at rest

    /// A resume run with an Authorization header is SIGKILLed while its kill-interruption worker
    /// is mid-transfer (the resource stalls at 1 MB for 3 s): nothing in the run folder, at any
    /// depth, may hold the secret.
    @Test func aKilledResumeRunLeavesNoSecretOnDisk() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let secret = "Bearer hunter2-\(UUID().uuidString)"
        let log = output + "/../sonde-resume-kill-\(UUID().uuidString).log"
        defer { unlink(log) }
        let pid = try Harness.spawn(Harness.sonde, ["resume", target.http + "/bytes/2000000?stallAfter=1000000&stallMs=3000",
                                                    "--kinds", "kill", "--interrupt-at", "75%", "--trials", "1",
                                                    "-H", "Authorization: \(secret)", "--output-dir", output],
                                    stdout: log, stderr: "/dev/null")
        let workerSeen = Harness.waitFor(seconds: 30) { !workers(under: output).isEmpty }
        usleep(300_000)  // into the transfer
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        for worker in workers(under: output) { kill(worker, SIGKILL) }
        #expect(workerSeen, "no worker process started: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let all = files(under: output)
        #expect(!all.isEmpty)
        for file in all {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            #expect(bytes.range(of: Data("hunter2".utf8)) == nil, "the secret is at rest in \(file)")
        }
        // An old run folder's leftover settings file is removed by `sonde report`, with a warning.
        let folder = try onlyFolder(output)
        try FileManager.default.createDirectory(atPath: folder + "/transfers", withIntermediateDirectories: true)
        try #"{"headers":[{"name":"Authorization","value":"Bearer hunter2"}]}"#
            .write(toFile: folder + "/transfers/worker-settings.json", atomically: false, encoding: .utf8)
        let report = try Harness.sonde(["report", folder])
        #expect(report.stderr.contains("worker-settings.json"), "\(report.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/transfers/worker-settings.json"))
    }

    /// The pids of `sonde resume-worker` processes whose arguments name a path under `output`.
    private func workers(under output: String) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let text = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return text.contains("resume-worker") && text.contains(output) ? pid : nil
        }
    }

    // MARK: 6. YAML alias bomb

    @Test func aYAMLAliasBombIsRefusedAtOnce() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var bomb = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        for (index, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].enumerated() {
            let previous = index == 0 ? "a" : ["b", "c", "d", "e", "f", "g", "h", "i"][index - 1]
            bomb += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]\n"
        }
        bomb += "thresholds: *i\n"
        let config = directory + "/bomb.yaml"
        try bomb.write(toFile: config, atomically: false, encoding: .utf8)
        let started = Date()
        let result = try Harness.sonde(["probe", "--config", config, "--output-dir", directory + "/out", "http://127.0.0.1:9/"], timeout: 15)
        #expect(result.status == 64, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("alias"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)

        // A file larger than the bound is refused before it is parsed.
        try String(repeating: "# padding\n", count: 120_000).write(toFile: config, atomically: false, encoding: .utf8)
        let large = try Harness.sonde(["probe", "--config", config, "--output-dir", directory + "/out", "http://127.0.0.1:9/"], timeout: 15)
        #expect(large.status == 64 && large.stderr.contains("larger than"), "\(large.stderr)")
        // Aliases within the bound still work.
        let target = try TargetProcess.get()
        try "thresholds: &t [errors.count==0]\nredact: *t\n".write(toFile: config, atomically: false, encoding: .utf8)
        let fine = try Harness.sonde(["probe", "--config", config, "--output-dir", directory + "/out", target.http + "/bytes/10"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    // MARK: 7. Numeric overflow

    /// Journal durations no report can hold (1e16 ms, 1e999) are skipped with a warning; nothing
    /// traps. The journal lost a task: the report is replaced only with `--force`, and the exit status is 64.
    @Test(arguments: ["1e16", "1e999", "-1e300"])
    func outOfRangeJournalNumbersAreSkippedNotATrap(_ value: String) throws {
        let folder = try probeRun()
        let path = folder + "/journal.jsonl"
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix(#"{"type":"probe""#) })
        lines[index] = lines[index].replacing(#/"durationMs":[0-9.e+-]+/#, maxReplacements: 1) { _ in "\"durationMs\":\(value)" }
        #expect(lines[index].contains("\"durationMs\":\(value)"))
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        let kept = try Harness.sonde(["report", folder])
        #expect(kept.status == 64 && kept.stderr.contains("could not be read") && kept.stderr.contains("--force"), "\(kept.status) \(kept.stderr)")
        let rebuilt = try Harness.sonde(["report", folder, "--force"])
        #expect(rebuilt.status == 64, "\(rebuilt.status) \(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains("skipped"), "\(rebuilt.stderr)")
        let json = try Harness.sonde(["report", folder, "--json", "--force"])
        let probes = try #require(try Harness.json(json.stdout)["probes"] as? [[String: Any]])
        #expect(probes.count == 2)
    }

    @Test func thresholdBoundsOutOfRangeAreUsageErrors() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try Harness.sonde(["probe", "--threshold", "tasks.count<9223372036854775807", "--output-dir", output, target.http + "/bytes/10"])
        #expect(result.status == 64, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("at most"), "\(result.stderr)")
        // A large count within the bound is evaluated and printed without a trap.
        let large = try Harness.sonde(["probe", "--threshold", "tasks.count<900000000000000", "--output-dir", output, target.http + "/bytes/10"])
        #expect(large.status == 0, "\(large.status) \(large.stderr)")
    }

    @Test(arguments: ["--duration", "--ping-interval", "--pong-timeout", "--connect-timeout", "--ramp", "--backoff-max", "--stable-after"])
    func soakDurationsOutOfRangeAreUsageErrors(_ option: String) throws {
        let result = try Harness.sonde(["soak", "ws://127.0.0.1:9/", option, "1e9h", "--output-dir", Harness.temporaryDirectory()], timeout: 20)
        #expect(result.status == 64, "\(option): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains("at most"), "\(option): \(result.stderr)")
    }

    @Test(arguments: ["--stall-timeout", "--connect-timeout", "--backoff-max", "--backoff-initial"])
    func resumeDurationsOutOfRangeAreUsageErrors(_ option: String) throws {
        let result = try Harness.sonde(["resume", "http://127.0.0.1:9/x", option, "1e9h", "--output-dir", Harness.temporaryDirectory()], timeout: 20)
        #expect(result.status == 64, "\(option): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains("at most"), "\(option): \(result.stderr)")
    }

    // MARK: 9. Journal reader

    /// A journal re-written by Python's json.dumps (a space after every colon and comma) reads
    /// as well as the original.
    @Test func aJournalRewrittenByJSONDumpsReadsLikeTheOriginal() throws {
        let folder = try probeRun()
        let original = try Harness.sonde(["report", folder, "--json"])
        let before = try #require(try Harness.json(original.stdout)["probes"] as? [[String: Any]])
        let rewrite = try Harness.run("/usr/bin/env", ["python3", "-c", """
            import json, sys
            path = sys.argv[1]
            lines = [json.dumps(json.loads(line)) for line in open(path) if line.strip()]
            open(path, "w").write("\\n".join(lines) + "\\n")
            """, folder + "/journal.jsonl"])
        #expect(rewrite.status == 0, "\(rewrite.stderr)")
        #expect(try String(contentsOfFile: folder + "/journal.jsonl", encoding: .utf8).contains(#""type": "probe""#))
        let rebuilt = try Harness.sonde(["report", folder, "--json"])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(!rebuilt.stderr.contains("unreadable"), "\(rebuilt.stderr)")
        let document = try Harness.json(rebuilt.stdout)
        let after = try #require(document["probes"] as? [[String: Any]])
        #expect(after.count == before.count && after.count == 3)
        #expect((document["summary"] as? [String: Any])?["tasks"] as? Int == 3)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
    }

    /// A 30 MB line (under the bound) and a 100 MB one (over it) take linear time: a reader that
    /// rescans its buffer per block took 8.6 s for 16 MB and over 120 s for 100 MB. Neither is a
    /// line sonde writes: the journal lost a line (exit 64), rebuilt with `--force`.
    @Test func hugeJournalLinesTakeLinearTimeAndOversizedOnesAreSkipped() throws {
        let folder = try probeRun()
        let path = folder + "/journal.jsonl"
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        defer { try? original.write(to: URL(fileURLWithPath: path)) }
        for (megabytes, oversized) in [(30, false), (100, true)] {
            var data = original
            data.append(Data(#"{"type":"note","text":""#.utf8))
            data.append(Data(repeating: UInt8(ascii: "x"), count: megabytes << 20))
            data.append(Data("\"}\n".utf8))
            try data.write(to: URL(fileURLWithPath: path))
            let started = Date()
            let rebuilt = try Harness.sonde(["report", folder, "--force"], timeout: 30)
            let seconds = Date().timeIntervalSince(started)
            #expect(rebuilt.status == 64, "\(megabytes) MB: \(rebuilt.status) \(rebuilt.stderr)")
            #expect(seconds < 8, "\(megabytes) MB line: \(seconds) s")
            #expect(rebuilt.stderr.contains("longer than") == oversized, "\(megabytes) MB: \(rebuilt.stderr)")
        }
    }

    // MARK: 10. Rough edges

    @Test func probeTimeoutHasADefaultAndItsBoundsAreSaid() throws {
        let help = try Harness.sonde(["probe", "--help"])
        #expect(help.stdout.contains("default 30s"), "\(help.stdout)")
        let huge = try Harness.sonde(["probe", "--timeout", "1e9", "http://127.0.0.1:9/"])
        #expect(huge.status == 64 && huge.stderr.contains("at most 24h"), "\(huge.stderr)")
        let negative = try Harness.sonde(["probe", "--timeout=-1", "http://127.0.0.1:9/"])
        #expect(negative.status == 64, "\(negative.stderr)")
    }

    /// A server that accepts and never answers: the run ends at the default 30 s, timed out.
    @Test func aSilentServerTimesOutByDefault() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let started = Date()
        let result = try Harness.sonde(["probe", "--output-dir", output, target.http + "/delay/60000"], timeout: 50)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 1, "\(result.status) \(result.stderr)")
        #expect(seconds >= 29 && seconds < 45, "\(seconds) s")
        #expect(result.stdout.lowercased().contains("timed"), "\(result.stdout)")
    }

    @Test func anOutputDirThatIsAFileIsSaidInWords() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/plain-file"
        try "x".write(toFile: file, atomically: false, encoding: .utf8)
        for output in [file, file + "/below"] {
            let result = try Harness.sonde(["probe", "--output-dir", output, "http://127.0.0.1:9/"])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("is a file, not a folder") && !result.stderr.contains("NSCocoaErrorDomain"), "\(result.stderr)")
        }
    }
}
