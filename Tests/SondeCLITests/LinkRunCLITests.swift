import Foundation
import Testing

/// `--link` on probe, soak, resume and suites (issue 29), against independent peers on the host's
/// loopback: nginx (h1, h2, resume trials), hypercorn (h3), a Python `websockets` server (a soak
/// through outages). Root only; each run makes and removes its own namespace.
@Suite(.serialized, .enabled(if: geteuid() == 0, "needs root: --link creates a network namespace and TUN devices"))
struct LinkRunCLITests {
    /// The report.json of the only run folder under `output`.
    static func reportPath(_ output: String) throws -> String {
        let folder = try #require(try Harness.entries(of: output).first { !$0.hasPrefix(".") && $0 != "history.sqlite" })
        return output + "/" + folder + "/report.json"
    }

    static func report(_ output: String) throws -> [String: Any] {
        try Harness.json(try String(contentsOfFile: try reportPath(output), encoding: .utf8))
    }

    static func transactions(_ report: [String: Any]) -> [[String: Any]] {
        ((report["probes"] as? [[String: Any]]) ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
    }

    static func phase(_ transaction: [String: Any], _ name: String) -> Double? {
        (transaction["phases"] as? [String: Any])?[name] as? Double
    }

    /// 3G is 100 ms each way: a cold connect takes one RTT (200 ms, plus a SYN's serialization), the
    /// wait at least one RTT; the report says which link every number crossed, with its counters.
    @Test func aProbeOverThreeGShowsPhasesThatMatchTheProfile() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--link", "3g,seed=5", "--count", "2", "--output-dir", output,
                                        "http://127.0.0.1:\(nginx.http)/1k.bin"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("link 3g: down 780 kbit/s +100 ms, up 330 kbit/s +100 ms (RTT 200 ms)"), "\(result.stdout)")
        let report = try Self.report(output)
        let transactions = Self.transactions(report)
        #expect(transactions.count == 2)
        let connect = try #require(transactions.first.flatMap { Self.phase($0, "connect") })
        #expect(connect >= 200 && connect < 230, "connect \(connect) ms over a 200 ms RTT")
        for transaction in transactions {
            let wait = try #require(Self.phase(transaction, "wait"))
            #expect(wait >= 200 && wait < 260, "wait \(wait) ms")
        }
        #expect(((report["probes"] as? [[String: Any]]) ?? []).allSatisfy { $0["link"] as? String == "3g" })
        let link = try #require((report["run"] as? [String: Any])?["link"] as? [String: Any])
        let conditions = try #require(link["conditions"] as? [String: Any])
        #expect(conditions["profile"] as? String == "3g" && conditions["rateDownBitsPerSecond"] as? Int == 780_000
                && conditions["delayUpMs"] as? Double == 100)
        #expect(link["seed"] as? Int == 5, "the profile's seed= key is the emulator's seed")
        // Every HAR entry names the link its transaction crossed.
        let har = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: try Self.reportPath(output))
            .deletingLastPathComponent().appendingPathComponent("report.har"))) as? [String: Any]
        let entries = try #require((har?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 2 && entries.allSatisfy { $0["_link"] as? String == "3g" }, "\(entries.map { $0["_link"] ?? "none" })")
        let down = try #require(link["down"] as? [String: Any]), up = try #require(link["up"] as? [String: Any])
        // Two 1 KiB bodies and their headers went down; requests and ACKs went up.
        #expect((down["bytesDelivered"] as? Int ?? 0) > 2048 && (up["packetsIn"] as? Int ?? 0) >= 3, "\(link)")
        #expect(down["droppedByLoss"] as? Int == 0 && up["droppedByQueue"] as? Int == 0)
        // The emulator's counters per connection: the transactions' one TCP connection, by its local port.
        let connections = try #require(link["connections"] as? [[String: Any]])
        let localPort = try #require(transactions.first?["localPort"] as? Int)
        let connection = try #require(connections.first { $0["localPort"] as? Int == localPort }, "\(connections)")
        #expect(connection["protocolName"] as? String == "tcp" && connection["remotePort"] as? Int == nginx.http)
        #expect(((connection["down"] as? [String: Any])?["packetsIn"] as? Int ?? 0) >= 2)
        let validation = try Harness.validate([try Self.reportPath(output)])
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
    }

    /// Each check of a suite runs on its own link (`link:` in `defaults`, a check's own
    /// overriding it); the check says which, and the host's network is untouched afterwards.
    @Test func eachCheckOfASuiteRunsOnItsOwnLink() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let directory = Harness.temporaryDirectory()
        let suite = directory + "/suite.yaml"
        try """
        defaults:
          link: "delay-down=20ms,delay-up=20ms"
        checks:
          - name: near
            kind: probe
            urls: ["https://127.0.0.1:\(nginx.https)/1k.bin"]
            cacert: \(nginx.certificate)
            http2: true
          - name: far
            kind: probe
            urls: ["http://127.0.0.1:\(nginx.http)/1k.bin"]
            link: edge
        """.write(toFile: suite, atomically: true, encoding: .utf8)
        let output = directory + "/out"
        let result = try Harness.sonde(["run", suite, "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try Self.report(output)
        let checks = try #require(report["checks"] as? [[String: Any]])
        let profiles = checks.map { (($0["link"] as? [String: Any])?["conditions"] as? [String: Any])?["profile"] as? String }
        #expect(profiles == ["custom", "edge"])
        #expect(checks.allSatisfy { ($0["link"] as? [String: Any])?["down"] != nil })
        let probes = try #require(report["probes"] as? [[String: Any]])
        let near = try #require(probes.first { $0["check"] as? String == "near" }.flatMap { ($0["transactionMetrics"] as? [[String: Any]])?.first })
        let far = try #require(probes.first { $0["check"] as? String == "far" }.flatMap { ($0["transactionMetrics"] as? [[String: Any]])?.first })
        let nearConnect = try #require(Self.phase(near, "connect")), farConnect = try #require(Self.phase(far, "connect"))
        // TLS 1.3 over h2 adds one RTT to the near check; EDGE's RTT is 840 ms.
        let nearTLS = try #require(Self.phase(near, "tls"))
        #expect(nearConnect >= 40 && nearConnect < 60 && nearTLS >= 40 && nearTLS < 80, "near: connect \(nearConnect), tls \(nearTLS)")
        #expect(near["networkProtocolName"] as? String == "h2")
        #expect(farConnect >= 840 && farConnect < 900, "far: connect \(farConnect)")
        #expect(probes.allSatisfy { ($0["link"] as? String) == (($0["check"] as? String) == "far" ? "edge" : "custom") })
        // A namespace left behind is one whose sonde (the pid in its name) has ended; another sonde
        // running on the machine beside the tests has its own, alive.
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []).filter { name in
            guard name.hasPrefix("sonde-link-"), let pid = Int32(name.dropFirst("sonde-link-".count)) else { return false }
            return kill(pid, 0) != 0
        }
        #expect(left.isEmpty, "a namespace was left: \(left)")
    }

    /// HTTP/3 over the link: QUIC's datagrams cross the emulator too, so the QUIC handshake
    /// (libcurl's connect phase for h3) takes one RTT over 20 ms each way.
    @Test(.enabled(if: LibcurlFacts.runningHasHTTP3, "needs a libcurl with HTTP/3 in use (scripts/provide-libcurl.sh)"),
          .enabled(if: H3Server.available, "needs hypercorn and aioquic"))
    func quicCrossesTheLinkToo() throws {
        let server = try H3Server()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--json", "--http3-only", "--link", "delay-down=20ms,delay-up=20ms", "--cacert", server.caFile,
                                        "--output-dir", output, "https://127.0.0.1:\(server.quicPort)/"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let transaction = try #require(Self.transactions(try Harness.json(result.stdout)).first)
        #expect(transaction["networkProtocolName"] as? String == "h3")
        let connect = (Self.phase(transaction, "connect") ?? 0) + (Self.phase(transaction, "tls") ?? 0)
        #expect(connect >= 40 && connect < 100, "QUIC connect and TLS \(connect) ms over a 40 ms RTT")
    }

    /// A soak over a link that goes dark for 2 s every 5 s (a phone in a tunnel), against a
    /// Python `websockets` server: pings go unanswered, the connection is declared lost and comes
    /// back once the link does; the link's counters show the outage's drops.
    @Test func aSoakThroughOutagesDisconnectsAndRecovers() throws {
        let port = Harness.freePort()
        let log = NSTemporaryDirectory() + "sonde-ws-link-\(UUID().uuidString).log"
        let server = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/ws_echo_server.py", "\(port)"],
                                       stdout: log, stderr: log)
        defer { Harness.stop(server, signal: SIGKILL) }
        #expect(Harness.waitFor(seconds: 10) { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("ready") == true })
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", "ws://127.0.0.1:\(port)/", "--link", "delay-down=10ms,delay-up=10ms,outage=2s/5s",
                                        "--duration", "9s", "--ping-interval", "250ms", "--pong-timeout", "500ms",
                                        "--connect-timeout", "1s", "--backoff-initial", "200ms", "--backoff-max", "400ms",
                                        "--output-dir", output], timeout: 60)
        let report = try Self.report(output)
        let soak = try #require((report["soaks"] as? [[String: Any]])?.first)
        let reconnects = try #require(soak["reconnects"] as? [String: Any])
        #expect((reconnects["count"] as? Int ?? 0) >= 1, "\(reconnects)")
        let disconnects = (soak["disconnects"] as? [String: Any])?["byCause"] as? [String: Int] ?? [:]
        #expect(disconnects.values.reduce(0, +) >= 1, "\(disconnects)")
        #expect(soak["upAtEnd"] as? Int == 1 || (soak["timeline"] as? [[String: Any]])?.isEmpty == false)
        #expect(result.stdout.contains("recovered"), "\(result.stdout)")
        let link = try #require((report["run"] as? [String: Any])?["link"] as? [String: Any])
        let dropped = ((link["down"] as? [String: Any])?["droppedByOutage"] as? Int ?? 0) + ((link["up"] as? [String: Any])?["droppedByOutage"] as? Int ?? 0)
        #expect(dropped >= 1, "\(link)")
    }

    /// Resume trials over a lossy, rate-limited link against nginx stay 100 % intact, the
    /// killed worker's process included (it inherits the link).
    @Test func resumeTrialsOverALossyLinkStayIntact() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", "http://127.0.0.1:\(nginx.http)/3m.bin", "--link", "rate-down=40Mbit,delay-down=5ms,delay-up=5ms,loss-down=1%",
                                        "--trials", "3", "--output-dir", output], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try Self.report(output)
        let trials = try #require(report["resumeTrials"] as? [[String: Any]])
        #expect(trials.count == 3 && trials.allSatisfy { $0["intact"] as? Bool == true }, "\(trials.map { $0["intact"] ?? "?" })")
        let down = try #require(((report["run"] as? [String: Any])?["link"] as? [String: Any])?["down"] as? [String: Any])
        // The reference and three trials of 3 MB crossed the link; 1 % of about 8,000 packets were lost.
        #expect((down["bytesDelivered"] as? Int ?? 0) > 9_000_000 && (down["droppedByLoss"] as? Int ?? 0) > 10, "\(down)")
        // Every loss is some connection's: the per-connection counters add up to the link's.
        let connections = try #require(((report["run"] as? [String: Any])?["link"] as? [String: Any])?["connections"] as? [[String: Any]])
        let lost = connections.reduce(0) { $0 + (($1["down"] as? [String: Any])?["droppedByLoss"] as? Int ?? 0) }
        #expect(lost == down["droppedByLoss"] as? Int, "\(lost) of \(down)")
        #expect(connections.count >= 4, "the reference and each trial's legs: \(connections.count)")
    }

    /// The example suite (examples/suites/mobile-links.yaml) against hypercorn: the same resources
    /// over HTTP/1.1, HTTP/2 and HTTP/3 on LTE and on a lossy LTE (a `links:` entry), three checks at
    /// once, each on its own link; the suite compares the protocols link by link, phase by phase.
    @Test(.enabled(if: LibcurlFacts.runningHasHTTP3, "needs a libcurl with HTTP/3 in use (scripts/provide-libcurl.sh)"),
          .enabled(if: H3Server.available, "needs hypercorn and aioquic"))
    func theMobileLinksExampleComparesProtocolsPerLink() throws {
        let server = try H3Server()
        defer { server.stop() }
        for (name, value) in ["SONDE_H3_TCP": "https://127.0.0.1:\(server.tcpPort)", "SONDE_H3_QUIC": "https://127.0.0.1:\(server.quicPort)",
                              "SONDE_H3_CA": server.caFile] { setenv(name, value, 1) }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["run", Harness.root + "/examples/suites/mobile-links.yaml", "--output-dir", output], timeout: 240)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("p50 by link, URL and protocol"), "\(result.stdout)")
        let path = try Self.reportPath(output)
        let report = try Self.report(output)
        let checks = try #require(report["checks"] as? [[String: Any]])
        #expect(checks.count == 6 && checks.allSatisfy { $0["status"] as? String == "passed" })
        for check in checks {
            let name = check["name"] as? String ?? ""
            let conditions = (check["link"] as? [String: Any])?["conditions"] as? [String: Any]
            #expect(conditions?["profile"] as? String == (name.hasPrefix("lossy") ? "lossy-lte" : "lte"), "\(name)")
            let protocols = ((check["summary"] as? [String: Any])?["protocols"] as? [String: Any])?.keys.sorted()
            let expected = name.hasSuffix("h1") ? "http/1.1" : name.hasSuffix("h2") ? "h2" : "h3"
            #expect(protocols == [expected], "\(name): \(protocols ?? [])")
        }
        // LTE's RTT is 115 ms: every cold connect (TCP, or QUIC's handshake) takes at least that.
        for transaction in Self.transactions(report) {
            #expect((Self.phase(transaction, "connect") ?? 0) >= 115, "\(transaction["phases"] ?? "")")
        }
        let html = try String(contentsOfFile: path.replacingOccurrences(of: "report.json", with: "report.html"), encoding: .utf8)
        #expect(html.contains("Phases by link, URL and protocol") && html.contains("Emulated link <code>lossy-lte</code>"))
        let junit = try String(contentsOfFile: path.replacingOccurrences(of: "report.json", with: "junit.xml"), encoding: .utf8)
        #expect(junit.contains(#"<property name="link" value="lossy-lte"/>"#))
        #expect(try Harness.validate([path]).status == 0)
    }

    /// Without CAP_NET_ADMIN and CAP_SYS_ADMIN: exit 64, one sentence, no run folder.
    @Test func withoutPrivilegesAProbeWithALinkIsAUsageError() throws {
        let output = Harness.temporaryDirectory()
        let result = try Harness.run("/usr/bin/setpriv", ["--bounding-set", "-net_admin,-sys_admin", "--inh-caps", "-net_admin,-sys_admin",
                                                          Harness.sonde, "probe", "--link", "3g", "--output-dir", output, "http://127.0.0.1:9/"])
        #expect(result.status == 64, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("--link needs root: CAP_NET_ADMIN and CAP_SYS_ADMIN"), "\(result.stderr)")
        #expect(((try? Harness.entries(of: output)) ?? []).isEmpty)
    }

    /// `--capture` of a single check over a link is taken on the emulated side (the link's device,
    /// inside its namespace): each transaction's connection is there, with the link's RTT as its
    /// initial RTT (tcpdump's clock, not sonde's). A suite's checks on links cannot be captured yet.
    @Test func aCaptureOfALinkedProbeIsTakenOnTheEmulatedSide() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--link", "delay-down=20ms,delay-up=20ms", "--capture", "--count", "2", "--no-reuse",
                                        "--output-dir", output, "http://127.0.0.1:\(nginx.http)/1k.bin"], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("capturing on sonde"), "\(result.stdout)")
        let transactions = Self.transactions(try Self.report(output))
        #expect(transactions.count == 2)
        for transaction in transactions {
            let capture = try #require(transaction["capture"] as? [String: Any], "\(transaction)")
            let rtt = try #require(capture["initialRttMs"] as? Double)
            #expect(rtt >= 40 && rtt < 50, "initial RTT \(rtt) ms over 20/20 ms")
            #expect(capture["connectAgrees"] as? Bool == true)
        }
        let suite = Harness.temporaryDirectory() + "/suite.yaml"
        try "checks:\n  - {name: a, kind: probe, urls: [\"http://127.0.0.1:9/\"], link: lte}\n".write(toFile: suite, atomically: true, encoding: .utf8)
        let refused = try Harness.sonde(["run", suite, "--capture", "--output-dir", Harness.temporaryDirectory()])
        #expect(refused.status == 64 && refused.stderr.contains("ip netns exec sonde-link-"), "\(refused.stderr)")
    }

    /// A profile that does not parse is refused before anything runs, naming the key.
    @Test func aBadProfileIsRefusedNamingItsKey() throws {
        let result = try Harness.sonde(["probe", "--link", "3g,loss-down=150%", "http://127.0.0.1:9/"])
        #expect(result.status == 64 && result.stderr.contains("loss-down"), "\(result.stderr)")
    }
}
