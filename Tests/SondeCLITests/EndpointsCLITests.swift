import Foundation
import Testing

/// Per-request results, thresholds with a selector, the throughput line and the Markdown summary
/// (issue 41): two URLs of clearly different latency in one run are told apart in report.json,
/// the terminal, the HTML (parsed as a browser's DOM has it), JUnit (parsed as its consumers do),
/// HAR and a Markdown summary read by a CommonMark parser with GitHub's table extension.
@Suite(.serialized) struct EndpointsCLITests {
    static let fixtures = Harness.root + "/Tests/SondeCLITests/Fixtures/"

    /// Runs a fixture script on `arguments`; its JSON output.
    static func fixture(_ script: String, _ arguments: [String]) throws -> Any {
        let result = try Harness.run("/usr/bin/env", ["python3", fixtures + script] + arguments)
        #expect(result.status == 0, "\(script): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// The one run folder under `output`.
    static func folder(_ output: String) throws -> String {
        output + "/" + (try #require(try Harness.entries(of: output).first { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }))
    }

    static func double(_ text: String?) -> Double { Double(text ?? "") ?? -1 }

    /// 4 × `/delay/300` named `slow` and 4 × `/bytes/2000` by its default name: each format shows
    /// each, with its own figures; the slow one's selector fails while the pooled minimum passes
    /// (exit 99; medians, not p95s, for the fast one: a loaded machine delays one fetch of four); the Markdown goes to `--summary-md` and is appended to `$GITHUB_STEP_SUMMARY`.
    @Test func eachRequestHasItsOwnRowInEveryFormat() throws {
        let target = try TargetProcess.get()
        let directory = Harness.temporaryDirectory()
        let output = directory + "/out", markdown = directory + "/summary.md", step = directory + "/step-summary.md"
        try "## an earlier step\n".write(toFile: step, atomically: true, encoding: .utf8)
        let slow = target.http + "/delay/300", fast = target.http + "/bytes/2000"
        let result = try Harness.run("/usr/bin/env", [
            "GITHUB_STEP_SUMMARY=" + step, Harness.sonde, "probe", "--count", "4", "--name", "slow", slow, fast + "?token=sekrit-q1",
            "--output-dir", output, "--summary-md", markdown,
            "--threshold", "total.min<100ms", "--threshold", "total.p50{name=slow}<100ms", "--threshold", "total.p50{url=\(fast)}<100ms",
        ])
        #expect(result.status == 99, "\(result.stdout)\(result.stderr)")
        let folder = try Self.folder(output)
        let fastName = "GET " + fast

        // report.json: a figure per name, each of its own tasks.
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let summary = try #require(report["summary"] as? [String: Any])
        let requests = try #require(summary["byRequest"] as? [[String: Any]])
        #expect(requests.map { $0["name"] as? String } == ["slow", fastName], "\(requests.map { $0["name"] ?? "?" })")
        func total(_ request: [String: Any], _ key: String) -> Double {
            ((request["all"] as? [String: Any])?["total"] as? [String: Any])?[key] as? Double ?? -1
        }
        #expect(requests.allSatisfy { $0["count"] as? Int == 4 && $0["errors"] as? Int == 0 })
        #expect(total(requests[0], "p50") >= 300 && total(requests[0], "p50") < 1000, "\(requests[0])")
        #expect(total(requests[1], "p50") < 100 && total(requests[1], "p50") > 0, "\(requests[1])")
        #expect((requests[1]["bytesReceived"] as? Int ?? 0) > 4 * 2000 && requests[1]["url"] as? String == fast)
        let thresholds = try #require(report["thresholds"] as? [[String: Any]])
        #expect(thresholds.map { $0["passed"] as? Bool } == [true, false, true], "\(thresholds)")
        #expect((thresholds[1]["message"] as? String ?? "").hasPrefix("total.p50{name=slow} was "))
        #expect((summary["requestsPerSecond"] as? Double ?? 0) > 0 && (summary["durationMs"] as? Double ?? 0) >= 4 * 300)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)

        // The terminal: a line per request, and the throughput line.
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // The table's lines follow its header (a task's own line also starts with its method and URL).
        let header = try #require(lines.lastIndex { $0.hasPrefix("request ") && $0.contains(" p50 ms ") }, "\(result.stdout)")
        let table = lines[(header + 1)...]
        let slowLine = try #require(table.first { $0.hasPrefix("slow ") }, "\(result.stdout)")
        let fastLine = try #require(table.first { $0.hasPrefix(fastName + " ") }, "\(result.stdout)")
        func columns(_ line: String, after name: String) -> [String] { line.dropFirst(name.count).split(separator: " ").map(String.init) }
        #expect(columns(slowLine, after: "slow").prefix(2) == ["4", "0"] && Self.double(columns(slowLine, after: "slow")[2]) >= 300, "\(slowLine)")
        #expect(Self.double(columns(fastLine, after: fastName)[2]) < 100, "\(fastLine)")
        #expect(lines.contains { $0.hasPrefix("8 requests in ") && $0.contains("/s) · received ") }, "\(result.stdout)")

        // The HTML: the requests table, one row per name (parsed, entities decoded).
        let tables = try #require(try Self.fixture("html_tables.py", [folder + "/report.html"]) as? [String: [[String]]])
        let rows = try #require(tables["requests"], "\(tables.keys)")
        #expect(rows.first == ["request", "n", "failed", "p50", "p95", "p99", "received", "sent"])
        #expect(rows.count == 3 && rows[1][0].hasPrefix("slow") && rows[1][0].contains(slow) && rows[2][0] == fastName, "\(rows)")
        #expect(Self.double(rows[1][3]) >= 300 && Self.double(rows[2][3]) < 100 && rows[1][1] == "4" && rows[2][2] == "0", "\(rows)")
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        let requestsAt = try #require(html.range(of: "<h2>Requests</h2>")), waterfallAt = try #require(html.range(of: "<h2>Waterfall</h2>"))
        #expect(requestsAt.lowerBound < waterfallAt.lowerBound, "the requests table comes before the waterfall")

        // JUnit and HAR, read as their consumers read them.
        let (checked, facts) = try CLIReportFormatTests.check(folder)
        #expect(checked.status == 0, "\(checked.stderr)")
        let cases = try #require(facts["junitRequests"] as? [[String: Any]])
        #expect(cases.map { $0["name"] as? String } == ["slow", fastName] && cases.allSatisfy { $0["failure"] is NSNull })
        #expect((cases[0]["out"] as? String ?? "").hasPrefix("4 tasks; total p50 ") && (cases[0]["time"] as? Double ?? 0) >= 1.2, "\(cases)")
        let harNames = facts["harNames"] as? [String] ?? []
        #expect(harNames.filter { $0 == "slow" }.count == 4 && harNames.filter { $0 == fastName }.count == 4, "\(harNames)")

        // The Markdown summary, as GitHub renders it.
        let parsed = try #require(try Self.fixture("check_markdown.py", [markdown]) as? [String: Any])
        #expect(parsed["rawHTML"] as? Bool == false)
        let headings = parsed["headings"] as? [String] ?? []
        #expect(headings.first == "sonde probe: ❌ failed (1 of 3 thresholds failed)" && headings.contains("Requests"), "\(headings)")
        let markdownTables = try #require(parsed["tables"] as? [[String: Any]])
        #expect(markdownTables.count == 2)
        let thresholdRows = markdownTables[0]["rows"] as? [[String]] ?? []
        #expect(thresholdRows.map { $0[0] } == ["total.min<100ms", "total.p50{name=slow}<100ms", "total.p50{url=\(fast)}<100ms"], "\(thresholdRows)")
        #expect(thresholdRows.map { $0[2] } == ["✅ passed", "❌ failed", "✅ passed"])
        let requestRows = markdownTables[1]["rows"] as? [[String]] ?? []
        #expect(markdownTables[1]["header"] as? [String] == ["request", "n", "failed", "p50 ms", "p95 ms", "p99 ms", "received", "sent"])
        #expect(requestRows.map { $0[0] } == ["slow", fastName] && requestRows.allSatisfy { $0.count == 8 && $0[1] == "4" }, "\(requestRows)")
        #expect(Self.double(requestRows[0][3]) >= 300 && Self.double(requestRows[1][3]) < 100, "\(requestRows)")
        // Appended to the step summary, after what was there.
        let written = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(try String(contentsOfFile: step, encoding: .utf8) == "## an earlier step\n\n" + written)
        for path in [markdown, folder + "/report.json", folder + "/report.html", folder + "/junit.xml", folder + "/report.har"] {
            #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("sekrit-q1"), "\(path) holds the query's secret")
        }
    }

    /// Names and URLs with `|`, markup and Markdown's own characters stay text: the tables keep
    /// their cells, nothing reaches the rendered HTML as markup; a step summary that is a link is
    /// not written through.
    @Test func hostileNamesStayTextInTheMarkdown() throws {
        let target = try TargetProcess.get()
        let directory = Harness.temporaryDirectory()
        let output = directory + "/out", markdown = directory + "/summary.md", victim = directory + "/victim"
        try "untouched\n".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: directory + "/step-link.md", withDestinationPath: victim)
        let name = "a|b <script>alert(1)</script> *x* [l](javascript:alert(2)) `c`"
        let hostileURL = target.http + "/x|y/<img/src=x/onerror=alert(3)>"
        let result = try Harness.run("/usr/bin/env", [
            "GITHUB_STEP_SUMMARY=" + directory + "/step-link.md", Harness.sonde, "probe", "--name", name, target.http + "/bytes/10",
            hostileURL, "--output-dir", output, "--summary-md", markdown, "--threshold", "total.p95{name=\(name.replacingOccurrences(of: "`c`", with: ""))}<1s",
        ])
        #expect(result.status == 99 || result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched\n")
        let parsed = try #require(try Self.fixture("check_markdown.py", [markdown]) as? [String: Any])
        #expect(parsed["rawHTML"] as? Bool == false)
        let rendered = parsed["html"] as? String ?? ""
        #expect(!rendered.contains("<script") && !rendered.contains("<img") && !rendered.contains("href=\"javascript"), "\(rendered)")
        let tables = parsed["tables"] as? [[String: Any]] ?? []
        let thresholdRows = try #require(tables.first?["rows"] as? [[String]])
        #expect(thresholdRows.count == 1 && thresholdRows[0].count == 4 && thresholdRows[0][2] == "❌ failed", "\(thresholdRows)")
        let requestRows = try #require(tables.last?["rows"] as? [[String]])
        #expect(requestRows.count == 2 && requestRows.allSatisfy { $0.count == 8 }, "\(requestRows)")
        #expect(requestRows[0][0] == name, "\(requestRows)")
        #expect(requestRows[1][0] == "GET " + hostileURL, "\(requestRows)")
        let items = parsed["items"] as? [String] ?? []
        #expect(items.contains { $0.hasPrefix("httpStatus GET " + hostileURL) }, "\(items)")
    }

    /// The Markdown summary's comparison with `--baseline`: a table of phases with both runs'
    /// figures under a heading naming the baseline run; `--summary-md` at a symbolic link replaces
    /// the link with the file and leaves what it pointed at untouched.
    @Test func theMarkdownComparesWithTheBaseline() throws {
        let target = try TargetProcess.get()
        let directory = Harness.temporaryDirectory()
        let first = directory + "/first", second = directory + "/second", markdown = directory + "/summary.md", victim = directory + "/victim"
        try "untouched\n".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: markdown, withDestinationPath: victim)
        let url = target.http + "/bytes/100"
        #expect(try Harness.sonde(["probe", "--count", "3", url, "--output-dir", first]).status == 0)
        let baseline = try Self.folder(first)
        let result = try Harness.sonde(["probe", "--count", "3", url, "--output-dir", second, "--baseline", baseline, "--summary-md", markdown])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched\n")
        var info = stat()
        #expect(lstat(markdown, &info) == 0 && info.st_mode & S_IFMT == S_IFREG, "the link was replaced by the summary file")
        let parsed = try #require(try Self.fixture("check_markdown.py", [markdown]) as? [String: Any])
        let headings = parsed["headings"] as? [String] ?? []
        let runID = (baseline as NSString).lastPathComponent
        #expect(headings.first == "sonde probe: ✅ passed" && headings.contains("Compared with baseline \(runID) (3 tasks)"), "\(headings)")
        let tables = parsed["tables"] as? [[String: Any]] ?? []
        let comparison = try #require(tables.first { ($0["header"] as? [String])?.first == "phase" }, "\(tables)")
        #expect(comparison["header"] as? [String] == ["phase", "baseline ms", "this run ms", "change ms", "change"])
        let rows = comparison["rows"] as? [[String]] ?? []
        #expect(rows.contains { $0[0] == "total.p50" } && rows.allSatisfy { $0.count == 5 && Self.double($0[1]) > 0 && Self.double($0[2]) > 0 }, "\(rows)")
    }

    /// The Markdown summary names the emulated link (its conditions and what crossed it) and the
    /// first failures with their causes: a probe over `--link lte` at a port where nothing listens.
    @Test(.enabled(if: geteuid() == 0, "needs root: --link creates a network namespace and TUN devices"))
    func theMarkdownNamesTheLinkAndTheFailures() throws {
        let target = try TargetProcess.get()
        let directory = Harness.temporaryDirectory()
        let markdown = directory + "/summary.md"
        let result = try Harness.sonde(["probe", "--link", "lte", target.refused + "/x?token=sekrit-l1", "--output-dir", directory + "/out",
                                        "--summary-md", markdown], timeout: 60)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let parsed = try #require(try Self.fixture("check_markdown.py", [markdown]) as? [String: Any])
        let headings = parsed["headings"] as? [String] ?? []
        #expect(headings == ["sonde probe: ❌ failed (1 of 1 tasks failed)", "Requests", "Emulated link", "First failures"], "\(headings)")
        let items = parsed["items"] as? [String] ?? []
        #expect(items.contains { $0.hasPrefix("lte: down 50 Mbit/s +50 ms, up 10 Mbit/s +65 ms") }, "\(items)")
        #expect(items.contains { $0.hasPrefix("connectionRefused GET \(target.refused)/x: connection refused") }, "\(items)")
        #expect(!(try String(contentsOfFile: markdown, encoding: .utf8)).contains("sekrit-l1"))
    }

    /// The summary's bytes and rate against what nginx logged: each request's length (request
    /// line, headers) and the bytes it sent back (headers and body), request by request.
    @Test func bytesAndRateAgreeWithNginxsLog() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let base = "http://127.0.0.1:\(nginx.http)/sized/"
        let result = try Harness.sonde(["probe", "--json", "--count", "3", "--output-dir", Harness.temporaryDirectory(),
                                        base + "1k.bin", "--name", "items", base + "items.json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let summary = try #require(report["summary"] as? [String: Any])
        let log = try String(contentsOfFile: nginx.directory + "/sized-access.log", encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(log.count == 6, "\(log)")
        func logged(_ uri: String?) -> (requests: Int, received: Int, sent: Int) {
            let lines = log.filter { uri == nil || $0[3] == uri }
            return (lines.count, lines.reduce(0) { $0 + (Int($1[0]) ?? 0) }, lines.reduce(0) { $0 + (Int($1[1]) ?? 0) })
        }
        let all = logged(nil)
        // What nginx received is what sonde sent; what nginx sent, sonde received.
        #expect(summary["bytesSent"] as? Int == all.received && summary["bytesReceived"] as? Int == all.sent, "\(summary) vs \(all)")
        let requests = try #require(summary["byRequest"] as? [[String: Any]])
        #expect(requests.map { $0["name"] as? String } == ["GET " + base + "1k.bin", "items"])
        for (request, uri) in zip(requests, ["/sized/1k.bin", "/sized/items.json"]) {
            let own = logged(uri)
            #expect(request["count"] as? Int == own.requests && request["bytesSent"] as? Int == own.received
                    && request["bytesReceived"] as? Int == own.sent, "\(uri): \(request) vs \(own)")
        }
        // The rate: the transactions nginx answered over the tasks' span, which lies within the run.
        let probes = try #require(report["probes"] as? [[String: Any]])
        let duration = try #require(summary["durationMs"] as? Double), rate = try #require(summary["requestsPerSecond"] as? Double)
        #expect(abs(rate - Double(all.requests) / (duration / 1000)) < 1e-6 * rate)
        let durations = probes.compactMap { ($0["taskInterval"] as? [String: Any])?["durationMs"] as? Double }
        #expect(durations.count == 6 && duration >= durations.reduce(0, +) && duration > 0, "one task at a time: the span holds them all")
    }

    /// A suite's request entries carry names; its thresholds and `sonde report --threshold` take
    /// selectors; a check's JUnit suite has a case per request.
    @Test func suitesNameRequestsAndJudgeThem() throws {
        let target = try TargetProcess.get()
        let directory = Harness.temporaryDirectory()
        let suite = directory + "/suite.yaml", output = directory + "/out"
        try """
        checks:
          - name: api
            kind: probe
            count: 3
            urls: [{name: slow, url: "\(target.http)/delay/200"}, "\(target.http)/bytes/10"]
            thresholds: ["total.p50{name=slow}<50ms", "total.p50{url=\(target.http)/bytes/10}<50ms", "tasks.count{name=nothing}>0"]

        """.write(toFile: suite, atomically: true, encoding: .utf8)
        let markdown = directory + "/summary.md"
        let result = try Harness.sonde(["run", suite, "--output-dir", output, "--summary-md", markdown])
        #expect(result.status == 99, "\(result.stdout)\(result.stderr)")
        let folder = try Self.folder(output)
        // The Markdown: a checks table, and the requests with their check.
        let parsed = try #require(try Self.fixture("check_markdown.py", [markdown]) as? [String: Any])
        let tables = parsed["tables"] as? [[String: Any]] ?? []
        #expect(tables.map { ($0["header"] as? [String])?.first } == ["threshold", "check", "request"], "\(tables)")
        let requestRows = tables.last?["rows"] as? [[String]] ?? []
        #expect(requestRows.map { [$0[0], $0[1], $0[2]] } == [["slow", "api", "3"], ["GET \(target.http)/bytes/10", "api", "3"]], "\(requestRows)")
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let check = try #require((report["checks"] as? [[String: Any]])?.first)
        let requests = try #require((check["summary"] as? [String: Any])?["byRequest"] as? [[String: Any]])
        #expect(requests.map { $0["name"] as? String } == ["slow", "GET \(target.http)/bytes/10"])
        let results = try #require(check["thresholds"] as? [[String: Any]])
        #expect(results.map { $0["passed"] as? Bool } == [false, true, false], "\(results)")
        #expect((results[2]["message"] as? String ?? "").contains("no request of this run matches {name=nothing}"), "\(results[2])")
        let (checked, facts) = try CLIReportFormatTests.check(folder)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect((facts["junitRequests"] as? [[String: Any]] ?? []).map { $0["name"] as? String } == ["slow", "GET \(target.http)/bytes/10"])
        // Judged again from the journal, with a selector that holds (the check's own still fail: 99).
        let again = try Harness.sonde(["report", folder, "--threshold", "total.p50{name=slow}>150ms"])
        #expect(again.status == 99 && again.stdout.contains("✓ threshold total.p50{name=slow}>150ms"), "\(again.stdout)\(again.stderr)")
        // A bad selector is a usage error with its caret, before anything runs.
        let bad = try Harness.sonde(["report", folder, "--threshold", "total.p50{nam=slow}>150ms"])
        #expect(bad.status == 64 && bad.stderr.contains("unknown selector key 'nam'") && bad.stderr.contains("\n              ^"), "\(bad.stderr)")
    }
}
