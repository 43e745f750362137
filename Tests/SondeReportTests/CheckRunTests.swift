import Foundation
import Testing
@testable import SondeCore
@testable import SondeReport

/// A run of several checks (`sonde run`) recorded through `RunRecorder.beginCheck`/`endCheck`:
/// every entry names its check, each check is judged on its own figures, and every report file
/// (report.json, junit.xml, the Prometheus file, report.html) shows the checks; `sonde report`
/// rebuilds the same files from the journal, also after a kill mid-check.
@Suite struct CheckRunTests {
    static let hostile = "<script>alert(1)</script>"
    static let start = Timestamp(microsecondsSince1970: 1_800_000_000_000_000)

    static func task(_ index: Int, failed: Bool = false) -> ProbeTask {
        let t = TransactionMetrics(request: RequestRecord(method: "GET", url: "http://h/\(index)", headers: []),
                                   response: ResponseRecord(statusCode: failed ? 503 : 200, headers: []),
                                   phases: Phases(send: 1, wait: 1, receive: 1, total: 3))
        return ProbeTask(url: "http://h/\(index)", iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: 3),
                         redirectCount: 0, error: failed ? TaskError(code: .httpStatus, message: "503") : nil, transactionMetrics: [t])
    }

    static var soakConfig: SoakConfig {
        SoakConfig(durationS: 10, connections: 1, rampS: 0, pingIntervalS: 1, pongTimeoutS: 1, messageRate: 1, messageSize: 64,
                   subprotocols: [], headers: [], backoff: BackoffPolicy(initialMs: 100, maxMs: 1000, multiplier: 2, jitter: .full),
                   stableAfterS: 5, maxAttempts: 3, connectTimeoutS: 2, insecure: false)
    }

    static func threshold(_ text: String) throws -> Threshold { try Threshold(parsing: text) }

    /// A temporary folder and a recorder writing into it (the caller removes `directory`).
    static func makeRecorder() throws -> (directory: String, folder: RunFolder, recorder: RunRecorder) {
        let directory = NSTemporaryDirectory() + "sonde-checks-\(UUID().uuidString)"
        let folder = try RunFolder(outputDirectory: directory, runID: "run")
        let run = RunInfo(id: "run", command: "run", arguments: ["suite.yaml"], startedAt: .now(), status: .error,
                          insecure: false, redacted: true)
        return (directory, folder, try RunRecorder(folder: folder, tool: ToolInfo(libcurl: "x", features: []), run: run,
                                                  checkKinds: ["probe", "soak", "resume"]))
    }

    /// Four checks: "api" (2 tasks, its thresholds pass only on its own tasks), the hostile-named
    /// probe check (3 tasks, one failed, `errors.count==0` fails), "ws" (a soak that passes, with a
    /// threshold that fails), "resume" (a resumable verdict and an intact trial). With `killInWS`,
    /// the recording stops inside "ws" (no end line for it, no end of run).
    static func recordSuite(_ recorder: RunRecorder, killInWS: Bool = false) throws {
        try recorder.beginCheck(name: "api", kind: "probe", thresholds: [threshold("tasks.count==2"), threshold("errors.count==0")])
        for index in 0..<2 { try recorder.record(task(index)) }
        try recorder.endCheck(error: nil, interrupted: false)

        try recorder.beginCheck(name: hostile, kind: "probe", thresholds: [threshold("errors.count==0")])
        for index in 2..<5 { try recorder.record(task(index, failed: index == 3)) }
        try recorder.endCheck(error: nil, interrupted: false)

        try recorder.beginCheck(name: "ws", kind: "soak", thresholds: [threshold("ws.reconnects.count>=100")])
        try recorder.record(soakStart: "ws://h/echo", config: soakConfig, startedAt: start)
        var attempt = SoakAttempt(connection: 0, attempt: 1, startedAt: start, backoffMs: nil, backoffFailure: nil)
        attempt.openedAt = start.adding(microseconds: 1000)
        try recorder.record(attempt: attempt)
        try recorder.record(samples: SoakSamples(pings: [[0, 1, 500_000, 900], [0, 1, 1_500_000, 1100]], echoes: [2000]))
        if killInWS { return }
        attempt.cause = .runEnded
        attempt.closedAt = start.adding(microseconds: 10_000_000)
        attempt.closeCode = 1000
        try recorder.record(attempt: attempt)
        try recorder.endCheck(error: nil, interrupted: false)

        try recorder.beginCheck(name: "resume", kind: "resume", thresholds: [])
        let digest = String(repeating: "ab", count: 32)
        try recorder.record(resumeVerdict: ResumeVerdict(url: "http://h/file", checks: [
            ResumeCheck(name: "getSucceeds", passed: true, required: true, evidence: "200"),
        ], urlSession: "resumes"))
        try recorder.record(resumeTrial: ResumeTrial(trial: 1, url: "http://h/file", direction: "download", protocol: "http-range",
                                                     length: 3, interruptions: [], retries: [], bytesTransferred: 3, bytesWasted: 0,
                                                     sha256: digest, expectedSha256: digest, expectedFrom: "reference", durationMs: 4,
                                                     progress: [], error: nil))
        try recorder.endCheck(error: nil, interrupted: false)
    }

    static func document(_ folder: RunFolder) throws -> ReportDocument {
        try JSONDecoder().decode(ReportDocument.self, from: Data(contentsOf: URL(fileURLWithPath: folder.reportJSONPath)))
    }

    @Test func everyEntryNamesItsCheckAndEachCheckIsJudgedOnItsOwn() throws {
        let (directory, folder, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.recordSuite(recorder)
        let prom = directory + "/sonde.prom"
        let outcome = try recorder.finish(status: .passed, thresholds: [Self.threshold("tasks.count==5")], prometheusPath: prom)
        let document = try Self.document(folder)

        #expect(document.probes.map(\.check) == ["api", "api", Self.hostile, Self.hostile, Self.hostile])
        #expect(document.soaks?.map(\.check) == ["ws"])
        #expect(document.resumeTrials?.map(\.check) == ["resume"])
        #expect(document.resumeVerdicts?.map(\.check) == ["resume"])
        let checks = try #require(document.checks)
        #expect(checks.map(\.name) == ["api", Self.hostile, "ws", "resume"])
        #expect(checks.map(\.kind) == ["probe", "probe", "soak", "resume"])
        #expect(checks.map(\.status) == [.passed, .failed, .failed, .passed])
        // "api"'s tasks.count==2 holds: it sees its own two tasks, not the other check's three.
        #expect(checks[0].thresholds.map(\.passed) == [true, true])
        #expect(checks[0].summary?.tasks == 2 && checks[1].summary?.failedTasks == 1)
        #expect(checks[2].summary == nil && checks[2].thresholds.map(\.passed) == [false])  // the soak passed; its rule did not
        #expect(checks.allSatisfy { check in check.thresholds.allSatisfy { $0.check == check.name } })
        // The run's own threshold sees the whole run and names no check.
        #expect(document.thresholds?.map(\.passed) == [true])
        #expect(document.thresholds?.allSatisfy { $0.check == nil } == true)
        #expect(document.run.status == .failed)
        #expect(outcome.checks.map(\.status) == checks.map(\.status))
        #expect(outcome.exitStatus == .thresholdsFailed)

        let junit = try String(contentsOfFile: folder.junitPath, encoding: .utf8)
        #expect(junit.components(separatedBy: "<testsuite ").count - 1 == 5)  // the run's thresholds + a suite per check
        #expect(junit.contains(#"<testsuite name="thresholds" tests="1" failures="0""#))
        // Each check's suite has a case per request name too (issue 41): 2 in api, 3 (one failed) in the other.
        #expect(junit.contains(#"<testsuite name="api" tests="6" failures="0""#))
        #expect(junit.contains(#"<testsuite name="&lt;script&gt;alert(1)&lt;/script&gt;" tests="7" failures="3""#))
        #expect(junit.contains(#"<testsuite name="ws" tests="2" failures="1""#))
        #expect(junit.contains(#"<testsuite name="resume" tests="2" failures="0""#))
        #expect(junit.contains(#"<testsuites name="sonde run run" tests="18" failures="4" errors="0""#))
        #expect(!junit.contains("<script"))
        let apiSuite = try #require(junit.range(of: #"<testsuite name="api""#))
        let hostileSuite = try #require(junit.range(of: #"<testsuite name="&lt;script"#))
        #expect(junit[apiSuite.upperBound..<hostileSuite.lowerBound].components(separatedBy: "classname=\"sonde.probe\"").count - 1 == 2)

        let text = try String(contentsOfFile: prom, encoding: .utf8)
        #expect(text.contains(#"sonde_tasks{check="api"} 2"#))
        #expect(text.contains(#"sonde_tasks{check="<script>alert(1)</script>"} 3"#))
        #expect(text.contains(#"sonde_ws_connections{check="ws",url="ws://h/echo"} 1"#))
        #expect(text.contains(#"sonde_resume_resumable{check="resume",url="http://h/file"} 1"#))
        #expect(text.contains(#"sonde_threshold_passed{expression="tasks.count==5"} 1"#))
        #expect(text.contains(#"sonde_threshold_passed{check="ws",expression="ws.reconnects.count>=100"} 0"#))
        #expect(text.contains(#"sonde_check_success{check="api",kind="probe",status="passed"} 1"#))
        #expect(text.components(separatedBy: "# TYPE sonde_tasks ").count == 2)  // one family, samples together
        try Self.promtoolAccepts(prom)

        let html = try String(contentsOfFile: folder.reportHTMLPath, encoding: .utf8)
        #expect(html.contains("Suite verdict"))
        #expect(html.contains(##"<a href="#check-api">api</a>"##) && html.contains(#"id="check-api""#))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("#check-%3Cscript%3Ealert%281%29%3C%2Fscript%3E"))
        #expect(!html.contains("<script"))
        #expect(html.contains("default-src 'none'"))
        #expect(try Self.validates(folder.reportJSONPath))
    }

    @Test func reportRebuildsTheSameFilesFromTheJournal() throws {
        let (directory, folder, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.recordSuite(recorder)
        try recorder.finish(status: .passed, thresholds: [Self.threshold("tasks.count==5")])
        let files = [folder.reportJSONPath, folder.junitPath, folder.reportHTMLPath, folder.reportHARPath]
        let live = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        try ReportFiles.render(folder: RunFolder(existing: folder.path))
        let rebuilt = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for (index, path) in files.enumerated() { #expect(live[index] == rebuilt[index], "\(path) differs when rebuilt") }
    }

    @Test func aJournalCutInsideACheckRendersThatCheckInterrupted() throws {
        let (directory, folder, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.recordSuite(recorder, killInWS: true)
        try recorder.finish(status: .passed)
        // Keep the journal up to the last line of "ws" (the kill): no check-end for it, no end line.
        let lines = try String(contentsOfFile: folder.journalPath, encoding: .utf8).split(separator: "\n")
        #expect(!lines.contains { $0.contains(#""type":"check-end""#) && $0.contains(#""name":"ws""#) })
        let cut = try #require(lines.firstIndex { $0.hasSuffix(#""type":"end"}"#) })
        let killed = try RunFolder(outputDirectory: directory, runID: "killed")
        try Data((lines[..<cut].joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: killed.journalPath))

        let outcome = try ReportFiles.render(folder: killed)
        let document = try Self.document(killed)
        #expect(document.run.status == .interrupted)
        #expect(document.checks?.map(\.status) == [.passed, .failed, .interrupted])
        #expect(document.checks?.last?.name == "ws")
        #expect(document.soaks?.first?.check == "ws" && document.soaks?.first?.finishedAt == nil)
        #expect(document.run.warnings.contains { $0.contains("Check ws was under way") })
        #expect(outcome.checks.count == 3)
        #expect(try Self.validates(killed.reportJSONPath))
    }

    @Test func aRunWithoutChecksHasNoCheckKeyAnywhere() throws {
        let (directory, folder, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for index in 0..<3 { try recorder.record(Self.task(index, failed: index == 1)) }
        let prom = directory + "/sonde.prom"
        try recorder.finish(status: .failed, thresholds: [Self.threshold("errors.count==0")], prometheusPath: prom)
        for path in [folder.reportJSONPath, folder.journalPath, folder.junitPath, prom] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains(#""check""#) && !text.contains(#""checks""#) && !text.contains("check="), "\(path)")
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.reportJSONPath)))
            as? [String: Any])
        // No kind's section (`audits` is SondeAudit's renderer's, registered in the CLI's runs, not here).
        #expect(Set(object.keys) == ["schemaVersion", "tool", "run", "probes", "summary", "soaks", "resumeTrials", "resumeVerdicts",
                                     "captures", "thresholds", "baseline"])
        let junit = try String(contentsOfFile: folder.junitPath, encoding: .utf8)
        #expect(junit.contains(#"<testsuite name="sonde run" tests="3" failures="1""#))
        let html = try String(contentsOfFile: folder.reportHTMLPath, encoding: .utf8)
        #expect(!html.contains("Suite verdict"))
        #expect(try Self.validates(folder.reportJSONPath))
    }

    @Test func theRecorderRefusesAMisusedCheck() throws {
        let (directory, folder, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: TaskError.self) { try recorder.endCheck(error: nil, interrupted: false) }
        #expect(throws: TaskError.self) { try recorder.beginCheck(name: "a", kind: "load", thresholds: []) }
        #expect(throws: TaskError.self) { try recorder.beginCheck(name: "a\nb", kind: "probe", thresholds: []) }
        try recorder.beginCheck(name: "a", kind: "probe", thresholds: [])
        #expect(recorder.checkUnderWay == "a")
        #expect(throws: TaskError.self) { try recorder.beginCheck(name: "b", kind: "probe", thresholds: []) }
        try recorder.endCheck(error: TaskError(code: .dnsFailure, message: "no such host"), interrupted: false)
        #expect(throws: TaskError.self) { try recorder.beginCheck(name: "a", kind: "probe", thresholds: []) }
        let outcome = try recorder.finish(status: .error)
        #expect(outcome.checks.map(\.status) == [.error])
        let junit = try String(contentsOfFile: folder.junitPath, encoding: .utf8)
        #expect(junit.contains(#"<testsuite name="a" tests="1" failures="0" errors="1""#))
        let terminal = TerminalRenderer(useColor: false).render(checks: outcome.checks)
        #expect(terminal.hasPrefix("✗ error") && terminal.contains("a (probe)") && terminal.contains("no such host"))
    }

    @Test func theTerminalPrintsALinePerCheck() throws {
        let (directory, _, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.recordSuite(recorder)
        let outcome = try recorder.finish(status: .passed)
        let lines = TerminalRenderer(useColor: false).render(checks: outcome.checks, soaks: outcome.soaks, resume: outcome.resume)
            .split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("✓ passed") && lines[0].contains("api (probe): 2 tasks"))
        #expect(lines[1].hasPrefix("✗ failed") && lines[1].contains("3 tasks, 1 failed") && lines[1].contains("✗ errors.count==0"))
        #expect(lines[2].contains("ws (soak): 1 connection, 0 reconnects") && lines[2].contains("✗ ws.reconnects.count>=100"))
        #expect(lines[3].contains("1/1 resumable; 1/1 trials intact"))
    }

    /// Validates a report.json against the schema with scripts/validate-report.py (needs Python's
    /// jsonschema; the check is skipped, returning true, without it).
    static func validates(_ path: String) throws -> Bool {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        guard run("/usr/bin/env", ["python3", "-c", "import jsonschema"]).status == 0 else { return true }
        let result = run("/usr/bin/env", ["python3", root + "/scripts/validate-report.py",
                                          root + "/Reports/schema/sonde-report.schema.json", path])
        if result.status != 0 { Issue.record("schema: \(result.output)") }
        return result.status == 0
    }

    /// `promtool check metrics` parses and lints the file, when promtool is installed: exit 0 and
    /// nothing said (3 is lint advice, 1 a format error).
    static func promtoolAccepts(_ path: String) throws {
        guard run("/usr/bin/env", ["sh", "-c", "command -v promtool"]).status == 0 else { return }
        let result = run("/usr/bin/env", ["sh", "-c", "promtool check metrics < \"$0\"", path])
        #expect(result.status == 0 && result.output.isEmpty, "promtool: \(result.output)")
    }

    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
