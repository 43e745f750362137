import Foundation
import Testing

/// GraphQL subscriptions over WebSocket in the soak (`--graphql-subscription`, graphql-transport-ws;
/// docs/graphql.md) against real, independent servers (Fixtures/graphql_ws_peer.py): ariadne's
/// GraphQLTransportWSHandler under hypercorn, which logs each protocol ping, init, subscribe and
/// tick it handles, and `websockets` servers that break the protocol one way each and print the
/// close code sonde sent them.
@Suite(.serialized) struct GraphQLSubscriptionCLITests {
    /// A peer of this suite: its /graphql URL, its work folder, its stdout and (ariadne) event log.
    final class Peer {
        let pid: pid_t
        let url: String
        let work = Harness.temporaryDirectory()
        let log: String

        init(_ arguments: [String]) throws {
            let port = Harness.freePort()
            log = work + "/events.jsonl"
            let rest = arguments.first == "ariadne" ? ["ariadne", "\(port)", log] : ["hostile", "\(port)"] + arguments
            pid = try BlackboxProbersCLITests.startPython("graphql_ws_peer.py", rest, in: work)
            url = "ws://127.0.0.1:\(port)/graphql"
        }

        /// The events the ariadne peer logged, in order.
        func events(_ name: String) throws -> [[String: Any]] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return try text.split(separator: "\n").map { try Harness.json(String($0)) }.filter { $0["event"] as? String == name }
        }

        /// What the peer printed (a hostile one: "close CODE").
        var output: String { (try? String(contentsOfFile: work + "/graphql_ws_peer.py.out", encoding: .utf8)) ?? "" }

        deinit { Harness.stop(pid, signal: SIGKILL) }
    }

    /// One soak run: its result, its report's soak, its run folder.
    static func soak(_ arguments: [String], output: String) throws -> (Harness.Result, [String: Any], String) {
        let result = try Harness.sonde(["soak", "--progress", "off", "--output-dir", output] + arguments, timeout: 90)
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first { !$0.hasPrefix(".") }, "\(result.stdout)\(result.stderr)"))
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        return (result, try #require((report["soaks"] as? [[String: Any]])?.first), folder)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// A counter every 100 ms for 4 s: acked, one subscribe, the next messages counted with their
    /// gaps (whose median is the server's own, from its log of the ticks it yielded), the protocol's
    /// pings answered by the server (its log counts them), in every format.
    @Test func aSubscriptionIsHeldWithItsGapsAndProtocolPingsAsTheServerSawThem() throws {
        let peer = try Peer(["ariadne"])
        let prom = peer.work + "/soak.prom"
        let (result, soak, folder) = try Self.soak([peer.url, "--graphql-subscription", "subscription Tick($every: Int!) { tick(every: $every) { n sent } }",
                                                    "--graphql-variables", #"{"every": 100}"#, "--duration", "4s", "--ping-interval", "250ms",
                                                    "--prom", prom], output: peer.work + "/out")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let subscription = try #require(soak["subscription"] as? [String: Any], "\(soak)")
        #expect(subscription["operationName"] as? String == "Tick" && subscription["acked"] as? Int == 1 && subscription["subscribes"] as? Int == 1)
        let nexts = subscription["nexts"] as? Int ?? 0
        #expect(nexts >= 25 && nexts <= 41, "about 40 ticks in 4 s: \(nexts)")
        // The server's own view: what it yielded, when.
        let ticks = try peer.events("tick").compactMap { $0["t"] as? Double }
        #expect(ticks.count >= nexts && ticks.count <= nexts + 2, "the server yielded \(ticks.count), sonde counted \(nexts)")
        let serverGapMs = Self.median(zip(ticks.dropFirst(), ticks).map { ($0 - $1) * 1000 })
        let gaps = try #require(subscription["nextGapMs"] as? [String: Any])
        let p50 = gaps["p50"] as? Double ?? 0
        #expect(gaps["count"] as? Int == nexts - 1)
        #expect(abs(p50 - serverGapMs) < 15, "sonde's median gap \(p50) ms, the server's \(serverGapMs) ms")
        // The protocol's pings: each one the server answered is in its log; none missed.
        let pings = try #require(soak["pings"] as? [String: Any])
        let sent = pings["sent"] as? Int ?? 0, answered = pings["answered"] as? Int ?? 0
        let serverPings = try peer.events("ping").count
        #expect(answered >= 10 && pings["missed"] as? Int == 0, "\(pings)")
        #expect(serverPings >= answered && serverPings <= sent, "the server answered \(serverPings) pings; sonde sent \(sent), got \(answered) pongs")
        let rtt = try #require(pings["rttMs"] as? [String: Any])
        #expect((rtt["count"] as? Int) == answered && (rtt["max"] as? Double ?? 1e9) < 250, "\(rtt)")
        // What the server received: one init, one subscribe with id 1, the operation and its variables.
        #expect(try peer.events("init").count == 1)
        let subscribe = try #require(try peer.events("subscribe").first)
        #expect(subscribe["id"] as? String == "1" && subscribe["operationName"] as? String == "Tick")
        #expect((subscribe["variables"] as? [String: Any])?["every"] as? Int == 100, "\(subscribe)")
        let config = try #require(soak["config"] as? [String: Any])
        #expect((config["graphql"] as? [String: Any])?["subprotocol"] as? String == "graphql-transport-ws")
        #expect(config["subprotocols"] as? [String] == ["graphql-transport-ws"])
        // Terminal, HTML, Prometheus.
        #expect(result.stdout.contains("GraphQL subscription Tick (graphql-transport-ws): 1 of 1 attempt acked"), "\(result.stdout)")
        #expect(result.stdout.contains("\(nexts) next (gap ms p50"), "\(result.stdout)")
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("GraphQL subscription Tick (graphql-transport-ws)"))
        let exposition = try String(contentsOfFile: prom, encoding: .utf8)
        #expect(exposition.contains("sonde_ws_graphql_messages{url=\"\(peer.url)\",type=\"next\"} \(nexts)"), "\(exposition)")
        #expect(exposition.contains("sonde_ws_graphql_next_gap_seconds{url=\"\(peer.url)\",quantile=\"0.5\"}"), "\(exposition)")
    }

    /// The protocol's ping RTT against a capture read by tshark's WebSocket dissector: on the wire,
    /// text `{"type":"ping"}` and `{"type":"pong"}` messages, as many as sonde counted, and no
    /// WebSocket ping frame (the protocol's ping replaces them); sonde's median RTT encloses the
    /// wire's (it stamps before its write and after its read) and exceeds it by little.
    @Test func theProtocolPingRTTAgreesWithACapture() throws {
        let peer = try Peer(["ariadne"])
        let port = try #require(Int(peer.url.split(separator: ":").last?.split(separator: "/").first ?? ""))
        let file = peer.work + "/ws.pcap"
        var soak: [String: Any] = [:]
        try CLICaptureTests.capture("/usr/bin/tcpdump", ["-i", "lo", "-U", "--immediate-mode", "-B", "65536", "-w", file, "tcp port \(port)"],
                                    file: file, ready: "listening on", connections: 1) {
            let run = try Self.soak([peer.url, "--graphql-subscription", "subscription { tick(every: 1000) { n } }", "--duration", "3s",
                                     "--ping-interval", "200ms"], output: peer.work + "/out")
            #expect(run.0.status == 0, "\(run.0.stdout)\(run.0.stderr)")
            soak = run.1
        }
        let decoded = try Harness.run("/usr/bin/tshark", ["-r", file, "-d", "tcp.port==\(port),http", "-Y", "websocket", "-T", "fields",
                                                          "-e", "frame.time_relative", "-e", "websocket.opcode", "-e", "websocket.payload.text"])
        var pingsAt: [Double] = [], rtts: [Double] = [], pingFrames = 0
        for line in decoded.stdout.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3, let time = Double(fields[0]) else { continue }
            if fields[1] == "9" { pingFrames += 1 }
            if fields[2] == #"{"type":"ping"}"# { pingsAt.append(time) }
            if fields[2] == #"{"type":"pong"}"#, !pingsAt.isEmpty { rtts.append((time - pingsAt.removeFirst()) * 1000) }
        }
        let pings = try #require(soak["pings"] as? [String: Any])
        #expect(pingFrames == 0, "WebSocket ping frames on the wire: \(pingFrames)")
        #expect(rtts.count == pings["answered"] as? Int && rtts.count >= 10, "\(rtts.count) pongs on the wire, sonde: \(pings)")
        let wire = Self.median(rtts)
        let measured = try #require((pings["rttMs"] as? [String: Any])?["p50"] as? Double)
        #expect(measured >= wire - 0.05 && measured <= wire + 5, "sonde's median ping RTT \(measured) ms, the wire's \(wire) ms")
    }

    /// `--otlp`: the subscription's messages by type arrive as report.json counts them
    /// (Fixtures/otlp_check.py compares), beside the soak's ping metrics (the protocol's pings).
    @Test func theSubscriptionsCountsGoToOTLP() throws {
        let peer = try Peer(["ariadne"])
        let receiver = try OTLPExportCLITests.Receiver()
        defer { receiver.stop() }
        let (result, soak, folder) = try Self.soak([peer.url, "--graphql-subscription", "subscription { boom(after: 3) }", "--duration", "2s",
                                                    "--ping-interval", "200ms", "--otlp", receiver.endpoint], output: peer.work + "/out")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let (summary, status) = try receiver.check(report: folder + "/report.json")
        #expect(status == 0, "\(summary["problems"] ?? "")")
        let nexts = (soak["subscription"] as? [String: Any])?["nexts"] as? Int ?? 0
        #expect(nexts >= 4 && summary["graphqlNextMetric"] as? Int == nexts, "\(summary)")
        #expect((summary["wsPingDurationCount"] as? Int ?? 0) >= 5, "\(summary)")
    }

    /// A subscription whose resolver raises after two items (ariadne: a next with errors, then
    /// complete) fails the soak with the first message, the secret variable redacted; each complete
    /// is followed by a new subscribe with the next id on the same connection.
    @Test func errorsInNextFailTheSoakAndCompleteResubscribes() throws {
        let peer = try Peer(["ariadne"])
        let (result, soak, folder) = try Self.soak([peer.url, "--graphql-subscription", "subscription Boom($token: String) { boom(after: 2, token: $token) }",
                                                    "--graphql-variables", #"{"token": "s3cr3t-value"}"#, "--duration", "2s",
                                                    "--backoff-initial", "300ms"], output: peer.work + "/out")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let subscription = try #require(soak["subscription"] as? [String: Any])
        let completes = subscription["completes"] as? Int ?? 0
        #expect(completes >= 2 && (subscription["subscribes"] as? Int ?? 0) >= completes, "\(subscription)")
        #expect((subscription["nextErrors"] as? Int ?? 0) >= 2 && subscription["errors"] as? Int == 0)
        #expect(subscription["firstError"] as? String == "sensor failed for token REDACTED", "\(subscription)")
        let ids = try peer.events("subscribe").compactMap { $0["id"] as? String }
        #expect(Array(ids.prefix(3)) == ["1", "2", "3"], "\(ids)")
        #expect(try peer.events("init").count == 1, "resubscribed on the same connection")
        #expect((soak["problems"] as? [String])?.first?.hasPrefix("the GraphQL subscription got ") == true, "\(soak["problems"] ?? "")")
        #expect(result.stdout.contains("the first: sensor failed for token REDACTED"), "\(result.stdout)")
        for file in ["report.json", "report.html", "journal.jsonl", "junit.xml"] {
            #expect(!(try String(contentsOfFile: folder + "/" + file, encoding: .utf8)).contains("s3cr3t-value"), "\(file) holds the secret")
        }
    }

    /// A document the server refuses (validation): an `error` message, counted, failing the soak.
    @Test func anErrorMessageFailsTheSoakWithItsMessage() throws {
        let peer = try Peer(["ariadne"])
        let (result, soak, _) = try Self.soak([peer.url, "--graphql-subscription", "subscription { nope }", "--duration", "1s"],
                                              output: peer.work + "/out")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let subscription = try #require(soak["subscription"] as? [String: Any])
        #expect((subscription["errors"] as? Int ?? 0) >= 1 && subscription["nexts"] as? Int == 0, "\(subscription)")
        #expect((subscription["firstError"] as? String ?? "").contains("Cannot query field 'nope'"), "\(subscription)")
    }

    /// Servers that break the protocol: the attempt ends with the cause and close code the protocol
    /// asks for (sonde's close seen by the peer), the code named.
    @Test(arguments: [
        ("noack", "protocolError", 4504, "connectionAcknowledgementTimeout", "client"),
        ("notjson", "protocolError", 4400, "badRequest", "client"),
        ("unknowntype", "protocolError", 4400, "badRequest", "client"),
        ("oversized", "frameTooLarge", 1009, "", "client"),
        ("close4409", "closeFrame", 4409, "subscriberAlreadyExists", "server"),
    ])
    func aServerBreakingTheProtocolEndsTheAttemptWithItsCode(mode: String, cause: String, code: Int, name: String, closedBy: String) throws {
        let peer = try Peer([mode])
        let (result, soak, folder) = try Self.soak([peer.url, "--graphql-subscription", "subscription { tick(every: 100) { n } }", "--duration", "5s",
                                                    "--connect-timeout", "1s", "--max-attempts", "1"], output: peer.work + "/out")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let attempt = try #require((soak["attempts"] as? [[String: Any]])?.first)
        #expect(attempt["cause"] as? String == cause && attempt["closeCode"] as? Int == code && attempt["closedBy"] as? String == closedBy, "\(attempt)")
        let subscription = try #require(soak["subscription"] as? [String: Any])
        #expect((subscription["closes"] as? [String: Int]) == (name.isEmpty ? [:] : [name: 1]), "\(subscription)")
        if !name.isEmpty { #expect(result.stdout.contains("protocol closes: \(name) 1"), "\(result.stdout)") }
        if closedBy == "client" {
            #expect(Harness.waitFor(seconds: 5) { peer.output.contains("close \(code)") }, "the peer saw: \(peer.output)")
        }
    }

    /// A server that does not choose graphql-transport-ws: every attempt fails its handshake, saying why.
    @Test func aServerWithoutTheSubprotocolFailsTheHandshake() throws {
        let peer = try Peer(["nosubprotocol"])
        let (result, soak, _) = try Self.soak([peer.url, "--graphql-subscription", "subscription { tick(every: 100) { n } }", "--duration", "3s",
                                               "--max-attempts", "2", "--backoff-initial", "100ms"], output: peer.work + "/out")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let attempts = try #require(soak["attempts"] as? [[String: Any]])
        #expect(attempts.count == 2 && attempts.allSatisfy { $0["openedAt"] == nil || $0["openedAt"] is NSNull })
        let error = try #require(attempts.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "protocolError")
        #expect(error["message"] as? String == "the server did not choose subprotocol graphql-transport-ws (it answered without Sec-WebSocket-Protocol), which the soak needs")
    }

    /// A suite's soak check carries the subscription (a `@FILE` beside the suite, the variables
    /// and operation as keys); the suite schema knows the keys; `--print-suite` writes them back.
    @Test func aSuiteCarriesTheSubscription() throws {
        let peer = try Peer(["ariadne"])
        let directory = peer.work + "/suite"
        try FileManager.default.createDirectory(atPath: directory + "/ops", withIntermediateDirectories: true)
        try "# ticks\nsubscription Ticks($every: Int!) { tick(every: $every) { n } }\n"
            .write(toFile: directory + "/ops/ticks.graphql", atomically: true, encoding: .utf8)
        try """
        checks:
          - name: ticks
            kind: soak
            url: "\(peer.url)"
            duration: 2s
            graphql-subscription: "@ops/ticks.graphql"
            graphql-variables: '{"every": 100}'
            graphql-operation: Ticks

        """.write(toFile: directory + "/suite.yaml", atomically: true, encoding: .utf8)
        let output = peer.work + "/suite-out"
        let result = try Harness.sonde(["run", directory + "/suite.yaml", "--progress", "off", "--output-dir", output])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let folder = output + "/" + (try #require(try Harness.entries(of: output).first { !$0.hasPrefix(".") }))
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let soak = try #require((report["soaks"] as? [[String: Any]])?.first)
        let subscription = try #require(soak["subscription"] as? [String: Any])
        #expect(soak["check"] as? String == "ticks" && subscription["operationName"] as? String == "Ticks", "\(subscription)")
        #expect((subscription["nexts"] as? Int ?? 0) >= 10, "\(subscription)")
        #expect((try peer.events("subscribe").first?["variables"] as? [String: Any])?["every"] as? Int == 100)
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let valid = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/scripts/validate-suite.py", directory + "/suite.yaml"])
        #expect(valid.status == 0, "\(valid.stdout)\(valid.stderr)")
        let printed = try Harness.sonde(["soak", peer.url, "--graphql-subscription", "subscription S { tick(every: 5) { n } }",
                                         "--graphql-variables", #"{"every": 5}"#, "--graphql-operation", "S", "--print-suite"])
        #expect(printed.status == 0 && printed.stdout.contains(#"graphql-subscription: "subscription S { tick(every: 5) { n } }""#)
            && printed.stdout.contains("graphql-operation: S"), "\(printed.stdout)\(printed.stderr)")
    }

    /// Keys that do not go together, and values that cannot be sent: usage errors, nothing sent.
    @Test(arguments: [
        (["--graphql-subscription", "subscription { a }", "--message-rate", "1"], "message-rate"),
        (["--graphql-variables", #"{"a": 1}"#], "needs graphql-subscription"),
        (["--graphql-subscription", "subscription { a }", "--graphql-variables", "[1]"], "must be a JSON object"),
        (["--graphql-subscription", "subscription { a }", "--graphql-operation", "1bad"], "is not a GraphQL name"),
        (["--graphql-subscription", "  "], "graphql-subscription"),
        (["--graphql-subscription", "@/nonexistent/sub.graphql"], "graphql-subscription"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try Harness.sonde(["soak", "ws://127.0.0.1:9/graphql", "--duration", "1s", "--output-dir", Harness.temporaryDirectory()] + arguments)
        #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
