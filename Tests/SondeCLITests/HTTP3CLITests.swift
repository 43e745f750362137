import Foundation
import Testing

/// `--http3` and `--http3-only` against hypercorn (aioquic) on 127.0.0.1: TCP+TLS on one port,
/// QUIC on another, with a certificate from a CA made for the test (scripts/h3-fixture.sh).
/// They need a libcurl with HTTP/3 in use (the one scripts/provide-libcurl.sh provides) and
/// hypercorn with aioquic (`make test` installs both).
@Suite(.serialized, .enabled(if: LibcurlFacts.runningHasHTTP3,
                             "needs a libcurl with HTTP/3 in use (scripts/provide-libcurl.sh; see sonde version)"),
       .enabled(if: H3Server.available, "needs hypercorn and aioquic (pip install hypercorn aioquic)"))
struct HTTP3CLITests {
    /// The first transaction of the first task of a `--json` report.
    static func firstTransaction(_ report: [String: Any]) throws -> [String: Any] {
        try #require(((report["probes"] as? [[String: Any]])?.first?["transactionMetrics"] as? [[String: Any]])?.first)
    }

    @Test func http3OnlySpeaksH3AndRecordsTheQUICConnection() throws {
        let server = try H3Server()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--json", "--http3-only", "--count", "2", "--cacert", server.caFile, "--output-dir",
                                        output, "https://127.0.0.1:\(server.quicPort)/1k.bin"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let tasks = try #require(report["probes"] as? [[String: Any]])
        #expect(tasks.count == 2)
        let transactions = try tasks.map { try #require(($0["transactionMetrics"] as? [[String: Any]])?.first) }
        for transaction in transactions {
            #expect(transaction["networkProtocolName"] as? String == "h3")
            #expect(transaction["remoteAddress"] as? String == "127.0.0.1")
            #expect(transaction["remotePort"] as? Int == server.quicPort)
            #expect((transaction["localPort"] as? Int ?? 0) > 0)
            #expect(transaction["countOfResponseBodyBytesReceived"] as? Int == 1024)
            #expect(transaction["negotiatedTLSProtocolVersion"] as? String == "TLSv1.3")
            #expect((transaction["negotiatedTLSCipherSuite"] as? String)?.hasPrefix("TLS_") == true)
        }
        // The first task opens the QUIC connection (connect and TLS phases), the second reuses it.
        let cold = try #require(transactions[0]["phases"] as? [String: Any])
        #expect(cold["connect"] is Double && cold["tls"] is Double)
        #expect(transactions[0]["isReusedConnection"] as? Bool == false)
        #expect(transactions[1]["isReusedConnection"] as? Bool == true)
        #expect(transactions[1]["localPort"] as? Int == transactions[0]["localPort"] as? Int)
        let summary = try #require(report["summary"] as? [String: Any])
        #expect((summary["protocols"] as? [String: Any])?["h3"] as? Int == 2)
        let validation = try Harness.validate(try FileManager.default.contentsOfDirectory(atPath: output)
            .map { output + "/" + $0 + "/report.json" })
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
    }

    @Test func http3FallsBackToTCPWhenNothingAnswersOnUDP() throws {
        let server = try H3Server()
        defer { server.stop() }
        // The TCP port: nothing listens on UDP there, so QUIC gets ICMP port unreachable and TCP wins.
        let result = try Harness.sonde(["probe", "--json", "--http3", "--cacert", server.caFile, "--output-dir",
                                        Harness.temporaryDirectory(), "https://127.0.0.1:\(server.tcpPort)/"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let transaction = try Self.firstTransaction(try Harness.json(result.stdout))
        #expect(["h2", "http/1.1"].contains(transaction["networkProtocolName"] as? String ?? ""))
        #expect(transaction["remotePort"] as? Int == server.tcpPort)
        #expect(transaction["negotiatedTLSProtocolVersion"] is String)
    }

    /// `sonde resume --http3-only`: the verdict and interrupted-download trials over QUIC against
    /// hypercorn, every request of them answered over HTTP/3 (hypercorn's own access log says so).
    @Test(arguments: ["abort", "drop", "kill"])
    func resumeTrialsRunOverHTTP3(kind: String) throws {
        let server = try H3Server()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", "--json", "--http3-only", "--cacert", server.caFile, "--trials", "2", "--kinds", kind,
                                        "--seed", "7", "--output-dir", output, "https://127.0.0.1:\(server.quicPort)/blob"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let verdict = try #require((report["resumeVerdicts"] as? [[String: Any]])?.first)
        #expect(verdict["resumable"] as? Bool == true, "\(verdict)")
        let trials = report["resumeTrials"] as? [[String: Any]] ?? []
        #expect(trials.count == 2 && trials.allSatisfy { $0["intact"] as? Bool == true }, "\(trials)")
        let log = try String(contentsOfFile: server.directory + "/access.log", encoding: .utf8)
            .split(separator: "\n").filter { $0.contains("/blob") }
        #expect(!log.isEmpty && log.allSatisfy { $0.contains("/blob 3 ") }, "every request over HTTP/3: \(log)")
        #expect(log.contains { $0.hasSuffix(" 206") }, "the resumes were answered 206: \(log)")
    }

    @Test func resumeRefusesHTTP3OnPlainHTTP() throws {
        let result = try Harness.sonde(["resume", "--http3", "--check", "http://127.0.0.1:9/blob", "--output-dir", Harness.temporaryDirectory()])
        #expect(result.status == 64 && result.stderr.contains("https://"), "\(result.stderr)")
    }

    @Test func anUnknownCAOverQUICIsATLSFailure() throws {
        let server = try H3Server()
        defer { server.stop() }
        // TLS verification is on by default: the test CA is in no trust store.
        let result = try Harness.sonde(["probe", "--json", "--http3-only", "--output-dir", Harness.temporaryDirectory(),
                                        "https://127.0.0.1:\(server.quicPort)/"], timeout: 60)
        #expect(result.status == 1, "\(result.stderr)")
        let task = try #require((try Harness.json(result.stdout)["probes"] as? [[String: Any]])?.first)
        let error = try #require(task["error"] as? [String: Any])
        #expect(error["code"] as? String == "tlsFailure", "\(error)")
    }
}

/// hypercorn on loopback with a fresh CA (scripts/h3-fixture.sh), stopped by `stop()`.
final class H3Server {
    let directory = Harness.temporaryDirectory()
    let tcpPort = Harness.freePort()
    let quicPort = Harness.freePort()
    var caFile: String { directory + "/ca.pem" }

    static let available: Bool = {
        (try? Harness.run("/usr/bin/env", ["python3", "-c", "import hypercorn, aioquic"], timeout: 30).status) == 0
    }()

    init() throws {
        let result = try Harness.run("/bin/bash", [Harness.root + "/scripts/h3-fixture.sh", directory, "\(tcpPort)", "\(quicPort)"],
                                     timeout: 60)
        guard result.status == 0 else { throw Nginx.FixtureError(message: "hypercorn did not start: \(result.stderr)") }
    }

    func stop() {
        if let text = try? String(contentsOfFile: directory + "/hypercorn.pid", encoding: .utf8),
           let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGTERM)
        }
    }
}
