import Foundation

/// Caddy 2.6 (Debian 12's `caddy`) on loopback, started by scripts/caddy-fixture.sh: HTTPS with
/// h1, h2 and h3 on `port` (TCP and UDP), serving 1k.bin, with a certificate from a CA made for
/// the test. It advertises its own h3, or, with `advertisedPort`, `h3=":advertisedPort"` (an
/// alternative where nothing need answer). Stopped by `stop()`.
final class CaddyServer {
    let directory = Harness.temporaryDirectory()
    let port = Harness.freePort()
    var caFile: String { directory + "/ca.pem" }
    var url: String { "https://127.0.0.1:\(port)/1k.bin" }

    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/caddy")

    init(advertisedPort: Int? = nil) throws {
        let result = try Harness.run("/bin/bash", [Harness.root + "/scripts/caddy-fixture.sh", directory, "\(port)"]
                                        + (advertisedPort.map { ["\($0)"] } ?? []), timeout: 60)
        guard result.status == 0 else { throw Nginx.FixtureError(message: "caddy did not start: \(result.stderr)") }
    }

    func stop() {
        if let text = try? String(contentsOfFile: directory + "/caddy.pid", encoding: .utf8),
           let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGTERM)
        }
    }
}
