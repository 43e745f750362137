import Foundation
import Testing

/// `sonde audit`'s handshake simulation (`tls.clients`) as a user sees it, against openssl
/// s_server with an Ed25519 leaf (which no mobile client's offer allows): the finding fails for
/// the targeted clients in every output (terminal lines per client, report.json, the HTML table,
/// the Prometheus gauge per client, junit.xml), `--clients none` makes it info, and a malformed
/// target set is a usage error.
@Suite(.serialized) struct AuditClientsCLITests {
    final class Server {
        let pid: pid_t
        let port: Int
        let caFile: String
        init() throws {
            let directory = Harness.temporaryDirectory()
            caFile = directory + "/ed25519.pem"
            let made = try Harness.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ed25519", "-nodes", "-keyout", directory + "/ed25519.key",
                                                           "-out", caFile, "-days", "2", "-subj", "/CN=localhost",
                                                           "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], timeout: 30)
            guard made.status == 0 else { throw Harness.SpawnError(message: "openssl req: \(made.stderr)") }
            port = Harness.freePort()
            pid = try Harness.spawn("/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:\(port)", "-www", "-quiet", "-cert", caFile,
                                                        "-key", directory + "/ed25519.key"],
                                    stdout: directory + "/server.log", stderr: directory + "/server.log")
            let url = "https://127.0.0.1:\(port)/"
            guard Harness.waitFor(seconds: 10, { (try? Harness.run("/usr/bin/curl", ["-sk", "-o", "/dev/null", "--max-time", "2", url], timeout: 5))?.status == 0 }) else {
                Harness.stop(pid, signal: SIGKILL)
                throw Harness.SpawnError(message: "openssl s_server did not start")
            }
        }
        deinit { Harness.stop(pid, signal: SIGTERM, seconds: 5) }
    }

    @Test func anEd25519LeafFailsTheTargetedClientsInEveryOutput() throws {
        let server = try Server()
        let output = Harness.temporaryDirectory()
        let prom = output + "/audit.prom"
        let url = "https://127.0.0.1:\(server.port)/"
        let result = try Harness.sonde(["audit", url, "--cacert", server.caFile, "--only", "tls.clients", "--prom", prom, "--output-dir", output],
                                       timeout: 120)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        // The terminal: the finding, a line per client, the targeted ones starred, the control connected.
        #expect(result.stdout.contains("FAIL tls.clients") && result.stdout.contains("ed25519 signatures"), "\(result.stdout)")
        #expect(result.stdout.contains("✗* ios-17") && result.stdout.contains("✗* android-14") && result.stdout.contains("✓  curl-openssl-3"),
                "\(result.stdout)")
        let folder = try #require(try Harness.entries(of: output).first { $0 != "latest" && !$0.hasSuffix(".prom") }.map { output + "/" + $0 })
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let target = (report["audits"] as? [[String: Any]])?.first?["target"] as? [String: Any]
        let clients = try #require(target?["clients"] as? [[String: Any]])
        #expect(clients.count >= 12, "\(clients)")
        let connected = clients.filter { $0["outcome"] as? String == "connected" }.compactMap { $0["client"] as? String }
        #expect(connected == ["curl-openssl-3"], "\(clients)")
        // The HTML table: a row per client, the reason escaped as text.
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        let table = try #require(html.range(of: "<h3>Handshake simulation</h3>").map { String(html[$0.upperBound...]) }?
            .components(separatedBy: "</table>").first)
        #expect(table.components(separatedBy: "<tr><td").count - 1 == clients.count, "\(table.prefix(1500))")
        #expect(table.contains("ios-17") && table.contains("the Ed25519 certificate needs ed25519 signatures"), "\(table.prefix(1500))")
        // Prometheus: a gauge per client, 0 for the refused, 1 for the control; promtool accepts the file.
        let metrics = try String(contentsOfFile: prom, encoding: .utf8)
        #expect(metrics.contains("sonde_audit_client_handshake{url=\"\(url)\",client=\"ios-17\"} 0"), "\(metrics)")
        #expect(metrics.contains("sonde_audit_client_handshake{url=\"\(url)\",client=\"curl-openssl-3\"} 1"), "\(metrics)")
        let lint = try Harness.run("/bin/sh", ["-c", "/usr/bin/promtool check metrics < \"$0\"", prom])
        #expect(lint.status == 0, "promtool: \(lint.stdout)\(lint.stderr)")
        // junit.xml: the finding's case fails with the clients named.
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        #expect(junit.contains("tls.clients\" time=\"0\"><failure message=\"fail: 1 of \(clients.count) clients connect"), "\(junit)")
    }

    @Test func noTargetSetMakesItInfoAndABadOneIsRefused() throws {
        let server = try Server()
        let url = "https://127.0.0.1:\(server.port)/"
        let none = try Harness.sonde(["audit", url, "--cacert", server.caFile, "--only", "tls.clients", "--clients", "none",
                                      "--output-dir", Harness.temporaryDirectory()], timeout: 120)
        #expect(none.status == 0 && (none.stdout.contains("INFO tls.clients") || none.stdout.contains("info tls.clients")),
                "\(none.stdout)\(none.stderr)")
        for bad in ["ios>=abc", "windows>=10", "ios>=99999999999999999999"] {
            let refused = try Harness.sonde(["audit", url, "--clients", bad, "--output-dir", Harness.temporaryDirectory()], timeout: 30)
            #expect(refused.status == 64 && refused.stderr.contains("--clients"), "\(bad): \(refused.stdout)\(refused.stderr)")
        }
    }
}
