import Foundation
import Testing

/// Issue 41: an argument that is not a URL of the command's schemes exits 64 with one sentence
/// and the URL meant, and nothing is looked up or sent, and no run folder is written. A
/// listener that records every connection (`Fixtures/connection_recorder.py`) and a DNS server
/// that records every query (`Fixtures/dns_server.py`, the test's own resolv.conf bound over
/// /etc/resolv.conf in a mount namespace) show what left sonde.
@Suite(.serialized) struct URLInputCLITests {
    /// A recording listener: its port, and every connection it had with the bytes it received.
    struct Recorder {
        var port: Int
        var pid: pid_t
        var log: String

        init(in directory: String) throws {
            log = directory + "/connections.jsonl"
            pid = try BlackboxProbersCLITests.startPython("connection_recorder.py", [log, "120"], in: directory)
            let ready = (try? String(contentsOfFile: directory + "/connection_recorder.py.out", encoding: .utf8)) ?? ""
            port = ready.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        }

        /// The bytes of each connection, once each has ended (a connection is logged when its
        /// peer closes it, or after 2 s).
        func connections(settle: Double = 2.5) -> [[UInt8]] {
            usleep(useconds_t(settle * 1_000_000))
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let hex = object["bytes"] as? String else { return nil }
                var bytes: [UInt8] = []
                var index = hex.startIndex
                while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex),
                      let byte = UInt8(hex[index..<next], radix: 16) {
                    bytes.append(byte)
                    index = next
                }
                return bytes
            }
        }

        func stop() { Harness.stop(pid, signal: SIGTERM) }
    }

    /// The run refused as a usage error saying `words`, with no run folder under `output`.
    func expectRefused(_ result: Harness.Result, output: String, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 64, "\(result.status) \(result.stdout) \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(words), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []).isEmpty, "a run folder was written",
                sourceLocation: sourceLocation)
    }

    /// `127.0.0.1:PORT/health.json` was sent as plain HTTP to a TLS port (a 400, exit 1). Now:
    /// 64 and `did you mean https://…?` when the port answers TLS (nginx's TLS port), `http://`
    /// otherwise (nginx's plain port, which answers a ClientHello with a 400; a listener that
    /// answers nothing), asked with a ClientHello alone: the recording listener got a TLS record
    /// and nothing of the URL.
    @Test func aURLWithoutASchemeGetsTheURLMeantAndOnlyAHandshakeIsSent() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let work = Harness.temporaryDirectory()
        let recorder = try Recorder(in: work)
        defer { recorder.stop() }
        let output = work + "/out"
        let tls = "127.0.0.1:\(nginx.https)"
        expectRefused(try Harness.sonde(["probe", tls + "/health.json", "--output-dir", output]), output: output,
                      "'\(tls)/health.json' is not a URL (it has no scheme): did you mean https://\(tls)/health.json?")
        expectRefused(try Harness.sonde(["probe", "localhost:\(nginx.https)/x", "--output-dir", output]), output: output,
                      "did you mean https://localhost:\(nginx.https)/x?")
        expectRefused(try Harness.sonde(["probe", "127.0.0.1:\(nginx.http)/1k.bin", "--output-dir", output]), output: output,
                      "did you mean http://127.0.0.1:\(nginx.http)/1k.bin?")

        let plain = "127.0.0.1:\(recorder.port)"
        expectRefused(try Harness.sonde(["probe", plain + "/health.json", "--output-dir", output]), output: output,
                      "did you mean http://\(plain)/health.json?")
        let connections = recorder.connections()
        #expect(connections.count == 1, "\(connections)")
        for bytes in connections {
            #expect(bytes.count > 5 && bytes[0] == 22 && bytes[1] == 3, "not a TLS handshake record: \(bytes.prefix(16))")
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("health.json") && !text.contains("GET ") && !text.contains("HTTP/"), "the URL was sent: \(text.debugDescription)")
        }

        // The other commands, through the same check.
        expectRefused(try Harness.sonde(["soak", tls + "/ws/echo", "--output-dir", output]), output: output,
                      "did you mean wss://\(tls)/ws/echo?")
        expectRefused(try Harness.sonde(["resume", tls + "/bytes/10", "--output-dir", output]), output: output,
                      "did you mean https://\(tls)/bytes/10?")
        expectRefused(try Harness.sonde(["audit", "https://" + tls + "/", tls + "/", "--output-dir", output]), output: output,
                      "did you mean https://\(tls)/?")
        let suite = work + "/suite.yaml"
        try "checks:\n  - {name: api, kind: probe, urls: [\"\(plain)/x\"]}\n".write(toFile: suite, atomically: true, encoding: .utf8)
        expectRefused(try Harness.sonde(["run", suite, "--output-dir", output]), output: output,
                      "suite.yaml:2:37: urls: '\(plain)/x' is not a URL (it has no scheme): did you mean http://\(plain)/x?")
    }

    /// `ftp://…` wrote a run folder and exited 1; a WebSocket URL given to probe, or an http URL
    /// to soak, a URL libcurl cannot parse: each is 64 and nothing connects.
    @Test func anotherSchemeIsAUsageErrorAndNothingIsSent() throws {
        let work = Harness.temporaryDirectory()
        let recorder = try Recorder(in: work)
        defer { recorder.stop() }
        let output = work + "/out"
        let at = "127.0.0.1:\(recorder.port)"
        expectRefused(try Harness.sonde(["probe", "ftp://\(at)/x", "--output-dir", output]), output: output,
                      "'ftp://\(at)/x': ftp:// is not supported here, only http:// and https://")
        expectRefused(try Harness.sonde(["probe", "ws://\(at)/x", "--output-dir", output]), output: output, "did you mean http://\(at)/x?")
        expectRefused(try Harness.sonde(["soak", "https://\(at)/ws", "--output-dir", output]), output: output, "did you mean wss://\(at)/ws?")
        expectRefused(try Harness.sonde(["probe", "http://[::1/", "--output-dir", output]), output: output,
                      "'http://[::1/' is not a URL libcurl can parse")
        #expect(recorder.connections().isEmpty, "something connected")
    }

    /// `--timeout 5 min` probed a host named `min`: a DNS query left the machine. Now `min` is
    /// refused as not a URL, and a name without a scheme gets `https://` without being resolved.
    /// The DNS server sees the query of a real probe of `http://min/` (the control) and none of
    /// the refused ones.
    @Test func aWordIsNotAHostAndNothingIsLookedUp() throws {
        let work = Harness.temporaryDirectory()
        let recorder = try Recorder(in: work)
        defer { recorder.stop() }
        let address = "127.53.\(Int.random(in: 1...250)).\(Int.random(in: 1...250))"
        let queries = work + "/queries.log"
        let dns = try BlackboxProbersCLITests.startPython("dns_server.py", [address, "53", "sonde.test", "127.0.0.1", "120", queries], in: work)
        defer { Harness.stop(dns, signal: SIGTERM) }
        let resolv = work + "/resolv.conf"
        try "nameserver \(address)\noptions attempts:1 timeout:2\n".write(toFile: resolv, atomically: true, encoding: .utf8)
        func sonde(_ arguments: [String]) throws -> Harness.Result {
            try Harness.run("/usr/bin/unshare", ["--mount", "sh", "-c", "mount --bind \"$0\" /etc/resolv.conf || exit 90; exec \"$@\"", resolv,
                                                 Harness.sonde] + arguments, timeout: 60)
        }
        func logged() -> String { (try? String(contentsOfFile: queries, encoding: .utf8)) ?? "" }
        let output = work + "/out"
        expectRefused(try sonde(["probe", "--timeout", "5", "min", "--output-dir", output, "http://127.0.0.1:\(recorder.port)/"]),
                      output: output, "'min' is not a URL: give an http:// or https:// URL")
        expectRefused(try sonde(["probe", "api.example.com/v1", "--output-dir", output]), output: output,
                      "did you mean https://api.example.com/v1?")
        expectRefused(try sonde(["soak", "min", "--output-dir", output]), output: output, "'min' is not a URL: give a ws:// or wss:// URL")
        #expect(!logged().contains("min") && !logged().contains("example.com"), "looked up: \(logged())")
        #expect(recorder.connections().isEmpty, "something connected")
        // The control: a probe of a real URL naming `min` is looked up through this resolver.
        let control = try sonde(["probe", "--timeout", "5", "--output-dir", work + "/control", "http://min/"])
        #expect(control.status == 1, "\(control.stderr)")
        #expect(logged().split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first?.hasPrefix("min") == true },
                "the control's lookup did not reach the test's resolver: \(logged())")
    }
}
