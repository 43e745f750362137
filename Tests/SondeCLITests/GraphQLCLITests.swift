import Foundation
import Testing

/// GraphQL operations on a probe (docs/graphql.md) against a real, independent GraphQL server:
/// ariadne (PyPI) under hypercorn (Fixtures/graphql_peer.py), which logs what each request carried.
/// Success, errors (graphqlError, exit 1), partial data (graphqlPartial), the operation's name
/// as the request's name, the variables as the server received them, and the usage errors (64);
/// every format shows the new error kinds. Also run on Debian's libcurl 7.88 (`make test`).
@Suite(.serialized) struct GraphQLCLITests {
    /// The peer for this suite: its /graphql URL, its base, its request log.
    final class Peer {
        let pid: pid_t
        let base: String
        let log: String
        let work = Harness.temporaryDirectory()

        init() throws {
            let port = Harness.freePort()
            log = work + "/requests.jsonl"
            pid = try BlackboxProbersCLITests.startPython("graphql_peer.py", ["\(port)", log], in: work)
            base = "http://127.0.0.1:\(port)"
        }

        var url: String { base + "/graphql" }

        /// The requests the peer saw, in order.
        func requests() throws -> [[String: Any]] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return try text.split(separator: "\n").map { try Harness.json(String($0)) }
        }

        deinit { Harness.stop(pid, signal: SIGTERM) }
    }

    /// One probe run: its result, its run folder's report.json, and the folder.
    static func probe(_ arguments: [String], output: String) throws -> (Harness.Result, [String: Any], String) {
        let result = try Harness.sonde(["probe", "--progress", "off", "--output-dir", output] + arguments)
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first { !$0.hasPrefix(".") }, "\(result.stderr)"))
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        return (result, report, folder)
    }

    static func firstTask(_ report: [String: Any]) throws -> [String: Any] {
        try #require((report["probes"] as? [[String: Any]])?.first)
    }

    static func requestNames(_ report: [String: Any]) -> [String?] {
        ((report["summary"] as? [String: Any])?["byRequest"] as? [[String: Any]] ?? []).map { $0["name"] as? String }
    }

    @Test func anOperationIsPostedAsClientsPostIt() throws {
        let peer = try Peer()
        let query = "query GetUser($id: ID!) { user(id: $id) { name } seen }"
        let (result, report, folder) = try Self.probe(["--graphql-query", query, "--graphql-variables", #"{"id": "7", "deep": {"list": [1, 2]}}"#,
                                                       peer.url], output: peer.work + "/ok")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // What reached the server: POST, the GraphQL over HTTP headers, the three members, the variables as given.
        let seen = try #require(try peer.requests().last)
        #expect(seen["method"] as? String == "POST" && seen["contentType"] as? String == "application/json", "\(seen)")
        #expect((seen["accept"] as? String ?? "").hasPrefix("application/graphql-response+json"), "\(seen)")
        #expect(seen["keys"] as? [String] == ["operationName", "query", "variables"] && seen["operationName"] as? String == "GetUser")
        let variables = try #require(seen["variables"] as? [String: Any])
        #expect(variables["id"] as? String == "7" && (variables["deep"] as? [String: Any])?["list"] as? [Int] == [1, 2], "\(variables)")
        // The operation names the request's results, and the task is an ordinary POST with its phases.
        #expect(Self.requestNames(report) == ["GetUser"])
        let task = try Self.firstTask(report)
        #expect(task["name"] as? String == "GetUser" && (task["error"] == nil || task["error"] is NSNull), "\(task)")
        let transaction = try #require((task["transactionMetrics"] as? [[String: Any]])?.first)
        #expect((transaction["request"] as? [String: Any])?["method"] as? String == "POST")
        #expect(transaction["countOfRequestBodyBytesSent"] as? Int ?? 0 > query.utf8.count, "\(transaction)")
        let phases = (transaction["phases"] as? [String: Any]) ?? [:]
        #expect(["connect", "send", "wait", "receive"].allSatisfy { phases[$0] is Double }, "\(phases)")
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)

        // --name wins over the operation's name; --graphql-operation picks the operation and names it.
        let named = try Self.probe(["--graphql-query", "query A { seen } query B { user(id: 2) { name } }", "--graphql-operation", "B",
                                    "--name", "profile", peer.url, peer.url], output: peer.work + "/named")
        #expect(named.0.status == 0, "\(named.0.stderr)")
        #expect(Self.requestNames(named.1) == ["profile", "B"], "\(Self.requestNames(named.1))")
        #expect(try peer.requests().suffix(2).map { $0["operationName"] as? String } == ["B", "B"])
    }

    @Test func errorsAndPartialDataFailInEveryFormat() throws {
        let peer = try Peer()
        // Errors without data (ariadne answers them 400): graphqlError with the server's first message.
        let prom = peer.work + "/errors.prom"
        let (result, report, folder) = try Self.probe(["--graphql-query", "query Broken { broken }", "--prom", prom, peer.url],
                                                      output: peer.work + "/errors")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let error = try #require(try Self.firstTask(report)["error"] as? [String: Any])
        #expect(error["code"] as? String == "graphqlError" && (error["message"] as? String ?? "").contains("database is down"), "\(error)")
        #expect(Self.requestNames(report) == ["Broken"])
        #expect(((report["summary"] as? [String: Any])?["errorsByCode"] as? [String: Int]) == ["graphqlError": 1])
        #expect(result.stdout.contains("graphqlError") && result.stdout.contains("database is down"), "\(result.stdout)")
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        #expect(junit.contains(#"type="graphqlError""#) && junit.contains("database is down"), "\(junit)")
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("graphqlError ×1") && html.contains("database is down"))
        #expect(try String(contentsOfFile: prom, encoding: .utf8).contains(#"sonde_tasks_failed{code="graphqlError"} 1"#))
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)

        // Data beside errors: graphqlPartial, the secret variable's value masked in the server's message.
        let secret = "s3cr3t-tok-91"
        let partial = try Self.probe(["--graphql-query", "query Flaky($token: String!) { secret(token: $token) flaky user(id: 1) { name } }",
                                      "--graphql-variables", #"{"token": "\#(secret)"}"#, "--prom", peer.work + "/partial.prom", peer.url],
                                     output: peer.work + "/partial")
        #expect(partial.0.status == 1, "\(partial.0.stdout)\(partial.0.stderr)")
        let partialError = try #require(try Self.firstTask(partial.1)["error"] as? [String: Any])
        let message = partialError["message"] as? String ?? ""
        #expect(partialError["code"] as? String == "graphqlPartial" && message.contains("partial data") && message.contains("REDACTED"), "\(partialError)")
        #expect(try String(contentsOfFile: partial.2 + "/junit.xml", encoding: .utf8).contains(#"type="graphqlPartial""#))
        #expect(try String(contentsOfFile: peer.work + "/partial.prom", encoding: .utf8).contains(#"sonde_tasks_failed{code="graphqlPartial"} 1"#))
        try Harness.expectNowhere(secret, result: partial.0, folder: partial.2, prom: peer.work + "/partial.prom")
        #expect(try Harness.validate([partial.2 + "/report.json"]).status == 0)
    }

    @Test func aBodyThatIsNoGraphQLResponseFailsClearly() throws {
        let peer = try Peer()
        let (result, report, _) = try Self.probe(["--graphql-query", "{ seen }", peer.base + "/text", peer.base + "/array"], output: peer.work + "/odd")
        #expect(result.status == 1)
        let reasons = (report["probes"] as? [[String: Any]] ?? []).map { ($0["error"] as? [String: Any])?["reason"] as? String }
        #expect(reasons == ["notJSON", "notObject"], "\(report["probes"] ?? "")")
        // 5 MiB of data: received in full (its phases as any), kept and judged only up to 4 MiB.
        let big = try Self.probe(["--graphql-query", "query Big { big(bytes: 5242880) }", peer.url], output: peer.work + "/big")
        #expect(big.0.status == 1)
        let task = try Self.firstTask(big.1)
        #expect((task["error"] as? [String: Any])?["reason"] as? String == "bodyTooLarge", "\(task["error"] ?? "")")
        let transaction = try #require((task["transactionMetrics"] as? [[String: Any]])?.first)
        #expect(transaction["countOfResponseBodyBytesReceived"] as? Int ?? 0 > 5 << 20, "\(transaction["countOfResponseBodyBytesReceived"] ?? "")")
    }

    @Test func badGraphQLArgumentsAreUsageErrors() throws {
        let output = Harness.temporaryDirectory()
        let url = "http://127.0.0.1:9/graphql"
        let cases: [([String], String)] = [
            (["--graphql-query", "{ a }", "--graphql-variables", "[1, 2]"], "must be a JSON object"),
            (["--graphql-query", "{ a }", "--graphql-variables", "{id: 1}"], "is not JSON"),
            (["--graphql-variables", #"{"id": 1}"#], "needs graphql-query"),
            (["--graphql-query", "{ a }", "--graphql-operation", "not-a-name"], "is not a GraphQL name"),
            (["--graphql-query", "{ a }", "--data", "x"], "choose one of data, data-file and graphql-query"),
            (["--graphql-query", "{ a }", "-X", "GET"], "sent with POST"),
            (["--graphql-query", "@" + output + "/missing.graphql"], "missing.graphql"),
        ]
        for (arguments, message) in cases {
            let result = try Harness.sonde(["probe", "--output-dir", output] + arguments + [url])
            #expect(result.status == 64 && result.stderr.contains(message), "\(arguments): \(result.status) \(result.stderr)")
        }
        #expect(try Harness.entries(of: output).isEmpty, "a usage error starts no run")
    }

    @Test func aSuiteCarriesTheOperation() throws {
        let peer = try Peer()
        let directory = peer.work + "/suite"
        try FileManager.default.createDirectory(atPath: directory + "/ops", withIntermediateDirectories: true)
        try "# the user's name\nquery GetUser($id: ID!) { user(id: $id) { name } }\n".write(toFile: directory + "/ops/user.graphql", atomically: true, encoding: .utf8)
        try """
        checks:
          - name: user
            kind: probe
            urls: ["\(peer.url)"]
            graphql-query: "@ops/user.graphql"
            graphql-variables: '{"id": "42"}'
          - name: broken
            kind: probe
            urls: ["\(peer.url)"]
            graphql-query: "query Broken { broken }"

        """.write(toFile: directory + "/suite.yaml", atomically: true, encoding: .utf8)
        let output = peer.work + "/suite-out"
        let result = try Harness.sonde(["run", directory + "/suite.yaml", "--progress", "off", "--output-dir", output])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first { !$0.hasPrefix(".") }))
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let checks = try #require(report["checks"] as? [[String: Any]])
        #expect(checks.map { Self.requestNames($0) } == [["GetUser"], ["Broken"]], "\(checks.map { Self.requestNames($0) })")
        #expect(checks.map { (($0["summary"] as? [String: Any])?["errorsByCode"] as? [String: Int]) ?? [:] } == [[:], ["graphqlError": 1]])
        #expect(try peer.requests().first?["variables"] as? [String: String] == ["id": "42"])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        // The suite's schema knows the keys (scripts/validate-suite.py, the suite JSON Schema).
        let valid = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/scripts/validate-suite.py", directory + "/suite.yaml"])
        #expect(valid.status == 0, "\(valid.stdout)\(valid.stderr)")
    }
}
