import Foundation
import SondeCore
import Testing

/// `sonde soak` against independent peers that do what real servers do and what broken ones do
/// (issue #18): a Python `websockets` server that pushes messages of its own and answers the
/// upgrade with secret-bearing headers, and a raw-socket Python server that breaks RFC 6455 one
/// rule at a time and reports the close code sonde sent it.
extension SoakCLITests {
    /// Starts a Python fixture on a free loopback port; waits (at most 10 s) for its "ready" line.
    private static func startFixture(_ name: String) throws -> (pid: pid_t, port: Int, log: String) {
        let port = Harness.freePort()
        let log = NSTemporaryDirectory() + "sonde-\(name)-\(UUID().uuidString).log"
        let pid = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/" + name, "\(port)"],
                                    stdout: log, stderr: log)
        if Harness.waitFor(seconds: 10, { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("ready") == true }) {
            return (pid, port, log)
        }
        Harness.stop(pid, signal: SIGKILL)
        throw Harness.SpawnError(message: "\(name) did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    private func folder(_ output: String) throws -> String {
        output + "/" + (try #require(try Harness.entries(of: output).first))
    }

    @Test func messagesTheServerPushesAreCountedAsItsOwnNotAsCorruptedEchoes() throws {
        let server = try Self.startFixture("ws_push_server.py")
        defer { Harness.stop(server.pid, signal: SIGKILL) }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", "ws://127.0.0.1:\(server.port)/", "--duration", "3s", "--ping-interval", "1s",
                                        "--message-rate", "10", "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ soak passed, no disconnects"), "\(result.stdout)")
        #expect(result.stdout.contains("from the server 2 (23 bytes"), "\(result.stdout)")
        let run = try folder(output)
        #expect(try Harness.validate([run + "/report.json"]).status == 0)
        let report = try Harness.json(String(contentsOfFile: run + "/report.json", encoding: .utf8))
        let soak = try #require((report["soaks"] as? [[String: Any]])?.first)
        #expect(soak["passed"] as? Bool == true, "\(soak["problems"] ?? "")")
        let messages = try #require(soak["messages"] as? [String: Any])
        let sent = messages["sent"] as? Int ?? 0, received = messages["received"] as? Int ?? 0
        #expect(messages["corrupted"] as? Int == 0 && messages["duplicated"] as? Int == 0)
        #expect(sent > 10 && sent == received + (messages["lost"] as? Int ?? -1), "\(messages)")
        // The greeting (7 bytes of text) and the 16-byte binary push, once per connection.
        let fromServer = try #require(messages["fromServer"] as? [String: Any], "\(messages)")
        #expect(fromServer["count"] as? Int == 2 && fromServer["bytes"] as? Int == 23, "\(fromServer)")
        let rate = try #require(fromServer["ratePerSecond"] as? Double)
        #expect(rate > 0.4 && rate < 1.5, "2 messages over about 3 s: \(rate)/s")
        let attempt = try #require((soak["attempts"] as? [[String: Any]])?.first)
        let own = (attempt["messages"] as? [String: Any])?["fromServer"] as? [String: Any]
        #expect(own?["count"] as? Int == 2 && own?["bytes"] as? Int == 23, "\(attempt)")
        let html = try String(contentsOfFile: run + "/report.html", encoding: .utf8)
        #expect(html.contains("2 messages of its own (23 bytes"), "the HTML soak section names the server's messages")
    }

    /// Frames a client must not accept (RFC 6455 §5.1, §5.2, §5.5, §8.1) and frames over sonde's
    /// maximum frame size: each fails the connection with the close code the RFC asks for, sent by
    /// sonde and seen by the peer, and the attempt says why.
    @Test(arguments: [
        ("masked", "protocolError", 1002), ("rsv", "protocolError", 1002), ("opcode", "protocolError", 1002),
        ("utf8", "protocolError", 1007), ("huge", "frameTooLarge", 1009), ("giant", "frameTooLarge", 1009),
        ("fragmentedping", "protocolError", 1002), ("longping", "protocolError", 1002),
    ])
    func aFrameBreakingTheProtocolFailsTheConnectionWithTheRightCause(mode: String, cause: String, code: Int) throws {
        let server = try Self.startFixture("ws_rogue_server.py")
        defer { Harness.stop(server.pid, signal: SIGKILL) }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", "ws://127.0.0.1:\(server.port)/\(mode)", "--duration", "10s", "--ping-interval", "1s",
                                        "--max-attempts", "1", "--output-dir", output], timeout: 60)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("disconnects: \(cause) 1"), "\(result.stdout)")
        let run = try folder(output)
        #expect(try Harness.validate([run + "/report.json"]).status == 0)
        let report = try Harness.json(String(contentsOfFile: run + "/report.json", encoding: .utf8))
        let attempt = try #require(((report["soaks"] as? [[String: Any]])?.first?["attempts"] as? [[String: Any]])?.first)
        #expect(attempt["openedAt"] is String)
        #expect(attempt["cause"] as? String == cause, "\(attempt)")
        #expect(attempt["closedBy"] as? String == "client" && attempt["closeCode"] as? Int == code, "\(attempt)")
        let reason = attempt["closeReason"] as? String ?? ""
        #expect(!reason.isEmpty)
        if cause == "frameTooLarge" { #expect(reason.contains("16777216 bytes"), "the limit is named: \(reason)") }
        // The peer saw that close code on the wire.
        let seen = Harness.waitFor(seconds: 5) {
            (try? String(contentsOfFile: server.log, encoding: .utf8))?.contains("\(mode) close \(code)") == true
        }
        #expect(seen, "\((try? String(contentsOfFile: server.log, encoding: .utf8)) ?? "")")
    }

    /// Issue 27 #13: a Python `websockets` server stopped mid-soak makes one outage in which at
    /// least four reconnect attempts are refused, then comes back. That is one reconnect (one
    /// recovery; `ws.reconnects.count` judges it), with the attempts as their own figures; the
    /// refused attempts are no disconnects, in the words, the JSON and the timeline, and the RTT
    /// line is broken over the outage.
    @Test func oneOutageWithRefusedAttemptsIsOneReconnect() throws {
        let port = Harness.freePort()
        func startServer() throws -> pid_t {
            let log = NSTemporaryDirectory() + "sonde-ws-outage-\(UUID().uuidString).log"
            let pid = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/ws_echo_server.py", "\(port)"],
                                        stdout: log, stderr: log)
            if Harness.waitFor(seconds: 10, { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("ready") == true }) { return pid }
            Harness.stop(pid, signal: SIGKILL)
            throw Harness.SpawnError(message: "the Python websockets server did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        var server = try startServer()
        defer { Harness.stop(server, signal: SIGKILL) }
        let output = Harness.temporaryDirectory()
        let stdout = output + "/../soak-outage-\(UUID().uuidString).out"
        let soak = try Harness.spawn(Harness.sonde, ["soak", "ws://127.0.0.1:\(port)/", "--duration", "7s", "--ping-interval", "100ms",
                                                     "--backoff-initial", "150ms", "--backoff-max", "300ms", "--jitter", "none",
                                                     "--threshold", "ws.reconnects.count==1", "--output-dir", output],
                                     stdout: stdout, stderr: "/dev/null")
        defer { Harness.stop(soak, signal: SIGKILL) }
        let connected = Harness.waitFor(seconds: 20) { Harness.journalLines(under: output, containing: #""type":"ws-samples""#) >= 1 }
        #expect(connected, "the soak never journalled a ping sample")
        Harness.stop(server, signal: SIGKILL)
        let refused = Harness.waitFor(seconds: 20) {
            Harness.journalLines(under: output, containing: "connectionRefused", #""type":"ws-attempt""#) >= 4
        }
        #expect(refused, "fewer than four refused attempts while the server was down")
        server = try startServer()
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(30)
        while waitpid(soak, &status, WNOHANG) == 0 && Date() < deadline { usleep(50_000) }
        let printed = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
        #expect((status >> 8) & 0xff == 0, "exit status \(status): \(printed)")
        #expect(printed.contains("✓ threshold ws.reconnects.count==1"), "\(printed)")
        #expect(printed.contains("reconnects 1,"), "\(printed)")
        #expect(printed.contains("✓ soak recovered from 1 disconnect"), "\(printed)")
        #expect(!printed.contains("handshakeFailure"), "a refused attempt is no disconnect: \(printed)")

        let run = try folder(output)
        #expect(try Harness.validate([run + "/report.json"]).status == 0)
        let report = try Harness.json(String(contentsOfFile: run + "/report.json", encoding: .utf8))
        let result = try #require((report["soaks"] as? [[String: Any]])?.first)
        let attempts = try #require(result["attempts"] as? [[String: Any]])
        let refusedCount = attempts.filter { ($0["error"] as? [String: Any])?["code"] as? String == "connectionRefused" }.count
        #expect(refusedCount >= 4, "\(attempts.count) attempts")
        let reconnects = try #require(result["reconnects"] as? [String: Any])
        #expect(reconnects["count"] as? Int == 1, "\(reconnects)")
        #expect(reconnects["attempts"] as? Int == refusedCount + 1, "\(reconnects)")
        #expect((reconnects["failedAttempts"] as? [String: Int]) == ["connectionRefused": refusedCount], "\(reconnects)")
        #expect(((reconnects["timeToRecoverMs"] as? [String: Any])?["count"] as? Int) == 1)
        let disconnects = try #require((result["disconnects"] as? [String: Any])?["byCause"] as? [String: Int])
        #expect(disconnects["handshakeFailure"] == nil && disconnects.filter { $0.key != "runEnded" }.values.reduce(0, +) == 1, "\(disconnects)")
        let line = try #require((result["timeline"] as? [[String: Any]])?.first)
        let marks = try #require(line["disconnects"] as? [[String: Any]])
        #expect(marks.count == 1 && marks.first?["recoveredAtMs"] is Double, "\(marks)")
        #expect((line["failedAttemptsAtMs"] as? [Double])?.count == refusedCount)

        // The HTML: one disconnect line, the refused attempts as their own marks, the RTT line
        // in two pieces (before and after the outage), and the outage shaded.
        let html = try String(contentsOfFile: run + "/report.html", encoding: .utf8)
        #expect(html.components(separatedBy: "class=\"disconnect\"").count - 1 == 1)
        #expect(html.components(separatedBy: "class=\"failed-attempt\"").count - 1 == refusedCount)
        #expect(html.components(separatedBy: "<polyline").count - 1 == 2)
        #expect(html.contains("class=\"outage\""))
        #expect(html.contains("recovered from 1 disconnect"))
    }

    /// A soak with no disconnect passed, it did not "recover"; nor did an idle-timeout discovery.
    @Test func aSoakWithoutADisconnectIsNotSaidToHaveRecovered() throws {
        let server = try Self.startFixture("ws_echo_server.py")
        defer { Harness.stop(server.pid, signal: SIGKILL) }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", "ws://127.0.0.1:\(server.port)/", "--duration", "1s", "--ping-interval", "100ms",
                                        "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ soak passed, no disconnects"), "\(result.stdout)")
        #expect(!result.stdout.contains("recovered"), "\(result.stdout)")
        let html = try String(contentsOfFile: try folder(output) + "/report.html", encoding: .utf8)
        #expect(html.contains("<p class=\"status passed\">passed, no disconnects</p>"))
        #expect(!html.contains("<p class=\"status passed\">recovered"))
    }

    @Test func secretsInTheUpgradeResponseReachNoOutput() throws {
        let server = try Self.startFixture("ws_push_server.py")
        defer { Harness.stop(server.pid, signal: SIGKILL) }
        let output = Harness.temporaryDirectory()
        // The server selects the subprotocol sonde offers, a token here (browsers cannot set
        // Authorization on a WebSocket, so APIs take tokens this way), named secret by --redact.
        let result = try Harness.sonde(["soak", "ws://127.0.0.1:\(server.port)/", "--duration", "1s", "--ping-interval", "200ms",
                                        "--subprotocol", "bearer.PUSH-SECRET-0", "--redact", "Sec-WebSocket-Protocol",
                                        "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let run = try folder(output)
        let report = try Harness.json(String(contentsOfFile: run + "/report.json", encoding: .utf8))
        let attempt = try #require(((report["soaks"] as? [[String: Any]])?.first?["attempts"] as? [[String: Any]])?.first)
        let headers = (attempt["handshake"] as? [String: Any])?["responseHeaders"] as? [[String: Any]] ?? []
        let names = Set(headers.compactMap { ($0["name"] as? String)?.lowercased() })
        #expect(names.isSuperset(of: ["location", "content-location", "refresh", "link", "set-cookie", "sec-websocket-protocol"]), "\(names)")
        let files = ["report.json", "report.html", "journal.jsonl", "junit.xml"].map { (name: $0, text: (try? String(contentsOfFile: run + "/" + $0, encoding: .utf8)) ?? "") }
        func check(_ secrets: [String]) {
            for secret in secrets {
                #expect(!result.stdout.contains(secret), "stdout shows \(secret)")
                for file in files { #expect(!file.text.contains(secret), "\(file.name) holds \(secret)") }
            }
        }
        // The offered and selected subprotocol, the cookie, and the URLs in Location,
        // Content-Location, Refresh and Link.
        check(["PUSH-SECRET-0", "PUSH-SECRET-5", "PUSH-SECRET-1", "PUSH-SECRET-2", "PUSH-SECRET-3", "PUSH-SECRET-4"])
    }
}
