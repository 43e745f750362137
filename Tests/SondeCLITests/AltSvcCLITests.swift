import Foundation
import Testing

/// Alt-Svc when it goes wrong (issue 27 #2 and #9), against Caddy 2.6 and hypercorn: a cache
/// file line naming another host is never used nor kept; an alternative that does not answer
/// (nothing on its UDP port, or a port that drops every packet) costs one attempt, after which the
/// request goes to the origin over TCP and the alternative is not used again nor kept; QUIC-only
/// failures say QUIC. Nothing is ever sent beyond loopback (127.0.0.2 plays "another host").
@Suite(.serialized, .enabled(if: LibcurlFacts.runningHasHTTP3,
                             "needs a libcurl with HTTP/3 in use (scripts/provide-libcurl.sh; see sonde version)"))
struct AltSvcCLITests {
    /// `sonde probe --json --cacert CA --output-dir <a new folder> ARGUMENTS`.
    static func probe(caFile: String, _ arguments: [String], output: String = Harness.temporaryDirectory()) throws -> Harness.Result {
        try Harness.sonde(["probe", "--json", "--cacert", caFile, "--output-dir", output] + arguments, timeout: 90)
    }

    static func cacheFile() throws -> String {
        let folder = Harness.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/alt-svc.txt"
    }

    /// A planted line sending Caddy's origin to 127.0.0.2 is not loaded: the probe goes to the
    /// origin over TCP, not one datagram reaches 127.0.0.2, and the line is gone from the file.
    @Test(.enabled(if: CaddyServer.available, "needs caddy (apt-get install caddy)"))
    func aPlantedLineForAnotherHostIsNeverUsedNorKept() throws {
        let server = try CaddyServer()
        defer { server.stop() }
        let elsewhere = try SilentUDPPort(address: "127.0.0.2")
        let file = try Self.cacheFile()
        try "h2 127.0.0.1 \(server.port) h3 127.0.0.2 \(elsewhere.port) \"20301231 00:00:00\" 0 0\n"
            .write(toFile: file, atomically: false, encoding: .utf8)
        let result = try Self.probe(caFile: server.caFile, ["--alt-svc", file, "--connect-timeout", "2s", server.url])
        #expect(result.status == 0, "\(result.stdout.prefix(2000)) \(result.stderr)")
        #expect(elsewhere.datagramsReceived() == 0, "sonde sent QUIC to 127.0.0.2")
        let transaction = try HTTP3CLITests.firstTransaction(try Harness.json(result.stdout))
        #expect(transaction["networkProtocolName"] as? String == "h2" && transaction["remotePort"] as? Int == server.port, "\(transaction)")
        let cache = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!cache.contains("127.0.0.2"), "\(cache)")
    }

    /// Caddy advertises `h3=":P2"` where nothing listens on UDP: the first new connection after
    /// it tries P2 (ICMP port unreachable), then goes to the origin over TCP, and says so; the
    /// third never tries P2 again, and the `--alt-svc` file does not keep it.
    @Test(.enabled(if: CaddyServer.available, "needs caddy (apt-get install caddy)"))
    func anAlternativeThatDoesNotAnswerFallsBackToTCP() throws {
        let dead = Harness.freePort()
        let server = try CaddyServer(advertisedPort: dead)
        defer { server.stop() }
        let file = try Self.cacheFile()
        let output = Harness.temporaryDirectory()
        let result = try Self.probe(caFile: server.caFile, ["--no-reuse", "--count", "3", "--alt-svc", file, server.url], output: output)
        #expect(result.status == 0, "\(result.stdout.prefix(3000)) \(result.stderr)")
        let transactions = try HTTP3CLITests.transactions(result)
        #expect(transactions.map { $0["networkProtocolName"] as? String ?? "-" } == ["h2", "h2", "h2"], "\(transactions)")
        #expect(transactions.map { $0["remotePort"] as? Int ?? 0 } == [server.port, server.port, server.port])
        guard transactions.count == 3 else { return }
        #expect(transactions[0]["altSvcFailure"] is NSNull && transactions[2]["altSvcFailure"] is NSNull, "\(transactions)")
        let failure = try #require(transactions[1]["altSvcFailure"] as? [String: Any], "\(transactions[1])")
        #expect(failure["source"] as? String == "response")
        #expect(failure["alternative"] as? String == "127.0.0.1:\(dead)")
        let error = try #require(failure["error"] as? [String: Any])
        #expect(error["code"] as? String == "connectionRefused" && error["reason"] as? String == "quic", "\(error)")
        #expect((error["message"] as? String)?.contains("QUIC to 127.0.0.1:\(dead)") == true, "\(error)")
        let cost = try #require(failure["durationMs"] as? Double)
        #expect(cost > 0 && cost < 5_000)
        #expect(!(try String(contentsOfFile: file, encoding: .utf8)).contains(" \(dead) "), "the --alt-svc file keeps the alternative")
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let har = try String(contentsOfFile: folder + "/report.har", encoding: .utf8)
        #expect(har.contains("h3 alternative 127.0.0.1:\(dead) (from a response) failed"), "\(har.prefix(500))")

        // The terminal line says it once, on the transaction that went to the origin instead.
        let terminal = try Harness.sonde(["probe", "--no-reuse", "--count", "3", "--cacert", server.caFile, "--output-dir",
                                          Harness.temporaryDirectory(), server.url], timeout: 90)
        #expect(terminal.status == 0, "\(terminal.stdout)")
        #expect(terminal.stdout.components(separatedBy: "↩ Alt-Svc alternative failed: h3 alternative 127.0.0.1:\(dead)").count == 2,
                "\(terminal.stdout)")
    }

    /// hypercorn's origin with a cache file line to a UDP port that drops every packet: the
    /// attempt costs the connect timeout (the QUIC handshake's), is recorded as a QUIC timeout,
    /// and the request is served over TCP; the origin's later connections use no alternative,
    /// and the file keeps what the origin itself advertises but not the silent port.
    @Test(.enabled(if: H3Server.available, "needs hypercorn and aioquic (pip install hypercorn aioquic)"))
    func aSilentAlternativeCostsTheConnectTimeoutOnce() throws {
        let server = try H3Server()
        defer { server.stop() }
        let silent = try SilentUDPPort()
        let file = try Self.cacheFile()
        try "h2 127.0.0.1 \(server.tcpPort) h3 127.0.0.1 \(silent.port) \"20301231 00:00:00\" 0 0\n"
            .write(toFile: file, atomically: false, encoding: .utf8)
        let url = "https://127.0.0.1:\(server.tcpPort)/1k.bin"
        let result = try Self.probe(caFile: server.caFile, ["--no-reuse", "--count", "2", "--connect-timeout", "1s", "--alt-svc", file, url])
        #expect(result.status == 0, "\(result.stdout.prefix(3000)) \(result.stderr)")
        #expect(silent.datagramsReceived() > 0, "the alternative was never tried")
        let transactions = try HTTP3CLITests.transactions(result)
        #expect(transactions.map { $0["networkProtocolName"] as? String ?? "-" } == ["h2", "h2"], "\(transactions)")
        guard transactions.count == 2 else { return }
        let failure = try #require(transactions[0]["altSvcFailure"] as? [String: Any], "\(transactions[0])")
        #expect(failure["source"] as? String == "cacheFile" && failure["alternative"] as? String == "127.0.0.1:\(silent.port)")
        let error = try #require(failure["error"] as? [String: Any])
        #expect(error["code"] as? String == "connectTimeout", "\(error)")
        #expect((error["message"] as? String)?.contains("QUIC handshake") == true && (error["message"] as? String)?.contains("TCP") == false,
                "\(error)")
        let cost = try #require(failure["durationMs"] as? Double)
        #expect(cost >= 900 && cost < 5_000, "\(cost) ms")
        #expect(transactions[1]["altSvcFailure"] is NSNull)
        let cache = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!cache.contains(" \(silent.port) ") && cache.contains("h3 127.0.0.1 \(server.quicPort) "), "\(cache)")
    }

    /// `--http3-only` to a UDP port that drops every packet: a QUIC handshake timeout, never "TCP connect".
    @Test func http3OnlyAgainstASilentUDPPortSaysQUIC() throws {
        let silent = try SilentUDPPort()
        let result = try Harness.sonde(["probe", "--json", "--http3-only", "--connect-timeout", "1s", "--output-dir",
                                        Harness.temporaryDirectory(), "https://127.0.0.1:\(silent.port)/"], timeout: 60)
        #expect(result.status != 0)
        let probe = try #require((try Harness.json(result.stdout)["probes"] as? [[String: Any]])?.first)
        let error = try #require(probe["error"] as? [String: Any])
        let message = error["message"] as? String ?? ""
        #expect(error["code"] as? String == "connectTimeout" && error["reason"] as? String == "quic", "\(error)")
        #expect(message.contains("QUIC handshake with 127.0.0.1:\(silent.port)") && !message.contains("TCP connect"), "\(message)")
    }
}
