import Foundation
import SondeTarget
import Testing

@Suite(.serialized) struct CLITargetTests {
    @Test func probeWritesAValidReportAndTerminalView() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let terminal = try Harness.sonde(["probe", "--count", "2", "--cacert", target.caFile, "--output-dir", output,
                                          target.https + "/bytes/1024", target.http + "/redirect/2"])
        #expect(terminal.status == 0, "\(terminal.stderr)")
        #expect(terminal.stdout.contains("h2 · new conn"))
        #expect(terminal.stdout.contains("reused conn"))
        #expect(terminal.stdout.contains("cold: n"))
        let folders = try Harness.entries(of: output)
        #expect(folders.count == 1)
        let folder = output + "/" + folders[0]
        // The terminal view ends with the HTML report's path (what `make run` promises).
        #expect(terminal.stdout.split(separator: "\n").last.map(String.init) == "report: " + folder + "/report.html")
        for file in ["report.json", "report.html", "journal.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: folder + "/" + file), "\(file) missing")
        }
        let validation = try Harness.validate([folder + "/report.json"])
        #expect(validation.status == 0, "\(validation.stderr)")
    }

    @Test func jsonModePrintsTheReportDocument() throws {
        let target = try TargetProcess.get()
        let result = try Harness.sonde(["probe", "--json", "--http2-prior-knowledge", "--output-dir", Harness.temporaryDirectory(),
                                        target.h2c + "/bytes/10"])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try Harness.json(result.stdout)
        #expect(document["schemaVersion"] as? Int == 1)
        let probes = try #require(document["probes"] as? [[String: Any]])
        let transaction = try #require((probes.first?["transactionMetrics"] as? [[String: Any]])?.first)
        #expect(transaction["networkProtocolName"] as? String == "h2c")
        #expect(result.stdout.hasPrefix("{\"schemaVersion\":1,"))
    }

    @Test func failuresExitWithOneAndStillReport() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let doh = target.refused.replacingOccurrences(of: "http:", with: "https:") + "/dns-query"
        // A URL of another scheme, or one libcurl cannot parse, is a usage error before the run (URLInputCLITests).
        let result = try Harness.sonde(["probe", "--json", "--output-dir", output, "--doh-url", doh,
                                        target.refused + "/", target.http + "/status/503", "http://no-such-host.invalid/"])
        #expect(result.status == 1)
        let probes = try #require(try Harness.json(result.stdout)["probes"] as? [[String: Any]])
        let codes = probes.compactMap { ($0["error"] as? [String: Any])?["code"] as? String }
        #expect(codes == ["connectionRefused", "httpStatus", "dnsFailure"])
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
    }

    @Test func expectedStatusPasses() throws {
        let target = try TargetProcess.get()
        let result = try Harness.sonde(["probe", "--expect-status", "503", "--output-dir", Harness.temporaryDirectory(),
                                        target.http + "/status/503"])
        #expect(result.status == 0, "\(result.stdout)")
    }

    @Test(arguments: [
        ["probe", "--count", "0", "http://127.0.0.1/"],
        ["probe", "--http1.1", "--http2", "http://127.0.0.1/"],
        ["probe", "-H", "no colon", "http://127.0.0.1/"],
        ["probe", "--data-file", "/nonexistent/file", "http://127.0.0.1/"],
        ["probe", "--expect-status", "2xx", "http://127.0.0.1/"],
        ["probe", "--resolve", "bad", "http://127.0.0.1/"],
        ["probe"],
        ["probe", "--no-such-flag", "http://127.0.0.1/"],
    ])
    func usageErrorsExitWith64(arguments: [String]) throws {
        let result = try Harness.sonde(arguments + ["--output-dir", Harness.temporaryDirectory()])
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    @Test func http3NamesTheLibcurlBuild() throws {
        let result = try Harness.sonde(["probe", "--http3", "--output-dir", Harness.temporaryDirectory(), "https://127.0.0.1/"])
        // The libcurl sonde runs on decides, not the curl tool's.
        if LibcurlFacts.runningHasHTTP3 {
            #expect(result.status != 64)
        } else {
            #expect(result.status == 64)
            #expect(result.stderr.contains("libcurl") && result.stderr.contains("HTTP/3"))
        }
    }

    @Test func interruptWritesTheReportAndExits130() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--count", "100", "--output-dir", output, target.http + "/delay/200"],
                                       timeout: 60, interruptAfter: 1.5)
        #expect(result.status == 130, "\(result.stderr)")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        let report = try Harness.json(try String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        #expect((report["run"] as? [String: Any])?["status"] as? String == "interrupted")
        let probes = try #require(report["probes"] as? [[String: Any]])
        #expect(probes.count >= 2 && probes.count < 100)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
    }

    @Test func secretsNeverReachAnyOutput() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let prom = Harness.temporaryDirectory() + "/sonde.prom"
        let result = try Harness.sonde(["probe", "-H", "Authorization: Bearer sekrit-1", "-H", "Cookie: sid=sekrit-2",
                                        "--output-dir", output, "--prom", prom, target.http + "/headers?token=sekrit-3",
                                        target.refused.replacingOccurrences(of: "http://", with: "http://user:sekrit-4@") + "/?sig=sekrit-5",
                                        // Secrets the server sends back, in response headers.
                                        target.http + "/response-headers?Set-Cookie=sid%3Dsekrit-6&X-Session-Token=sekrit-7&X-Kept=visible"])
        #expect(result.status == 1, "the refused URL fails; its error message must not leak either")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        try Harness.expectNowhere("sekrit", result: result, folder: folder, prom: prom)
        // The response headers were recorded (else the check above proves nothing about them).
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let headers = ((report["probes"] as? [[String: Any]]) ?? []).flatMap { probe in
            ((probe["transactionMetrics"] as? [[String: Any]]) ?? []).flatMap { transaction in
                ((transaction["response"] as? [String: Any])?["headers"] as? [[String: String]]) ?? []
            }
        }
        #expect(headers.contains { $0["name"] == "X-Kept" && $0["value"] == "visible" })
        #expect(headers.contains { $0["name"] == "Set-Cookie" && $0["value"] == "REDACTED" })
        #expect(headers.contains { $0["name"] == "X-Session-Token" && $0["value"] == "REDACTED" })
    }
}

/// Thresholds, exit 99 and the CI formats (HAR, JUnit, Prometheus), each read the way its
/// consumer reads it (`Fixtures/check_outputs.py`: HAR 1.2 schema and timing invariants,
/// ElementTree for JUnit, the exposition-format grammar for Prometheus).
@Suite(.serialized) struct CLIReportFormatTests {
    static let harSchema = Harness.root + "/Tests/SondeCLITests/Fixtures/har-1.2.schema.json"

    static func check(_ folder: String, prom: String? = nil) throws -> (Harness.Result, [String: Any]) {
        let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/check_outputs.py",
                                                       folder, harSchema] + (prom.map { [$0] } ?? []))
        let facts = (try? Harness.json(result.stdout)) ?? [:]
        return (result, facts)
    }

    @Test func aFailingThresholdExits99AndEveryFormatHoldsIt() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let prom = output + "/sonde.prom"
        let result = try Harness.sonde(["probe", "--count", "3", "--cacert", target.caFile, "--output-dir", output, "--prom", prom,
                                        "--threshold", "wait.p95<10s", "--threshold", "errors.rate<=0%",
                                        "--threshold", "total.max<0.001ms", target.https + "/bytes/512"])
        #expect(result.status == 99, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✗ threshold total.max<0.001ms"))
        let folder = output + "/" + (try Harness.entries(of: output).first { $0 != "sonde.prom" } ?? "")
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let thresholds = try #require(report["thresholds"] as? [[String: Any]])
        #expect(thresholds.map { $0["passed"] as? Bool } == [true, true, false])
        #expect((thresholds[2]["observed"] as? Double ?? 0) > 0.001)
        #expect((report["run"] as? [String: Any])?["status"] as? String == "failed")
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)

        let (checked, facts) = try Self.check(folder, prom: prom)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(facts["harEntries"] as? Int == 3 && facts["transactions"] as? Int == 3)
        #expect(facts["harReused"] as? Int == 2)
        // 3 tasks, 3 thresholds and the one request's case (issue 41).
        #expect(facts["junitCases"] as? Int == 7 && facts["junitDeclaredTests"] as? Int == 7)
        #expect(facts["junitFailures"] as? Int == 1 && facts["junitDeclaredFailures"] as? Int == 1)
        let metrics = facts["promMetrics"] as? [String] ?? []
        for name in ["probe_success", "probe_duration_seconds", "probe_http_duration_seconds", "probe_http_version",
                     "probe_ssl_earliest_cert_expiry", "sonde_http_phase_seconds", "sonde_threshold_passed"] {
            #expect(metrics.contains(name), "\(name) missing from the Prometheus file")
        }
        let lines = facts["promLines"] as? [String: [String]] ?? [:]
        #expect(lines["probe_success"] == ["probe_success 0"])
        #expect(lines["probe_http_version"] == ["probe_http_version 2"])
    }

    @Test func passingThresholdsExitZero() throws {
        let target = try TargetProcess.get()
        let result = try Harness.sonde(["probe", "--output-dir", Harness.temporaryDirectory(),
                                        "--threshold", "total.p50 < 30s", "--threshold", "tasks.count==1", target.http + "/bytes/10"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ threshold tasks.count==1"))
    }

    @Test(arguments: [
        ("wait.p96<200ms", "unknown aggregation 'p96'", 5),
        ("wait.p95<200kb", "'kb' is not a duration", 12),
        ("errors.rate<5ms", "'ms' is not a rate", 13),
        ("wait.p95 200ms", "no comparison", 0),
        ("latency<1", "unknown metric 'latency'", 0),
    ])
    func aMalformedThresholdIsAUsageErrorPointingAtTheToken(expression: String, problem: String, column: Int) throws {
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--output-dir", output, "--threshold", expression, "http://127.0.0.1:9/"])
        #expect(result.status == 64)
        #expect(result.stderr.contains(problem), "\(result.stderr)")
        #expect(result.stderr.contains("\n    " + String(repeating: " ", count: column) + "^"), "\(result.stderr)")
        #expect((try Harness.entries(of: output)).isEmpty, "a usage error must not start a run")
    }

    /// A probe run writes its report files while it records; `sonde report` rebuilds them from the
    /// journal alone. Both must give the same bytes, whatever the tasks were.
    @Test func aRunsReportFilesAreWhatItsJournalRebuilds() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let run = try Harness.sonde(["probe", "--count", "3", "--output-dir", output, "--threshold", "total.p50<10s",
                                     "--prom", output + "/run.prom", target.http + "/bytes/100",
                                     target.http + "/redirect/2", target.http + "/status/503", "http://127.0.0.1:9/"])
        #expect(run.status == 1, "\(run.stderr)")
        let folder = output + "/" + (try Harness.entries(of: output).first { $0.contains("probe") } ?? "")
        let copy = Harness.temporaryDirectory() + "/copy"
        try FileManager.default.copyItem(atPath: folder, toPath: copy)
        for file in ["report.json", "report.har", "junit.xml", "report.html"] { try FileManager.default.removeItem(atPath: copy + "/" + file) }
        let rebuilt = try Harness.sonde(["report", copy, "--prom", copy + "/run.prom"])
        #expect(rebuilt.status == run.status, "\(rebuilt.stderr)")
        for file in ["report.json", "report.har", "junit.xml", "report.html"] {
            let live = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            let again = try Data(contentsOf: URL(fileURLWithPath: copy + "/" + file))
            #expect(live.count > 100 && live == again, "\(file) differs between the run and its rebuild")
        }
        let prometheus = try Data(contentsOf: URL(fileURLWithPath: output + "/run.prom"))
        #expect(prometheus == (try Data(contentsOf: URL(fileURLWithPath: copy + "/run.prom"))))
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: folder)).contains { $0.hasSuffix(".partial") || $0.hasPrefix(".") })
    }

    /// A disk that fills during a run: a clear error naming the cause, no crash, no `.partial` file
    /// left behind, and once there is room again `sonde report` rebuilds what was journalled.
    /// Needs root (a 192 KiB tmpfs of its own).
    @Test(.enabled(if: geteuid() == 0)) func aFullDiskEndsTheRunCleanlyAndTheJournalRebuilds() throws {
        let target = try TargetProcess.get()
        let mountPoint = Harness.temporaryDirectory() + "/full"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try Harness.run("/bin/mount", ["-t", "tmpfs", "-o", "size=192k", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "mount: \(mounted.stderr)")
        defer { _ = try? Harness.run("/bin/umount", [mountPoint]) }
        let run = try Harness.sonde(["probe", "--count", "400", "--output-dir", mountPoint, target.http + "/bytes/100"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")
        let folder = mountPoint + "/" + (try Harness.entries(of: mountPoint)[0])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(left == ["journal.jsonl"], "\(left)")

        let grown = try Harness.run("/bin/mount", ["-o", "remount,size=8m", mountPoint])
        try #require(grown.status == 0, "remount: \(grown.stderr)")
        let rebuilt = try Harness.sonde(["report", folder])
        #expect(rebuilt.status == 130, "a journal without its end line is an interrupted run: \(rebuilt.stderr)")
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let probes = try #require(report["probes"] as? [[String: Any]])
        #expect(probes.count > 10 && probes.count < 400, "\(probes.count) tasks")
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
    }

    @Test func aKilledRunIsRebuiltFromItsJournal() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let log = output + "/../sonde-killed-\(UUID().uuidString).log"
        let pid = try Harness.spawn(Harness.sonde, ["probe", "--count", "100", "--output-dir", output, target.http + "/delay/100"],
                                    stdout: log, stderr: "/dev/null")
        // Killed once the journal holds 5 tasks (flushed every second), long before the 10 s the run needs.
        let journalled = Harness.waitFor(seconds: 30) { Harness.journalLines(under: output, containing: #""type":"probe""#) >= 5 }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(journalled, "the journal never held 5 tasks")
        #expect(!FileManager.default.fileExists(atPath: folder + "/report.json"), "a killed run cannot have written its report")

        let rebuilt = try Harness.sonde(["report", "--from-journal", folder])
        #expect(rebuilt.status == 130, "\(rebuilt.stdout)\(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains("killed before it finished"))
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        #expect((report["run"] as? [String: Any])?["status"] as? String == "interrupted")
        let probes = try #require(report["probes"] as? [[String: Any]])
        #expect(probes.count >= 5 && probes.count < 100, "\(probes.count) tasks")
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let (checked, facts) = try Self.check(folder)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(facts["harEntries"] as? Int == probes.count)

        // New thresholds on the same journal (judged again and printed: the folder stays as it is), and a folder that is not a run.
        let again = try Harness.sonde(["report", folder, "--threshold", "tasks.count>=100", "--json"])
        #expect(again.status == 130, "interrupted takes precedence over thresholds")
        let rethresholded = try Harness.json(again.stdout)
        let results = try #require(rethresholded["thresholds"] as? [[String: Any]])
        #expect(results.count == 1 && results[0]["passed"] as? Bool == false)
        let bogus = try Harness.sonde(["report", Harness.temporaryDirectory()])
        #expect(bogus.status == 64 && bogus.stderr.contains("no journal.jsonl"))
    }

    /// A journal is a file anyone can hand over: control characters in it (an OSC that retitles the
    /// window, a CSI that clears the screen, a bidi override) reach the terminal only as visible escapes.
    @Test func aHostileJournalPrintsNoEscapeSequences() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let run = try Harness.sonde(["probe", "--output-dir", output, target.http + "/bytes/10", target.http + "/status/503"])
        #expect(run.status == 1, "\(run.stderr)")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        let journalPath = folder + "/journal.jsonl"
        let hostile = #"\u001b]0;pwned\u0007\u001b[2J\u202e"#  // JSON escapes: ESC ] 0 ; … BEL, ESC [ 2 J, RLO
        var journal = try String(contentsOfFile: journalPath, encoding: .utf8)
        for (field, value) in [("networkProtocolName", "http/1.1"), ("command", "probe")] {
            let original = "\"\(field)\":\"\(value)\""
            #expect(journal.contains(original), "the journal no longer has \(original): this test must follow it")
            journal = journal.replacingOccurrences(of: original, with: "\"\(field)\":\"\(value)\(hostile)\"")
        }
        // The run's warnings, whatever they were (on a libcurl other than the bundled one, a warning says so).
        journal = journal.replacingOccurrences(of: #""warnings":\[("([^"\\]|\\.)*",?)*\]"#, with: NSRegularExpression.escapedTemplate(for: "\"warnings\":[\"w\(hostile)\"]"),
                                               options: .regularExpression)
        try journal.write(toFile: journalPath, atomically: true, encoding: .utf8)

        let rebuilt = try Harness.sonde(["report", folder])
        #expect(rebuilt.status == 1, "\(rebuilt.stdout)\(rebuilt.stderr)")
        #expect(rebuilt.stdout.contains("http/1.1\\x1B]0;pwned\\x07"), "the hostile protocol name must be shown, escaped: \(rebuilt.stdout)")
        #expect(rebuilt.stdout.contains("probe\\x1B]0;pwned"), "\(rebuilt.stdout)")
        #expect(rebuilt.stderr.contains("w\\x1B]0;pwned"), "\(rebuilt.stderr)")
        for (name, text) in [("stdout", rebuilt.stdout), ("stderr", rebuilt.stderr)] {
            let controls = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F || $0 == "\u{202E}" }
            #expect(controls.isEmpty, "\(name) holds \(controls.map { String($0.value, radix: 16) })")
        }
    }

    @Test func aBaselineRunGivesARegressionTableAndDeltaThresholds() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let old = try Harness.sonde(["probe", "--count", "5", "--output-dir", output + "/old", target.http + "/bytes/100"])
        #expect(old.status == 0)
        let oldFolder = output + "/old/" + (try Harness.entries(of: output + "/old")[0])
        // 50 ms of server delay against a baseline without any: a regression no noise can hide.
        // Another URL on purpose: --baseline-any compares it anyway.
        let new = try Harness.sonde(["probe", "--count", "3", "--output-dir", output + "/new", "--baseline", oldFolder + "/", "--baseline-any",
                                     "--threshold", "wait.p50.delta<100%", "--threshold", "wait.p50.delta>=40ms",
                                     target.http + "/delay/50"])
        #expect(new.status == 99, "\(new.stdout)\(new.stderr)")
        #expect(new.stdout.contains("compared with"))
        let newFolder = output + "/new/" + (try Harness.entries(of: output + "/new")[0])
        let report = try Harness.json(String(contentsOfFile: newFolder + "/report.json", encoding: .utf8))
        let baseline = try #require(report["baseline"] as? [String: Any])
        let rows = try #require(baseline["rows"] as? [[String: Any]])
        let wait = try #require(rows.first { $0["phase"] as? String == "wait" && $0["aggregation"] as? String == "p50" })
        #expect((wait["changeMs"] as? Double ?? 0) >= 40)
        let thresholds = try #require(report["thresholds"] as? [[String: Any]])
        #expect(thresholds.map { $0["passed"] as? Bool } == [false, true])
        #expect(try Harness.validate([newFolder + "/report.json"]).status == 0)
        let html = try String(contentsOfFile: newFolder + "/report.html", encoding: .utf8)
        #expect(html.contains("Compared with baseline"))

        // The same comparison from `sonde report`, and a baseline that is not a run.
        let rerendered = try Harness.sonde(["report", newFolder, "--baseline", oldFolder, "--baseline-any", "--threshold", "total.p50.delta>0ms"])
        #expect(rerendered.status == 0, "\(rerendered.stdout)\(rerendered.stderr)")
        let bad = try Harness.sonde(["probe", "--output-dir", output + "/bad", "--baseline", output + "/nowhere", target.http + "/"])
        #expect(bad.status == 64 && bad.stderr.contains("--baseline"))
    }

    @Test func aConfigFileCarriesThresholdsAndRedactionAndItsMistakesAreUsageErrors() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let config = output + "/../sonde-config-\(UUID().uuidString).yaml"
        try "thresholds:\n  - total.max<0.001ms   # fails\n  - errors.rate<1%\nredact: [x-api-key]\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let result = try Harness.sonde(["probe", "--config", config, "--threshold", "tasks.count==1", "-H", "X-Api-Key: sekrit-9",
                                        "--output-dir", output, target.http + "/headers"])
        #expect(result.status == 99, "\(result.stdout)\(result.stderr)")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        let json = try String(contentsOfFile: folder + "/report.json", encoding: .utf8)
        let thresholds = try #require(try Harness.json(json)["thresholds"] as? [[String: Any]])
        #expect(thresholds.map { $0["expression"] as? String } == ["total.max<0.001ms", "errors.rate<1%", "tasks.count==1"])
        #expect(!json.contains("sekrit-9"), "the config's redact list must apply")

        for (text, problem) in [("threshold: [a]\n", "unknown key 'threshold'"), ("thresholds: [wait.p95<2kb]\n", "'kb' is not a duration"),
                                ("thresholds: [a\n", "not valid YAML"), ("- a\n- b\n", "must be a mapping"),
                                ("redact: {a: 1}\n", "must be text or a list"), ("baseline: [a, b]\n", "'baseline' must be text"),
                                (Self.aliasBomb, "alias bomb")] {
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            let bad = try Harness.sonde(["probe", "--config", config, "--output-dir", output + "/bad", target.http + "/"])
            #expect(bad.status == 64 && bad.stderr.contains(problem), "\(text): \(bad.stderr)")
        }
        let missing = try Harness.sonde(["probe", "--config", output + "/nope.yaml", target.http + "/"])
        #expect(missing.status == 64 && missing.stderr.contains("cannot read --config"))
    }

    /// Ten aliases of ten aliases, nine levels deep: a billion nodes once expanded, 200 bytes.
    static let aliasBomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\n" + (0..<8).map { level in
        "b\(level): &b\(level) [" + Array(repeating: level == 0 ? "*a" : "*b\(level - 1)", count: 10).joined(separator: ",") + "]"
    }.joined(separator: "\n") + "\n"

    @Test func severalRunsMergeIntoOne() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        #expect(try Harness.sonde(["probe", "--count", "2", "--output-dir", output + "/a", target.http + "/bytes/10"]).status == 0)
        #expect(try Harness.sonde(["probe", "--output-dir", output + "/b", target.http + "/bytes/10", target.http + "/status/500"]).status == 1)
        let a = output + "/a/" + (try Harness.entries(of: output + "/a")[0])
        let b = output + "/b/" + (try Harness.entries(of: output + "/b")[0])
        let merged = try Harness.sonde(["report", a, b, "--output-dir", output + "/merged", "--threshold", "tasks.count==4"])
        #expect(merged.status == 1, "the worst source status (failed) carries over: \(merged.stdout)\(merged.stderr)")
        let folder = output + "/merged/" + (try Harness.entries(of: output + "/merged")[0])
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let run = try #require(report["run"] as? [String: Any])
        #expect(run["command"] as? String == "merge" && run["status"] as? String == "failed")
        #expect((run["warnings"] as? [String])?.first?.contains("Merged from 2 runs") == true)
        #expect((report["probes"] as? [[String: Any]])?.count == 4)
        #expect((report["thresholds"] as? [[String: Any]])?.first?["passed"] as? Bool == true)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
    }

    @Test func hostileURLsStayWellFormedInEveryFormat() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let payload = "q=%3Cscript%3Ealert(1)%3C/script%3E&x=\"'><img src=x onerror=alert(2)>&y=]]>"
        let url = target.http + "/status/404?" + payload
        let result = try Harness.sonde(["probe", "--output-dir", output, url])
        #expect(result.status == 1)
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        let (checked, facts) = try Self.check(folder)
        #expect(checked.status == 0, "\(checked.stderr)")
        let names = facts["junitNames"] as? [String] ?? []
        #expect(names.contains { $0.contains("<img src=x onerror=alert(2)>") }, "JUnit must carry the URL intact: \(names)")
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(!html.contains("<img src=x") && !html.contains("<script>alert"))
    }
}

/// The HTML report as a person opens it: headless Chromium from disk (`Fixtures/check_html.py`),
/// failing on any console message, any request the page makes, or a script that ran.
@Suite(.serialized) struct CLIBrowserTests {
    static func load(_ page: String, width: Int = 1200) throws -> [String: Any] {
        let screenshot = page.replacingOccurrences(of: ".html", with: "-\(width).png")
        let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/check_html.py",
                                                       page, screenshot, String(width)], timeout: 180)
        #expect(result.status == 0, "Chromium (installed by make test) must run: \(result.stderr)")
        return (try? Harness.json(result.stdout)) ?? [:]
    }

    static func expectClean(_ facts: [String: Any], _ what: String) {
        #expect((facts["console"] as? [String])?.isEmpty == true, "\(what): console: \(facts["console"] ?? "?")")
        #expect((facts["requests"] as? [String])?.isEmpty == true, "\(what): the page made requests: \(facts["requests"] ?? "?")")
        #expect(facts["xssExecuted"] as? Bool == false, "\(what): a script ran")
        #expect(facts["screenshot"] as? String != nil, "\(what): no screenshot")
        #expect((facts["domBytes"] as? Int ?? 0) > 1000, "\(what): the page did not render")
    }

    @Test func aRealRunsReportLoadsCleanlyAtDesktopAndPhoneWidth() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--count", "3", "--cacert", target.caFile, "--output-dir", output,
                                        "--threshold", "total.p95<10s", target.https + "/bytes/2048", target.http + "/redirect/2",
                                        target.http + "/status/503"])
        #expect(result.status == 1)
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        Self.expectClean(try Self.load(folder + "/report.html"), "desktop")
        Self.expectClean(try Self.load(folder + "/report.html", width: 390), "phone")
    }

    @Test func aSoakReportWithAHostileCloseReasonLoadsCleanly() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let payload = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"
        let reason = payload.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo?closeAfter=0.3&code=4000&reason=" + reason, "--duration", "1.5s",
                                        "--ping-interval", "100ms", "--backoff-initial", "50ms", "--output-dir", output], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(!html.contains(payload) && html.contains("&lt;script&gt;"), "the reason must be shown, escaped")
        Self.expectClean(try Self.load(folder + "/report.html"), "soak desktop")
        Self.expectClean(try Self.load(folder + "/report.html", width: 390), "soak phone")
    }

    @Test func theXSSCorpusRunsNowhereAndEveryFormatStaysWellFormed() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        var urls = [target.http + "/hostile"]
        for payload in HostilePayloads.corpus.prefix(8) {
            let encoded = payload.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            urls.append(target.http + "/hostile?q=" + encoded + "&next=" + encoded)
        }
        let prom = output + "/../sonde-xss-\(UUID().uuidString).prom"
        let result = try Harness.sonde(["probe", "--output-dir", output, "--prom", prom, "--max-redirects", "0"] + urls)
        #expect(result.status == 0, "\(result.stderr)")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        for payload in HostilePayloads.corpus where payload.contains("<") {
            #expect(!html.contains(payload), "unescaped in HTML: \(payload)")
        }
        #expect(html.contains("X-Hostile-0"), "the hostile headers must be shown (escaped), or this test proves nothing")
        Self.expectClean(try Self.load(folder + "/report.html"), "xss")
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let (checked, facts) = try CLIReportFormatTests.check(folder, prom: prom)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(facts["harEntries"] as? Int == urls.count)
    }
}

/// `sonde analyze` against tshark's TCP analysis of the same files: synthetic captures written
/// with scapy (retransmissions, fast retransmissions, duplicate ACKs, out-of-order, zero windows,
/// window full with and without scaling, resets, keep-alives, IPv6, port reuse; Ethernet, VLAN,
/// Linux SLL, raw IP) and real loopback
/// captures made by tcpdump (pcap) and tshark (pcapng) while sonde probes the target.
@Suite(.serialized) struct CLICaptureTests {
    static func oracle(_ files: [String] = []) throws -> (Harness.Result, [[String: Any]]) {
        let work = Harness.temporaryDirectory()
        let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/capture_oracle.py",
                                                       Harness.sonde, work] + files, timeout: 300)
        let parsed = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]] ?? []
        return (result, parsed)
    }

    /// Runs `tool` (tcpdump or tshark writing `file`) around `body`: starts once the tool says
    /// `ready` (seconds on a loaded machine; a fixed sleep lost flows) and stops it once the file has
    /// stopped growing for a second (what a loaded tool has not written when stopped is lost).
    /// tcpdump needs `--immediate-mode`, or it leaves an unfinished ring block unwritten.
    /// Captures with `tool` while `body` runs, then waits until the file holds `connections`
    /// client SYNs (tcpdump reads it back) and stops growing. The callers give the tools a 64 MiB
    /// buffer: with the default 2 MiB and the full snap length, libpcap's ring has 4 blocks, and
    /// in immediate mode a tool starved of CPU by the parallel tests dropped packets mid-capture.
    static func capture(_ tool: String, _ arguments: [String], file: String, ready: String, connections: Int,
                        while body: () throws -> Void) throws {
        let log = Harness.temporaryDirectory() + "/\(UUID().uuidString).err"
        let pid = try Harness.spawn(tool, arguments, stdout: "/dev/null", stderr: log)
        defer { Harness.stop(pid) }
        let up = Harness.waitFor(seconds: 30) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains(ready) }
        try #require(up, "\(tool) never said '\(ready)': \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        try body()
        var last: Int64 = -1
        var still = 0
        let complete = Harness.waitFor(seconds: 30) {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? nil ?? -1
            still = size == last && size > 0 ? still + 1 : 0
            last = size
            guard still >= 20 else { return false }
            let syns = (try? Harness.run("/usr/bin/tcpdump", ["-nr", file, "tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn"]))?
                .stdout.split(separator: "\n").count ?? 0
            return syns >= connections
        }
        #expect(complete, "\(tool) wrote fewer than \(connections) connections to \(file) in 30 s")
    }

    @Test func syntheticCapturesAgreeWithTshark() throws {
        let (result, cases) = try Self.oracle()
        #expect(result.status == 0, "\(result.stdout.suffix(3000))\(result.stderr.suffix(2000))")
        #expect(cases.count == 7)
        // The scenarios must contain the events they are about, or agreement proves little.
        func total(_ key: String) -> Int {
            cases.flatMap { ($0["tshark"] as? [[String: Any]]) ?? [] }.reduce(0) { $0 + ($1[key] as? Int ?? 0) }
        }
        for key in ["retransmissions", "fastRetransmissions", "duplicateAcks", "outOfOrder", "zeroWindows", "keepAlives", "resets", "fins",
                    "windowFull"] {
            #expect(total(key) > 0, "no \(key) in the synthetic captures")
        }
    }

    @Test func analyzeWritesAValidReportAndExitCodesSayWhatHappened() throws {
        let corpus = Harness.root + "/Tests/SondeCaptureTests/Corpus/"
        let output = Harness.temporaryDirectory()
        let good = try Harness.sonde(["analyze", "--output-dir", output + "/good", corpus + "valid-one-syn.pcap"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("10.0.0.1:40000 > 10.0.0.2:80"))
        let folder = output + "/good/" + (try Harness.entries(of: output + "/good")[0])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        #expect(try String(contentsOfFile: folder + "/report.html", encoding: .utf8).contains("Packet evidence"))
        let partial = try Harness.sonde(["analyze", "--output-dir", output + "/partial", corpus + "truncated-record.pcap"])
        #expect(partial.status == 1 && partial.stdout.contains("PARTIAL"))
        let bad = try Harness.sonde(["analyze", "--output-dir", output + "/bad", corpus + "bad-magic.pcap"])
        #expect(bad.status == 64 && bad.stderr.contains("unknown file format"))
    }

    @Test func realLoopbackCapturesFromTcpdumpAndTsharkAgree() throws {
        // An nginx of this test's own, so that no other test's traffic crosses the captured port.
        let nginx = try Nginx()
        defer { nginx.stop() }
        let port = nginx.http
        let base = "http://127.0.0.1:\(port)"
        let work = Harness.temporaryDirectory()
        var files: [String] = []
        for (tool, file, arguments, ready) in [
            ("/usr/bin/tcpdump", work + "/tcpdump.pcap", ["-i", "lo", "-U", "--immediate-mode", "-B", "65536", "-w", work + "/tcpdump.pcap", "tcp port \(port)"],
             "listening on"),
            ("/usr/bin/tshark", work + "/tshark.pcapng", ["-i", "lo", "-B", "64", "-w", work + "/tshark.pcapng", "-f", "tcp port \(port)"],
             "Capturing on"),
        ] {
            try Self.capture(tool, arguments, file: file, ready: ready, connections: 6) {
                let probe = try Harness.sonde(["probe", "--count", "3", "--no-reuse", "--output-dir", work + "/reports",
                                               base + "/1k.bin", base + "/missing"])
                #expect(probe.status == 1)
            }
            files.append(file)
        }
        let (result, cases) = try Self.oracle(files)
        #expect(result.status == 0, "\(result.stdout.suffix(3000))\(result.stderr.suffix(2000))")
        for entry in cases {
            // 6 tasks, each on its own connection (--no-reuse).
            #expect((entry["sonde"] as? [[String: Any]])?.count == 6, "\(entry["name"] ?? "?")")
        }
    }

    /// TLS milestones against tshark's TLS dissector: curl and sonde against nginx with TLS 1.3
    /// and 1.2, HTTP/2 and HTTP/1.1, and a handshake that fails (unknown CA: the client's alert),
    /// captured by tcpdump; and the corpus's curl capture against the target.
    @Test func tlsMilestonesAgreeWithTshark() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let port = nginx.https
        let url = "https://localhost:\(port)/1k.bin"
        let work = Harness.temporaryDirectory()
        let file = work + "/tls.pcap"
        try Self.capture("/usr/bin/tcpdump", ["-i", "lo", "-U", "--immediate-mode", "-B", "65536", "-w", file, "tcp port \(port)"],
                         file: file, ready: "listening on", connections: 5) {
            for options in [["--http2"], ["--http1.1", "--tls-max", "1.2"], ["--http2", "--tls-max", "1.2"]] {
                let curl = try Harness.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "--cacert", nginx.certificate] + options + [url])
                #expect(curl.status == 0, "curl \(options): \(curl.stderr)")
            }
            let untrusted = try Harness.run("/usr/bin/curl", ["-s", "-o", "/dev/null", url])
            #expect(untrusted.status == 60, "an unknown CA fails the handshake")
            let probe = try Harness.sonde(["probe", "--cacert", nginx.certificate, "--output-dir", work + "/reports", url])
            #expect(probe.status == 0, "\(probe.stderr)")
        }
        let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/tls_oracle.py",
                                                       Harness.sonde, work, file,
                                                       Harness.root + "/Tests/SondeCaptureTests/Corpus/tls-curl-loopback.pcap"])
        #expect(result.status == 0, "\(result.stdout.suffix(4000))\(result.stderr.suffix(2000))")
        let flows = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]] ?? []
        let live = flows.compactMap { $0["file"] as? String == "tls.pcap" ? $0["sonde"] as? [String: Any] : nil }
        // The capture must hold what the comparison is about, or agreement proves little.
        #expect(live.count == 5, "\(live.count) TLS connections")
        #expect(Set(live.compactMap { $0["version"] as? String }) == ["TLSv1.3", "TLSv1.2"])
        #expect(live.contains { ($0["alerts"] as? Int ?? 0) > 0 && $0["clientFinishedAt"] == nil }, "the refused handshake's alert")
        #expect(live.contains { $0["alpn"] as? String == "h2" } && live.contains { $0["alpn"] as? String == "http/1.1" })
        #expect(live.allSatisfy { $0["serverName"] as? String == "localhost" && $0["problem"] == nil })
    }
}

/// Each broken reply of a hostile peer (`Fixtures/hostile_http.py`) gets the cause a person can
/// act on, not a neighbour's (an HTTP/0.9 reply once read as an unsupported scheme, a stalled TLS
/// handshake as a TCP connect timeout, a 110 KB header line as "Out of memory").
@Suite struct FailureCauseCLITests {
    @Test(arguments: [
        ("http09", "invalidResponse", "did not answer with an HTTP response"),
        ("random", "invalidResponse", "did not answer with an HTTP response"),
        ("status000", "invalidResponse", "status outside 100-599"),
        ("manyheaders", "headerTooLarge", "response headers"),
        ("longheader", "headerTooLarge", "header line"),
        ("badchunk", "invalidResponse", "chunked"),
        ("stalltls", "tlsTimeout", "TLS handshake did not finish"),
        ("stalltls-total", "tlsTimeout", "TLS handshake did not finish"),
    ])
    func aHostileReplyGetsItsOwnCause(mode: String, code: String, words: String) throws {
        let port = Harness.freePort()
        let work = Harness.temporaryDirectory()
        let server = mode.hasPrefix("stalltls") ? "stalltls" : mode
        let pid = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/hostile_http.py",
                                                     server, "\(port)", "30"], stdout: work + "/server.out", stderr: work + "/server.err")
        defer { Harness.stop(pid, signal: SIGKILL) }
        #expect(Harness.waitFor(seconds: 20) { ((try? String(contentsOfFile: work + "/server.out", encoding: .utf8)) ?? "").contains("ready") })
        let scheme = server == "stalltls" ? "https" : "http"
        // A stalled handshake under --connect-timeout ("SSL connection timeout") and under --timeout alone.
        let limits = mode == "stalltls" ? ["--connect-timeout", "1"] : ["--timeout", mode == "stalltls-total" ? "1" : "5"]
        let result = try Harness.sonde(["probe", "--json", "--output-dir", work + "/reports"] + limits + ["\(scheme)://127.0.0.1:\(port)/"])
        #expect(result.status == 1, "\(result.stderr)")
        let task = try #require((try Harness.json(result.stdout)["probes"] as? [[String: Any]])?.first)
        let error = try #require(task["error"] as? [String: Any])
        #expect(error["code"] as? String == code, "\(error)")
        #expect((error["message"] as? String ?? "").contains(words), "\(error)")
    }
}

/// A proxy that accepts and never answers CONNECT is not a TLS timeout: the TCP connection is
/// the proxy's, and no TLS handshake with the server began.
@Suite struct ProxyStallCLITests {
    @Test func aSilentProxyIsATimeoutNotATLSOne() throws {
        let port = Harness.freePort()
        let work = Harness.temporaryDirectory()
        let pid = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/hostile_http.py",
                                                     "stalltls", "\(port)", "30"], stdout: work + "/server.out", stderr: work + "/server.err")
        defer { Harness.stop(pid, signal: SIGKILL) }
        #expect(Harness.waitFor(seconds: 20) { ((try? String(contentsOfFile: work + "/server.out", encoding: .utf8)) ?? "").contains("ready") })
        let result = try Harness.sonde(["probe", "--json", "--timeout", "1", "-x", "http://127.0.0.1:\(port)",
                                        "--output-dir", work + "/reports", "https://127.0.0.1:9/"])
        let error = (try Harness.json(result.stdout)["probes"] as? [[String: Any]])?.first?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "timedOut", "\(error ?? [:])")
    }
}

/// Against a real, independent server: nginx with TLS, HTTP/2 and h2c.
@Suite(.serialized) struct CLINginxTests {
    @Test func protocolsAndReuseAgainstNginx() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let output = Harness.temporaryDirectory()
        let h1 = try Harness.json(try Harness.sonde(["probe", "--json", "--http1.1", "--count", "2", "--output-dir", output,
                                                     "http://127.0.0.1:\(nginx.http)/1k.bin"]).stdout)
        let h1t = (h1["probes"] as! [[String: Any]]).map { ($0["transactionMetrics"] as! [[String: Any]])[0] }
        #expect(h1t.map { $0["networkProtocolName"] as? String } == ["http/1.1", "http/1.1"])
        #expect(h1t[0]["isReusedConnection"] as? Bool == false)
        #expect(h1t[1]["isReusedConnection"] as? Bool == true)
        #expect(h1t[1]["localPort"] as? Int == h1t[0]["localPort"] as? Int)
        #expect((h1t[1]["phases"] as! [String: Any])["connect"] is NSNull)
        #expect(h1t[0]["countOfResponseBodyBytesReceived"] as? Int == 1024)

        let h2 = try Harness.json(try Harness.sonde(["probe", "--json", "--http2", "--count", "2", "--cacert", nginx.certificate,
                                                     "--output-dir", output, "https://127.0.0.1:\(nginx.https)/1k.bin"]).stdout)
        let h2t = (h2["probes"] as! [[String: Any]]).map { ($0["transactionMetrics"] as! [[String: Any]])[0] }
        #expect(h2t.map { $0["networkProtocolName"] as? String } == ["h2", "h2"])
        #expect(h2t[1]["isReusedConnection"] as? Bool == true)
        #expect(h2t[0]["negotiatedTLSProtocolVersion"] as? String == "TLSv1.3")
        #expect((h2t[0]["peerCertificates"] as? [Any])?.isEmpty == false)

        let h2c = try Harness.json(try Harness.sonde(["probe", "--json", "--http2-prior-knowledge", "--output-dir", output,
                                                      "http://127.0.0.1:\(nginx.h2c)/1k.bin"]).stdout)
        let h2ct = (h2c["probes"] as! [[String: Any]]).map { ($0["transactionMetrics"] as! [[String: Any]])[0] }
        #expect(h2ct.first?["networkProtocolName"] as? String == "h2c")

        let redirect = try Harness.json(try Harness.sonde(["probe", "--json", "--output-dir", output,
                                                           "http://127.0.0.1:\(nginx.http)/redirect"]).stdout)
        let task = (redirect["probes"] as! [[String: Any]])[0]
        #expect(task["redirectCount"] as? Int == 1)
        #expect((task["transactionMetrics"] as! [[String: Any]]).count == 2)

        let reports = try Harness.entries(of: output).map { output + "/" + $0 + "/report.json" }
        let validation = try Harness.validate(reports)
        #expect(validation.status == 0, "\(validation.stderr)")
    }

    /// A real server's redirects and URL-bearing headers with secrets in them (a token in the
    /// query, a password in the user-info, an OAuth fragment, Content-Location, Refresh, Link):
    /// none reaches any output, though the headers and the followed hops are all recorded.
    @Test func secretsInResponseHeadersNeverReachAnyOutput() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let base = "http://127.0.0.1:\(nginx.http)"
        let output = Harness.temporaryDirectory()
        let prom = Harness.temporaryDirectory() + "/sonde.prom"
        let result = try Harness.sonde(["probe", "--output-dir", output, "--prom", prom, base + "/leak/token",
                                        base + "/leak/userinfo", base + "/leak/fragment", base + "/leak/headers"])
        #expect(result.status == 0, "\(result.stderr)")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        try Harness.expectNowhere("sekrit", result: result, folder: folder, prom: prom)
        // What was redacted was recorded: the headers, the hops followed, HAR's redirectURL.
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let transactions = ((report["probes"] as? [[String: Any]]) ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        #expect(transactions.count == 7, "three redirects of two hops each, and the page with the headers")
        let headers = transactions.flatMap { (($0["response"] as? [String: Any])?["headers"] as? [[String: String]]) ?? [] }
        func value(_ name: String) -> [String] { headers.filter { $0["name"]?.lowercased() == name }.compactMap { $0["value"] } }
        // (nginx makes a relative Location absolute.)
        #expect(Set(value("location")) == [base + "/1k.bin?token=REDACTED", "http://u:REDACTED@127.0.0.1:\(nginx.http)/1k.bin",
                                           base + "/1k.bin#access_token=REDACTED&state=s"])
        #expect(value("content-location") == ["/1k.bin?sig=REDACTED"])
        #expect(value("refresh") == ["5; url=/1k.bin?session=REDACTED"])
        #expect(value("link") == ["<http://127.0.0.1/next?access_token=REDACTED>; rel=\"next\""])
        let har = try Harness.json(String(contentsOfFile: folder + "/report.har", encoding: .utf8))
        let redirects = (((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? [])
            .compactMap { ($0["response"] as? [String: Any])?["redirectURL"] as? String }.filter { !$0.isEmpty }
        #expect(redirects.count == 3 && redirects.allSatisfy { $0.contains("REDACTED") }, "\(redirects)")
    }

    /// sonde's phases against `curl -w` on the same URL: both orderings hold, sonde's phases add up
    /// to its total, and the two tools' fastest connect and wait agree (same machine, server and libcurl).
    @Test func phasesAgreeWithCurlWriteOut() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let url = "https://127.0.0.1:\(nginx.https)/1k.bin"
        let runs = 7
        var curlConnect: [Double] = []
        var curlWait: [Double] = []
        var sondeConnect: [Double] = []
        var sondeWait: [Double] = []
        // curl and sonde interleaved, so that a burst of load on the shared machine hits both.
        for _ in 0..<runs {
            let result = try Harness.run("/usr/bin/env", ["curl", "-s", "-o", "/dev/null", "--cacert", nginx.certificate, "-w",
                "%{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} %{time_starttransfer} %{time_total}", url])
            let values = result.stdout.split(separator: " ").compactMap { Double($0) }.map { $0 * 1000 }
            try #require(values.count == 6, "curl said: \(result.stdout) \(result.stderr)")
            #expect(values == values.sorted(), "curl -w milestones out of order: \(values)")
            curlConnect.append(values[1] - values[0])
            curlWait.append(values[4] - values[3])
            let sonde = try Harness.sonde(["probe", "--json", "--no-reuse", "--cacert", nginx.certificate,
                                           "--output-dir", Harness.temporaryDirectory(), url])
            #expect(sonde.status == 0, "\(sonde.stderr)")
            for task in try Harness.json(sonde.stdout)["probes"] as! [[String: Any]] {
                let phases = (task["transactionMetrics"] as! [[String: Any]])[0]["phases"] as! [String: Any]
                let names = ["dns", "connect", "tls", "send", "wait", "receive"]
                let values = names.map { (phases[$0] as? Double) ?? -1 }
                #expect(values.allSatisfy { $0 >= 0 }, "a cold TLS transaction has every phase: \(phases)")
                // Cumulative offsets dns ≤ connect ≤ tls ≤ wait ≤ total, and the sum is the total within 1 µs.
                var cumulative: [Double] = []
                var running = 0.0
                for value in values { running += value; cumulative.append(running) }
                #expect(cumulative == cumulative.sorted())
                let total = phases["total"] as! Double
                #expect(abs(running - total) <= 0.001 + 1e-9, "phases sum \(running) vs total \(total)")
                sondeConnect.append(values[1])
                sondeWait.append(values[4])
            }
        }
        // The same network events, so the same order of magnitude. Only phases that a fresh curl
        // process and a fresh sonde process pay alike: TLS is left out, because curl loads and parses
        // the CA file inside each handshake while sonde's multi handle caches it (CURLOPT_CA_CACHE_TIMEOUT).
        // The fastest of each: on a shared, loaded machine a median of sub-millisecond loopback
        // times measures the scheduler (curl's median connect was once 3 ms, its minimum is ~0.1 ms).
        // The bounds still catch a unit slip (×1000) or a phase that swallowed another.
        let connectRatio = sondeConnect.min()! / max(0.001, curlConnect.min()!)
        let waitRatio = sondeWait.min()! / max(0.001, curlWait.min()!)
        #expect(connectRatio > 0.05 && connectRatio < 20, "fastest connect: sonde \(sondeConnect.min()!) ms, curl \(curlConnect.min()!) ms")
        #expect(waitRatio > 0.05 && waitRatio < 20, "fastest wait: sonde \(sondeWait.min()!) ms, curl \(curlWait.min()!) ms")
    }
}

/// `sonde probe --capture`: a live libpcap capture of the run's own flows (CI runs as root).
@Suite(.serialized) struct LiveCaptureCLITests {
    @Test func aCaptureHoldsEveryConnectionOfTheRunAndNothingElse() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let port = Int(target.http.split(separator: ":").last!)!
        let result = try Harness.sonde(["probe", "--capture", "--count", "3", "--no-reuse", "--json", "--output-dir", output,
                                        target.http + "/bytes/50000", target.http + "/status/404"], timeout: 60)
        #expect(result.status == 1, "\(result.stderr)")  // the 404 is a failed task
        let report = try Harness.json(result.stdout)
        let capture = try #require((report["captures"] as? [[String: Any]])?.first)
        #expect(capture["interface"] as? String == "lo")
        #expect(capture["drops"] as? Int == 0)
        #expect((capture["filter"] as? String)?.contains("tcp port \(port)") == true)
        let flows = try #require(capture["flows"] as? [[String: Any]])
        #expect(flows.count == 6, "6 tasks, each on its own connection: \(flows.map { $0["tuple"] ?? "" })")
        #expect(flows.allSatisfy { $0["serverPort"] as? Int == port }, "only the run's own flows, though other tests run beside it")
        let transactions = (report["probes"] as? [[String: Any]] ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        #expect(transactions.count == 6)
        for transaction in transactions {
            let evidence = try #require(transaction["capture"] as? [String: Any], "every transaction is matched to its connection")
            #expect(evidence["flow"] as? String == "127.0.0.1:\(transaction["localPort"] as? Int ?? 0) > 127.0.0.1:\(port)")
            #expect(evidence["synSeen"] as? Bool == true && evidence["reuseAgrees"] as? Bool == true)
            #expect(evidence["connectAgrees"] as? Bool == true, "\(evidence) vs \(transaction["phases"] ?? "")")
            // Its own packets, on its own timeline: the SYN first, the SYN/ACK, and at least the
            // response's bytes coming back (headers and body).
            let packets = try #require(evidence["packets"] as? [[String: Any]])
            #expect(packets.first?["flags"] as? String == "S" && packets.first?["fromClient"] as? Bool == true, "\(packets.prefix(3))")
            #expect(packets.contains { $0["flags"] as? String == "SA" && $0["fromClient"] as? Bool == false })
            #expect(packets.allSatisfy { ($0["offsetUs"] as? Int ?? -1) >= 0 })
            let down = packets.filter { $0["fromClient"] as? Bool == false }.reduce(0) { $0 + ($1["payload"] as? Int ?? 0) }
            #expect(down >= transaction["countOfResponseBodyBytesReceived"] as? Int ?? .max, "\(down) payload bytes down")
        }
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        // The HTML shows the wire beside libcurl's phases, and still loads cleanly.
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("class=\"tick\"") && html.contains("wire: SYN seen") && html.contains("class=\"pkt up ctl\""))
        CLIBrowserTests.expectClean(try CLIBrowserTests.load(folder + "/report.html"), "capture report")
        // tshark, an independent reader, sees the same connections in the file.
        let tshark = try Harness.run("/usr/bin/tshark", ["-r", folder + "/capture.pcap", "-q", "-z", "conv,tcp"])
        let conversations = tshark.stdout.split(separator: "\n").filter { $0.contains("<->") }
        #expect(conversations.count == 6, "\(tshark.stdout)")
    }

    /// `make run` (`sonde demo`) captures when it may: every transaction carries its packet evidence
    /// (as root, as CI runs); without the capability it runs without a capture and says so.
    @Test func theDemoCapturesWhenPrivileged() throws {
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["demo", "--count", "2", "--json", "--output-dir", output], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        #expect((report["captures"] as? [[String: Any]])?.first?["drops"] as? Int == 0)
        let transactions = (report["probes"] as? [[String: Any]] ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        // Every transaction has its wire evidence: TCP, and QUIC for the h3 ones (the demo's Alt-Svc part).
        #expect(!transactions.isEmpty && transactions.allSatisfy { $0["capture"] is [String: Any] })
        let quic = transactions.filter { $0["networkProtocolName"] as? String == "h3" }.compactMap { $0["capture"] as? [String: Any] }
        #expect(!LibcurlFacts.runningHasHTTP3 || !H3Server.available || (!quic.isEmpty && quic.allSatisfy { $0["transport"] as? String == "quic" }),
                "\(quic)")
        let tls = transactions.compactMap { $0["capture"] as? [String: Any] }.filter { $0["tlsAgrees"] as? Bool != nil }
        #expect(!tls.isEmpty && tls.allSatisfy { $0["tlsAgrees"] as? Bool == true }, "\(tls)")
        let denied = try Harness.run("/usr/bin/setpriv", ["--bounding-set", "-net_raw,-net_admin", Harness.sonde, "demo", "--count", "1",
                                                          "--output-dir", output + "/unprivileged"], timeout: 120)
        #expect(denied.status == 0 && denied.stderr.contains("running without a capture"), "\(denied.stderr)")
    }

    /// `sonde resume --capture`: the reference, the trials and the kill worker's connections, and
    /// only those; the dropped connection's reset is on the wire.
    @Test func resumeTrialsAreCapturedWorkerIncluded() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let port = Int(target.http.split(separator: ":").last!)!
        let result = try Harness.sonde(["resume", "--capture", "--trials", "2", "--kinds", "drop,kill", "--interrupt-at", "40%",
                                        "--json", "--output-dir", output, target.http + "/bytes/2000000"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let capture = try #require((report["captures"] as? [[String: Any]])?.first)
        #expect(capture["drops"] as? Int == 0)
        let flows = try #require(capture["flows"] as? [[String: Any]])
        #expect(flows.allSatisfy { $0["serverPort"] as? Int == port })
        // The reference, and per trial the interrupted leg and its resume; the kill trial's first leg
        // ran in the worker process, whose connection binds to the block too.
        #expect(flows.count >= 5, "\(flows.map { $0["tuple"] ?? "" })")
        #expect(flows.contains { ($0["resets"] as? Int ?? 0) > 0 }, "the dropped connection's RST")
        let trials = report["resumeTrials"] as? [[String: Any]] ?? []
        #expect(trials.count == 2 && trials.allSatisfy { $0["intact"] as? Bool == true })
    }

    /// `sonde soak --capture`: one TCP connection per attempt, each bound in the capture's block.
    @Test func soakConnectionsAreCaptured() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", "--capture", "--duration", "3s", "--connections", "2", "--backoff-initial", "100ms",
                                        "--json", "--output-dir", output, target.ws + "/ws/echo?closeAfter=1"], timeout: 60)
        let report = try Harness.json(result.stdout)
        let soak = try #require((report["soaks"] as? [[String: Any]])?.first)
        let attempts = try #require(soak["attempts"] as? [[String: Any]])
        let capture = try #require((report["captures"] as? [[String: Any]])?.first, "\(result.stderr)")
        #expect(capture["drops"] as? Int == 0)
        let flows = try #require(capture["flows"] as? [[String: Any]])
        #expect(attempts.count >= 4, "closeAfter=1 over 3 s: reconnects")
        #expect(flows.count == attempts.count, "\(flows.count) connections on the wire, \(attempts.count) attempts")
        #expect(flows.allSatisfy { $0["serverPort"] as? Int == Int(target.ws.split(separator: ":").last!)! })
        #expect(flows.allSatisfy { ($0["handshake"] as? [String: Any])?["complete"] as? Bool == true })
    }

    @Test func aKeyLogLetsTsharkDecryptTheCapture() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let keys = output + "/../keys-\(UUID().uuidString).log"
        let result = try Harness.sonde(["probe", "--capture", "--keylog", keys, "--cacert", target.caFile, "--json", "--output-dir", output,
                                        target.https + "/bytes/1000"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let warnings = (report["run"] as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("--keylog") }, "the report says the key log was on: \(warnings)")
        let attributes = try FileManager.default.attributesOfItem(atPath: keys)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "secrets readable by the owner only")
        #expect(try String(contentsOfFile: keys, encoding: .utf8).contains("CLIENT_TRAFFIC_SECRET_0"))
        // The TLS records on the wire agree with libcurl's TLS phase and version.
        let transaction = try #require(((report["probes"] as? [[String: Any]])?.first?["transactionMetrics"] as? [[String: Any]])?.first)
        let evidence = try #require(transaction["capture"] as? [String: Any])
        #expect(evidence["tlsVersion"] as? String == transaction["negotiatedTLSProtocolVersion"] as? String)
        #expect(evidence["tlsAgrees"] as? Bool == true, "\(evidence) vs \(transaction["phases"] ?? "")")
        #expect((evidence["tlsHandshakeMs"] as? Double ?? 0) > 0)
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(try String(contentsOfFile: folder + "/report.html", encoding: .utf8).contains("class=\"tick tls\""))
        let pcap = folder + "/capture.pcap"
        let plain = try Harness.run("/usr/bin/tshark", ["-r", pcap, "-Y", "http2.header", "-T", "fields", "-e", "http2.header.value"])
        #expect(!plain.stdout.contains("/bytes/1000"), "without the keys the capture is opaque")
        let decrypted = try Harness.run("/usr/bin/tshark", ["-r", pcap, "-o", "tls.keylog_file:" + keys, "-Y", "http2.header",
                                                            "-T", "fields", "-e", "http2.header.value"])
        #expect(decrypted.stdout.contains("/bytes/1000"), "\(decrypted.stdout)\(decrypted.stderr)")
    }

    @Test func withoutThePrivilegeItFailsFastOrGoesOnWhenOptional() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        // The capabilities dropped from the bounding set: root without CAP_NET_RAW.
        let denied = try Harness.run("/usr/bin/setpriv", ["--bounding-set", "-net_raw,-net_admin", Harness.sonde, "probe", "--capture",
                                                          "--output-dir", output, target.http + "/bytes/10"])
        #expect(denied.status == 64, "\(denied.stderr)")
        #expect(denied.stderr.contains("CAP_NET_RAW") && denied.stderr.contains("setcap"), "\(denied.stderr)")
        #expect(try Harness.entries(of: output).isEmpty, "nothing ran, no run folder")
        let optional = try Harness.run("/usr/bin/setpriv", ["--bounding-set", "-net_raw,-net_admin", Harness.sonde, "probe",
                                                            "--capture=optional", "--output-dir", output, target.http + "/bytes/10"])
        #expect(optional.status == 0, "\(optional.stderr)")
        #expect(optional.stderr.contains("running without a capture"))
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(!FileManager.default.fileExists(atPath: folder + "/capture.pcap"))
        let bad = try Harness.sonde(["probe", "--capture=sometimes", "--output-dir", output, target.http + "/bytes/10"])
        #expect(bad.status == 64 && bad.stderr.contains("--capture"))
    }
}
