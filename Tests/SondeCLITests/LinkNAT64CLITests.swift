import Foundation
import Testing

/// `--link nat64`: the namespace has IPv6 only, and an IPv4-only server on the host's loopback is
/// reached as `[64:ff9b::127.0.0.1]` through the link's translator (`NAT64Translator`); an IPv4
/// literal fails at once inside; a closed port is refused after one RTT, not a timeout; TLS works
/// through it; and tcpdump on both sides sees IPv6 inside and IPv4 outside, with tshark finding no
/// checksum error. Root only. Part of `LinkCLITests` (an extension), serialized with its other runs.
extension LinkCLITests {
    /// A Python http.server on 127.0.0.1 only (IPv4), logging each request's client address.
    final class IPv4OnlyServer {
        let directory = Harness.temporaryDirectory()
        let port = Harness.freePort()
        let pid: pid_t
        var log: String { (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? "" }

        init() throws {
            try "hello over NAT64\n".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
            pid = try Harness.spawn("/usr/bin/env", ["python3", "-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", directory],
                                    stdout: directory + "/out", stderr: directory + "/log")
            let port = self.port
            _ = Harness.waitFor(seconds: 10) { (try? Harness.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/"]))?.status == 0 }
        }

        func stop() {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test func theNAT64NamespaceHasIPv6Only() throws {
        let result = try Harness.sonde(["link", "--link", "nat64", "--", "sh", "-c",
                                        "ip -4 addr show; echo ---; ip -4 route show; echo ---; ip -6 addr show; echo ---; ip -6 route show"], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let parts = result.stdout.components(separatedBy: "---\n")
        #expect(parts.count == 4, "\(result.stdout)")
        guard parts.count == 4 else { return }
        #expect(!parts[0].contains("inet "), "an IPv4 address inside: \(parts[0])")
        #expect(parts[1].trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "an IPv4 route inside: \(parts[1])")
        #expect(parts[2].contains("inet6 fd53:6f6e:6465::2/128") && !parts[2].contains("fe80"), "\(parts[2])")
        #expect(parts[3].contains("default"), "\(parts[3])")
        #expect(result.stderr.contains("IPv6-only: NAT64 64:ff9b::/96, DNS64 at fd53:6f6e:6465::53"), "\(result.stderr)")
    }

    @Test func anIPv4OnlyLoopbackServerIsReachedThroughNAT64() throws {
        let server = try IPv4OnlyServer()
        defer { server.stop() }
        let result = try Harness.sonde(["link", "--link", "nat64", "--", "curl", "-s", "--max-time", "10", "-w", " %{http_code} %{remote_ip}",
                                        "http://[64:ff9b::127.0.0.1]:\(server.port)/index.txt"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "hello over NAT64\n 200 64:ff9b::7f00:1", "\(result.stdout)")
        // The server saw the link's IPv4 address (198.18.0.0/15), the translator's side of the map.
        #expect(server.log.contains("198.18.") || server.log.contains("198.19."), "\(server.log)")
        // sonde's own engine over the same link.
        let probe = try Harness.sonde(["probe", "--link", "app-review", "--json", "http://[64:ff9b::127.0.0.1]:\(server.port)/index.txt"], timeout: 60)
        #expect(probe.status == 0, "\(probe.stderr)")
        let report = try Harness.json(probe.stdout)
        let conditions = try #require(((report["run"] as? [String: Any])?["link"] as? [String: Any])?["conditions"] as? [String: Any],
                                      "\(probe.stdout.prefix(2000))")
        #expect(conditions["nat64"] as? Bool == true && conditions["profile"] as? String == "app-review", "\(conditions)")
    }

    @Test func anIPv4LiteralFailsAtOnceAndAClosedPortIsRefused() throws {
        let server = try IPv4OnlyServer()
        defer { server.stop() }
        // No IPv4 route inside: connect fails at once (curl 7), never a timeout.
        let start = Date()
        let literal = try Harness.sonde(["link", "--link", "nat64", "--", "curl", "-s", "--max-time", "10", "http://127.0.0.1:\(server.port)/"], timeout: 30)
        #expect(literal.status == 7 && Date().timeIntervalSince(start) < 5, "\(literal.status) \(literal.stderr)")
        // A closed port: the server's RST comes back translated, after one RTT of lte (115 ms).
        let closed = Harness.freePort()
        let refused = try Harness.sonde(["link", "--link", "lte,nat64", "--", "curl", "-s", "--max-time", "10", "-w", "%{time_connect} %{time_total}",
                                         "http://[64:ff9b::127.0.0.1]:\(closed)/"], timeout: 30)
        #expect(refused.status == 7, "\(refused.status) \(refused.stdout) \(refused.stderr)")
        let total = Double(refused.stdout.split(separator: " ").last ?? "") ?? 99
        #expect(total >= 0.110 && total < 1, "refused after \(total) s")
        // A closed UDP port: the host's ICMP port unreachable comes back as ICMPv6 (curl's UDP probe: nc -u).
        let udp = try Harness.sonde(["link", "--link", "nat64", "--", "python3", "-c", """
            import socket, time
            s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.settimeout(3)
            s.connect(("64:ff9b::7f00:1", \(closed))); s.send(b"x"); t = time.time()
            try:
                s.recv(10); print("answer")
            except ConnectionRefusedError:
                print("refused %.3f" % (time.time() - t))
            except socket.timeout:
                print("timeout")
            """], timeout: 30)
        #expect(udp.stdout.hasPrefix("refused 0.0"), "\(udp.stdout) \(udp.stderr)")
    }

    @Test func tlsCrossesNAT64WithTheCertificateVerified() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let result = try Harness.sonde(["link", "--link", "nat64", "--", "curl", "-s", "-o", "/dev/null", "--max-time", "10",
                                        "--cacert", nginx.certificate, "-w", "%{http_code} %{ssl_verify_result} %{remote_ip}",
                                        "--connect-to", "127.0.0.1:\(nginx.https):[64:ff9b::7f00:1]:\(nginx.https)",
                                        "https://127.0.0.1:\(nginx.https)/1k.bin"], timeout: 60)
        #expect(result.status == 0 && result.stdout == "200 0 64:ff9b::7f00:1", "\(result.stdout) \(result.stderr)")
    }

    /// tcpdump inside (the namespace's TUN) and outside (the host's TUN): IPv6 inside, IPv4
    /// outside, the same exchange, and tshark finds no bad checksum on either side.
    @Test func capturesShowIPv6InsideAndIPv4OutsideWithValidChecksums() throws {
        let server = try IPv4OnlyServer()
        defer { server.stop() }
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Outside: the host's side, where the link's packets are 198.18.x.2 ↔ 127.0.0.1 (any device: the
        // TUN's name holds sonde's pid); inside: the namespace's TUN, from the command.
        let outside = try Harness.spawn("/usr/bin/tcpdump", ["-Z", "root", "--immediate-mode", "-i", "any", "-U", "-w", directory + "/outside.pcap",
                                                             "tcp port \(server.port) and net 198.18.0.0/15"],
                                        stdout: directory + "/tcpdump.out", stderr: directory + "/tcpdump.err")
        _ = Harness.waitFor(seconds: 5) { ((try? String(contentsOfFile: directory + "/tcpdump.err", encoding: .utf8)) ?? "").contains("listening") }
        let script = """
            dev=$(ip -o link show | awk -F': ' '/sonde/{print $2; exit}')
            tcpdump -Z root --immediate-mode -i "$dev" -U -w \(directory)/inside.pcap 2>\(directory)/inside.err & a=$!
            for i in $(seq 50); do grep -q listening \(directory)/inside.err 2>/dev/null && break; sleep 0.1; done
            curl -s -o /dev/null --max-time 10 http://[64:ff9b::127.0.0.1]:\(server.port)/index.txt; c=$?
            sleep 1; kill $a; wait $a 2>/dev/null; exit $c
            """
        let result = try Harness.sonde(["link", "--link", "nat64", "--", "sh", "-c", script], timeout: 60)
        usleep(500_000)
        Harness.stop(outside, signal: SIGINT)
        #expect(result.status == 0, "\(result.stderr)")
        for (file, family, other) in [("inside", "ipv6", "ip"), ("outside", "ip", "ipv6")] {
            let path = directory + "/\(file).pcap"
            let fields = try Harness.run("/usr/bin/tshark", ["-r", path, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
                                                             "-T", "fields", "-e", "frame.protocols", "-e", "tcp.checksum.status", "-e", "ip.checksum.status"])
            let lines = fields.stdout.split(separator: "\n").filter { !$0.hasPrefix("Running as user") }
            let sizes = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.map { name in
                "\(name) \((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size]) ?? "?")"
            } ?? []
            #expect(lines.count >= 8, "\(file): \(fields.stdout) \(fields.stderr) \(sizes) \(result.stderr)")
            #expect(lines.allSatisfy { $0.contains(":\(family):") && !$0.contains(":\(other):tcp") }, "\(file): \(fields.stdout)")
            // Status 1 is "good", 2 "bad" (with the checks on).
            #expect(lines.allSatisfy { !$0.split(separator: "\t").dropFirst().contains("2") }, "\(file): \(fields.stdout)")
            #expect(lines.contains { $0.split(separator: "\t").dropFirst().first == "1" }, "\(file): checksums were not checked: \(fields.stdout)")
            let errors = try Harness.run("/usr/bin/tshark", ["-r", path, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
                                                             "-Y", "_ws.expert.severity == error"])
            #expect(errors.stdout.isEmpty, "\(file): \(errors.stdout)")
        }
    }
    /// h3 through NAT64: QUIC's datagrams translated both ways, to hypercorn on 127.0.0.1 only; the
    /// name in the URL is pinned to the synthesized address (`--resolve`), the certificate verified.
    @Test(.enabled(if: LibcurlFacts.runningHasHTTP3, "needs a libcurl with HTTP/3 in use (scripts/provide-libcurl.sh)"),
          .enabled(if: H3Server.available, "needs hypercorn and aioquic"))
    func h3CrossesNAT64() throws {
        let server = try H3Server()
        defer { server.stop() }
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--json", "--http3-only", "--link", "nat64", "--cacert", server.caFile, "--output-dir", output,
                                        "--resolve", "localhost:\(server.quicPort):[64:ff9b::7f00:1]", "https://localhost:\(server.quicPort)/"], timeout: 60)
        #expect(result.status == 0, "\(result.stdout.prefix(3000)) \(result.stderr)")
        let transaction = try #require(LinkRunCLITests.transactions(try Harness.json(result.stdout)).first)
        #expect(transaction["networkProtocolName"] as? String == "h3", "\(transaction)")
        #expect(String(describing: transaction["remoteAddress"] ?? "").contains("64:ff9b::7f00:1"), "\(transaction)")
    }

    /// Resume trials and a WebSocket soak over `nat64`, against nginx and a Python `websockets`
    /// server on the host's IPv4 loopback only.
    @Test func resumeAndSoakCrossNAT64() throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let output = Harness.temporaryDirectory()
        let resume = try Harness.sonde(["resume", "http://[64:ff9b::127.0.0.1]:\(nginx.http)/3m.bin", "--link", "lte,nat64",
                                        "--trials", "2", "--output-dir", output], timeout: 120)
        #expect(resume.status == 0, "\(resume.stdout)\(resume.stderr)")
        let trials = try #require(try LinkRunCLITests.report(output)["resumeTrials"] as? [[String: Any]])
        #expect(trials.count == 2 && trials.allSatisfy { $0["intact"] as? Bool == true }, "\(trials)")

        let port = Harness.freePort()
        let log = NSTemporaryDirectory() + "sonde-ws-nat64-\(UUID().uuidString).log"
        let server = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/ws_echo_server.py", "\(port)"],
                                       stdout: log, stderr: log)
        defer { Harness.stop(server, signal: SIGKILL) }
        #expect(Harness.waitFor(seconds: 10) { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("ready") == true })
        let soakOutput = Harness.temporaryDirectory()
        let soak = try Harness.sonde(["soak", "ws://[64:ff9b::127.0.0.1]:\(port)/", "--link", "app-review", "--duration", "3s",
                                      "--ping-interval", "250ms", "--output-dir", soakOutput], timeout: 60)
        #expect(soak.status == 0, "\(soak.stdout)\(soak.stderr)")
        let report = try LinkRunCLITests.report(soakOutput)
        let soakReport = try #require((report["soaks"] as? [[String: Any]])?.first)
        #expect((soakReport["reconnects"] as? [String: Any])?["count"] as? Int == 0, "\(soakReport)")
        let conditions = ((report["run"] as? [String: Any])?["link"] as? [String: Any])?["conditions"] as? [String: Any]
        #expect(conditions?["nat64"] as? Bool == true)
    }

    /// A suite's `link:` takes `nat64` too: a preset with it (`app-review`) and a `links:` entry
    /// (`v6-lte: "lte,nat64"`), each check on its own IPv6-only link.
    @Test func aSuitesChecksRunOverNAT64Links() throws {
        let server = try IPv4OnlyServer()
        defer { server.stop() }
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let url = "http://[64:ff9b::127.0.0.1]:\(server.port)/index.txt"
        let suite = """
            links:
              v6-lte: "lte,nat64"
            checks:
              - { name: review, kind: probe, link: app-review, urls: ["\(url)"] }
              - { name: cellular, kind: probe, link: v6-lte, urls: ["\(url)"] }
            """
        try suite.write(toFile: directory + "/suite.yaml", atomically: true, encoding: .utf8)
        let output = directory + "/out"
        let result = try Harness.sonde(["run", directory + "/suite.yaml", "--output-dir", output], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let checks = try #require(try LinkRunCLITests.report(output)["checks"] as? [[String: Any]])
        #expect(checks.count == 2 && checks.allSatisfy { $0["status"] as? String == "passed" }, "\(checks)")
        #expect(server.log.components(separatedBy: "GET /index.txt").count - 1 == 2, "\(server.log)")
    }
}

extension LinkCLITests {
    /// `link: app-review` on a check of `sonde serve`'s config: the scheduled probe crosses the
    /// IPv6-only link to an IPv4-only loopback server through NAT64 (the server logs the link's
    /// translated address, 198.18.x.2), and the check's success reaches /metrics.
    @Test func serveRunsAProbeCheckOverTheAppReviewLink() throws {
        let server = try IPv4OnlyServer()
        defer { server.stop() }
        let config = """
        checks:
          - {name: v6only, kind: probe, urls: ["http://[64:ff9b::127.0.0.1]:\(server.port)/index.txt"], link: app-review, every: 2s}
        """
        let serve = try ServeCLITests.Serve(config: config)
        defer { serve.stop() }
        #expect(Harness.waitFor(seconds: 60) { serve.logText().contains("check v6only: passed") }, "\(serve.logText())\(serve.errorText())")
        let samples = ServeCLITests.samples(try ServeCLITests.fetch("\(serve.base)/metrics").body)
        #expect(samples[#"sonde_check_success{check="v6only",kind="probe"}"#] == 1, "\(samples)")
        #expect(Harness.waitFor(seconds: 10) { server.log.contains("198.18.") }, "the server saw the link's translated address: \(server.log)")
    }
}
