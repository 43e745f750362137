import Foundation
import Testing

/// `sonde serve` as a well-behaved exporter, against a real Prometheus and promtool: no series
/// comes and goes from one run to the next, the Grafana dashboard's every expression parses and
/// returns data, a port in use is said in one sentence, and examples/serve's reload line works as written.
@Suite(.serialized) struct ServeExporterCLITests {
    typealias Serve = ServeCLITests.Serve

    /// Five checks on schedules of 2 to 5 s.
    static func fiveChecks(_ target: TargetProcess.Endpoints) -> String {
        """
        vantage: lab
        checks:
          - {name: small, kind: probe, urls: ["\(target.http)/bytes/100"], count: 1, every: 2s, thresholds: ["total.p95<10s"]}
          - {name: large, kind: probe, urls: ["\(target.http)/bytes/200000"], count: 1, every: 3s, thresholds: ["total.p95<10s"]}
          - {name: tls, kind: probe, urls: ["\(target.https)/bytes/100"], cacert: "\(target.caFile)", count: 1, every: 4s}
          - {name: slow, kind: probe, urls: ["\(target.http)/delay/20"], count: 1, every: 5s, thresholds: ["errors.rate<1%"]}
          - {name: two, kind: probe, urls: ["\(target.http)/bytes/10", "\(target.http)/bytes/20"], count: 1, every: 3s}
        """
    }

    /// The series of an exposition: every sample's name and labels, without values and comments.
    static func series(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in line.lastIndex(of: " ").map { String(line[..<$0]) } })
    }

    /// `promtool query instant -o json`: the result vector (nil when the query fails).
    static func promtoolQuery(_ port: Int, _ expression: String) throws -> [[String: Any]]? {
        let result = try Harness.run("/usr/bin/promtool", ["query", "instant", "-o", "json", "http://127.0.0.1:\(port)", expression])
        guard result.status == 0, let data = result.stdout.data(using: .utf8),
              let vector = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return nil }
        return vector
    }

    /// A one-value query's number (nil without a result).
    static func scalar(_ port: Int, _ expression: String) throws -> Double? {
        guard let first = try promtoolQuery(port, expression)?.first, let value = first["value"] as? [Any] else { return nil }
        return (value.last as? String).flatMap(Double.init)
    }

    /// A dashboard expression as Prometheus reads it: Grafana's variables given values that select everything.
    static func resolved(_ expression: String) -> String {
        expression.replacingOccurrences(of: "$__rate_interval", with: "1m").replacingOccurrences(of: "$__interval", with: "15s")
            .replacingOccurrences(of: "$__range", with: "1h").replacingOccurrences(of: "$vantage", with: ".*")
            .replacingOccurrences(of: "$check", with: ".*")
    }

    /// Every PromQL expression of examples/serve/grafana-dashboard.json: each panel target's
    /// `expr`, and the series selector inside each variable's `label_values(…)`.
    static func dashboardExpressions() throws -> [(place: String, expression: String, label: String?)] {
        let text = try String(contentsOfFile: Harness.root + "/examples/serve/grafana-dashboard.json", encoding: .utf8)
        let dashboard = try Harness.json(text)
        var found: [(String, String, String?)] = []
        for panel in dashboard["panels"] as? [[String: Any]] ?? [] {
            for target in panel["targets"] as? [[String: Any]] ?? [] {
                if let expression = target["expr"] as? String { found.append(("panel \(panel["title"] ?? "")", expression, nil)) }
            }
        }
        for variable in (dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? [] {
            let query = ((variable["query"] as? [String: Any])?["query"] as? String) ?? (variable["query"] as? String) ?? ""
            guard query.hasPrefix("label_values("), query.hasSuffix(")"), let comma = query.lastIndex(of: ",") else {
                found.append(("variable \(variable["name"] ?? "")", query, nil))
                continue
            }
            let selector = String(query[query.index(query.startIndex, offsetBy: "label_values(".count)..<comma])
            let label = query[query.index(after: comma)..<query.index(before: query.endIndex)].trimmingCharacters(in: .whitespaces)
            found.append(("variable \(variable["name"] ?? "")", selector, label))
        }
        return found
    }

    /// Five checks every 2–5 s for about a minute under a real Prometheus scraping every second:
    /// after the first round `count({__name__=~"sonde_.*"})` stays the same, no series was ever
    /// seen that is not in the current set, and two scrapes a round apart have the same series;
    /// then every expression of the Grafana dashboard parses (promtool check rules) and returns data.
    @Test func seriesStayTheSameFromRunToRun() throws {
        let target = try TargetProcess.get()
        let serve = try Serve(config: Self.fiveChecks(target))
        defer { serve.stop() }
        let work = Harness.temporaryDirectory()
        let (prometheus, promPort) = try ServeCLITests.startPrometheus(scraping: serve.port, in: work)
        defer { Harness.stop(prometheus, signal: SIGTERM) }

        // The first round: every check has run once and Prometheus has scraped it.
        #expect(Harness.waitFor(seconds: 30) { (try? Self.scalar(promPort, "count(sonde_serve_last_run_timestamp_seconds)")) == 5 },
                "the five checks did not all run: \(serve.logText().suffix(2000))")
        sleep(2)
        let roundOne = Date()
        let runsBefore = try #require(try Self.scalar(promPort, "sum(sonde_serve_runs_total)"))
        let firstScrape = Self.series(try ServeCLITests.fetch("\(serve.base)/metrics").body)
        var counts: [Double] = []
        for _ in 0..<12 {
            sleep(4)
            counts.append(try #require(try Self.scalar(promPort, #"count({__name__=~"sonde_.*"})"#)))
        }
        let lastScrape = Self.series(try ServeCLITests.fetch("\(serve.base)/metrics").body)
        let runsAfter = try #require(try Self.scalar(promPort, "sum(sonde_serve_runs_total)"))
        #expect(runsAfter - runsBefore >= 40, "about 50 runs in 48 s: \(runsAfter - runsBefore)")
        #expect(Set(counts).count == 1, "count({__name__=~\"sonde_.*\"}) every 4 s: \(counts)")
        // Every series Prometheus stored since the first round (a run's id as a label would be one more each run).
        let since = Int(roundOne.timeIntervalSince1970)
        let seen = try Harness.run("/usr/bin/promtool", ["query", "series", "-o", "json", #"--match={__name__=~"sonde_.*"}"#,
                                                         "--start=\(since)", "--end=\(Int(Date().timeIntervalSince1970))", "http://127.0.0.1:\(promPort)"])
        let everSeen = (try? JSONSerialization.jsonObject(with: Data(seen.stdout.utf8)) as? [Any])?.count
        #expect(everSeen.map(Double.init) == counts.last, "series stored since the first round: \(everSeen ?? -1), now: \(counts.last ?? 0) \(seen.stderr)")
        #expect(firstScrape == lastScrape, "came: \(lastScrape.subtracting(firstScrape).sorted().prefix(5)), went: \(firstScrape.subtracting(lastScrape).sorted().prefix(5))")
        #expect(!lastScrape.contains { $0.contains("run_id") }, "no run's id as a label")
        #expect(lastScrape.contains(#"sonde_serve_build_info{vantage="lab",version="0.1.0"}"#) || lastScrape.contains { $0.hasPrefix("sonde_serve_build_info{") })
        #expect(lastScrape.contains(#"sonde_serve_last_run_timestamp_seconds{vantage="lab",check="small"}"#))

        // The dashboard: every expression parses (as a recording rule), and returns data.
        let expressions = try Self.dashboardExpressions()
        #expect(expressions.count >= 10, "\(expressions.count) expressions")
        var rules = "groups:\n  - name: dashboard\n    rules:\n"
        for (index, entry) in expressions.enumerated() {
            let quoted = String(data: try JSONSerialization.data(withJSONObject: [Self.resolved(entry.expression)]), encoding: .utf8)!.dropFirst().dropLast()
            rules += "      - record: dashboard:expression_\(index)\n        expr: \(quoted)\n"
        }
        FileManager.default.createFile(atPath: work + "/dashboard-rules.yml", contents: Data(rules.utf8))
        let check = try Harness.run("/usr/bin/promtool", ["check", "rules", work + "/dashboard-rules.yml"])
        #expect(check.status == 0 && check.stdout.contains("SUCCESS: \(expressions.count) rules found"), "promtool: \(check.stdout) \(check.stderr)")
        let unresolved = try Harness.run("/usr/bin/promtool", ["query", "instant", "http://127.0.0.1:\(promPort)", "sonde_serve_last_run_success{check=~\"$check\"}"])
        #expect(unresolved.status == 0, "Grafana's variables are valid regexp text: \(unresolved.stderr)")
        for entry in expressions {
            let vector = try Self.promtoolQuery(promPort, Self.resolved(entry.expression))
            #expect(!(vector ?? []).isEmpty, "\(entry.place): \(entry.expression) returned \(vector.map { "\($0.count) series" } ?? "an error")")
            if let label = entry.label {
                #expect((vector ?? []).contains { (($0["metric"] as? [String: String])?[label]).map { !$0.isEmpty } ?? false },
                        "\(entry.place): no \(label) label on \(entry.expression)")
            }
        }
    }

    /// A port in use is said in one sentence naming the address and what to do (exit 64).
    @Test func aPortInUseIsSaidPlainly() throws {
        let target = try TargetProcess.get()
        let first = try Serve(config: Self.fiveChecks(target))
        defer { first.stop() }
        let second = try Harness.sonde(["serve", "--config", first.configPath, "--listen", "127.0.0.1:\(first.port)",
                                        "--output-dir", Harness.temporaryDirectory()], timeout: 30)
        #expect(second.status == 64, "\(second.status) \(second.stderr)")
        let lines = second.stderr.split(separator: "\n").filter { $0.contains("listen") }
        #expect(lines.count == 1, "\(second.stderr)")
        let line = String(lines.first ?? "")
        #expect(line.contains("127.0.0.1:\(first.port)") && line.contains("already") && line.contains("--listen"), "\(line)")
        #expect(!second.stderr.contains("bind(descriptor") && !second.stderr.contains("errno"), "no function signature: \(second.stderr)")
    }

    /// examples/serve/sonde.yaml's reload line, run as written against serve started as its
    /// usage line says: the config is reloaded (SIGHUP and POST /-/reload both).
    @Test func theExampleReloadLineWorksAsWritten() throws {
        let target = try TargetProcess.get()
        for (name, value) in ["SONDE_TARGET_HTTP": target.http, "SONDE_TARGET_HTTPS": target.https, "SONDE_TARGET_WS": target.ws,
                              "SONDE_TARGET_CA": target.caFile, "SONDE_VANTAGE": "ci"] { setenv(name, value, 1) }
        let example = try String(contentsOfFile: Harness.root + "/examples/serve/sonde.yaml", encoding: .utf8)
        let comments = example.split(separator: "\n").filter { $0.hasPrefix("#") }.map { String($0.dropFirst()) }
        // The usage line: `sonde serve --config examples/serve/sonde.yaml` and the options it gives (bracketed ones are optional).
        let usage = try #require(comments.first { $0.contains("sonde serve --config examples/serve/sonde.yaml") })
        let given = usage.components(separatedBy: "sonde.yaml")[1].components(separatedBy: "[")[0]
            .split(separator: " ").map(String.init).filter { $0.hasPrefix("--") }
        // The commands in backticks on the reload lines.
        let reloadText = comments.drop { !$0.contains("Reload") }.prefix(4).joined(separator: " ")
        let commands = reloadText.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let curl = try #require(commands.first { $0.hasPrefix("curl ") }, "\(reloadText)")
        let hup = try #require(commands.first { $0.hasPrefix("kill -HUP") }, "\(reloadText)")

        let serve = try Serve(config: example.replacingOccurrences(of: "listen: 127.0.0.1:9166", with: "listen: 127.0.0.1:0"), arguments: given)
        defer { serve.stop() }
        func reloads() -> Int { serve.logText().components(separatedBy: "sonde serve: reloaded").count - 1 }
        let posted = try Harness.run("/bin/sh", ["-c", curl.replacingOccurrences(of: "127.0.0.1:9166", with: "127.0.0.1:\(serve.port)")])
        #expect(posted.status == 0 && !posted.stdout.contains("not enabled"), "\(curl): \(posted.stdout) \(posted.stderr)")
        #expect(Harness.waitFor(seconds: 10) { reloads() == 1 }, "\(curl) did not reload: \(serve.logText().suffix(500))")
        let signalled = try Harness.run("/bin/sh", ["-c", hup.replacingOccurrences(of: "<pid>", with: "\(serve.pid)")])
        #expect(signalled.status == 0, "\(hup): \(signalled.stderr)")
        #expect(Harness.waitFor(seconds: 10) { reloads() == 2 }, "\(hup) did not reload: \(serve.logText().suffix(500))")
    }
}
