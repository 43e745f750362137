import Foundation
import Testing

/// serve's `/probe` with blackbox_exporter's icmp and grpc probers, side by side with the real
/// blackbox_exporter 0.23 (Debian's package) on the same modules and targets, all on loopback:
/// echo to 127.0.0.1 and ::1 (a raw socket: the tests run as root, where blackbox uses one too);
/// `grpc.health.v1.Health/Check` against a Python grpcio-health-checking server (PyPI) in clear
/// text and over TLS. For every module, success and failure: the same `probe_*` series with the
/// same labels, the same `probe_success`, and the same values where both measure the same thing.
@Suite(.serialized) struct BlackboxICMPGRPCCLITests {
    /// Both answers of one module and target, compared: the same series, `probe_success` as
    /// expected, the same values for `sameValues` (and TLS's labelled series), every phase
    /// within the probe's duration, blackbox's help texts. Returns sonde's samples.
    @discardableResult
    static func compare(module: String, target: String, success: Bool, sonde: String, blackbox: String, sameValues: [String],
                        maxDuration: Double = 3.5) throws -> [String: Double] {
        let ours = try ServeCLITests.fetch("\(sonde)/probe?target=\(target)&module=\(module)")
        let theirs = try ServeCLITests.fetch("\(blackbox)/probe?target=\(target)&module=\(module)")
        #expect(ours.status == 200 && theirs.status == 200, "\(module): sonde \(ours.status) \(ours.body), blackbox \(theirs.status)")
        let mine = BlackboxProbersCLITests.probeSamples(ours.body), reference = BlackboxProbersCLITests.probeSamples(theirs.body)
        #expect(Set(mine.keys) == Set(reference.keys),
                "\(module) \(target): only sonde \(Set(mine.keys).subtracting(reference.keys).sorted()), only blackbox \(Set(reference.keys).subtracting(mine.keys).sorted())")
        #expect(reference["probe_success"] == (success ? 1 : 0), "\(module) \(target): blackbox \(theirs.body)")
        #expect(mine["probe_success"] == (success ? 1 : 0), "\(module) \(target): sonde \(ours.body)")
        for key in reference.keys.sorted() where sameValues.contains(String(key.prefix { $0 != "{" })) || key.hasPrefix("probe_ssl_last_chain_info")
            || key.hasPrefix("probe_tls_version_info") {
            #expect(mine[key] == reference[key], "\(module) \(target) \(key): sonde \(String(describing: mine[key])), blackbox \(String(describing: reference[key]))")
        }
        // In blackbox's order too: by name, then by label values.
        func order(_ text: String) -> [String] {
            text.split(separator: "\n").filter { $0.hasPrefix("probe_") }.map { String($0.prefix { $0 != " " }) }
        }
        if Set(mine.keys) == Set(reference.keys) { #expect(order(ours.body) == order(theirs.body), "\(module): series in another order") }
        let duration = mine["probe_duration_seconds"] ?? -1
        #expect(duration > 0 && duration < maxDuration, "\(module): probe_duration_seconds \(duration)")
        let phases = mine.filter { $0.key.hasPrefix("probe_icmp_duration_seconds{") || $0.key.hasPrefix("probe_grpc_duration_seconds{") }
        #expect(phases.values.allSatisfy { $0 >= 0 && $0 <= duration }, "\(module): phases \(phases) within \(duration) s")
        for line in theirs.body.split(separator: "\n") where line.hasPrefix("# HELP probe_") {
            #expect(ours.body.contains(line), "\(module): sonde lacks \(line)")
        }
        return mine
    }

    static func startBlackbox(_ modules: String, in work: String) throws -> (pid: pid_t, base: String) {
        FileManager.default.createFile(atPath: work + "/blackbox.yml", contents: Data(modules.utf8))
        let port = Harness.freePort()
        let pid = try ServeCLITests.startPeer("/usr/bin/prometheus-blackbox-exporter",
                                              ["--config.file=\(work)/blackbox.yml", "--web.listen-address=127.0.0.1:\(port)"],
                                              ready: "http://127.0.0.1:\(port)/-/healthy", in: work, name: "blackbox")
        return (pid, "http://127.0.0.1:\(port)")
    }

    @Test func icmpAnswersAsBlackboxDoes() throws {
        let work = Harness.temporaryDirectory()
        let modules = """
        modules:
          icmp_v4: {prober: icmp, timeout: 3s, icmp: {preferred_ip_protocol: ip4}}
          icmp_v6: {prober: icmp, timeout: 3s, icmp: {preferred_ip_protocol: ip6, ip_protocol_fallback: false}}
          icmp_df: {prober: icmp, timeout: 3s, icmp: {preferred_ip_protocol: ip4, dont_fragment: true, payload_size: 1400, ttl: 9}}
          icmp_large: {prober: icmp, timeout: 3s, icmp: {preferred_ip_protocol: ip4, payload_size: 9000}}
          icmp_v4_only: {prober: icmp, timeout: 3s, icmp: {preferred_ip_protocol: ip4, ip_protocol_fallback: false}}
        """
        let blackbox = try Self.startBlackbox(modules, in: work)
        defer { Harness.stop(blackbox.pid, signal: SIGTERM) }
        let serve = try ServeCLITests.Serve(config: "allow: [\"127.0.0.1\", \"::1\", \"127.0.0.1:9\"]\n" + modules)
        defer { serve.stop() }

        let same = ["probe_success", "probe_ip_protocol", "probe_ip_addr_hash", "probe_icmp_reply_hop_limit"]
        var rtts: [String: Double] = [:]
        for (module, target, success) in [("icmp_v4", "127.0.0.1", true), ("icmp_v6", "::1", true), ("icmp_df", "127.0.0.1", true),
                                          ("icmp_large", "127.0.0.1", true), ("icmp_v4_only", "::1", false)] {
            let mine = try Self.compare(module: module, target: target, success: success, sonde: serve.base, blackbox: blackbox.base, sameValues: same)
            if success {
                let rtt = mine["probe_icmp_duration_seconds{phase=\"rtt\"}"] ?? -1
                #expect(rtt > 0 && rtt < 0.5, "\(module): rtt \(rtt) s on loopback")
                #expect(mine["probe_icmp_reply_hop_limit"] == 64, "\(module): the kernel's reply TTL on loopback")
                rtts[module] = rtt
            }
        }
        // The allow list: a host no pattern names is refused before anything is sent, a
        // host:port pattern does not let icmp through, and an icmp target takes no port.
        let refused = try ServeCLITests.fetch("\(serve.base)/probe?target=127.0.0.2&module=icmp_v4")
        #expect(refused.status == 403, "\(refused)")
        let withPort = try ServeCLITests.fetch("\(serve.base)/probe?target=127.0.0.1:9&module=icmp_v4")
        #expect(withPort.status == 400, "\(withPort)")
        let debug = try ServeCLITests.fetch("\(serve.base)/probe?target=127.0.0.1&module=icmp_df&debug=true")
        #expect(debug.body.contains("Found matching reply packet") && debug.body.contains("dont_fragment: true") && debug.body.contains("ttl: 9"),
                "\(debug.body)")
        print("icmp rtt (s): \(rtts.sorted { $0.key < $1.key })")
    }

    /// In a network namespace of the test's own whose `net.ipv4.ping_group_range` admits root's
    /// group, both take the unprivileged datagram socket (the kernel owns the echo identifier)
    /// and answer alike.
    @Test func icmpOverAnUnprivilegedDatagramSocket() throws {
        let namespace = "sonde-icmp-\(getpid())"
        let added = try Harness.run("/usr/sbin/ip", ["netns", "add", namespace])
        try #require(added.status == 0, "\(added.stderr)")
        defer { _ = try? Harness.run("/usr/sbin/ip", ["netns", "del", namespace]) }
        let inside = ["/usr/sbin/ip", "netns", "exec", namespace]
        #expect(try Harness.run(inside[0], Array(inside.dropFirst()) + ["ip", "link", "set", "lo", "up"]).status == 0)
        let sysctl = try Harness.run(inside[0], Array(inside.dropFirst()) + ["sysctl", "-w", "net.ipv4.ping_group_range=0 2147483647"])
        try #require(sysctl.status == 0, "\(sysctl.stderr)")
        let work = Harness.temporaryDirectory()
        let modules = "modules:\n  icmp_v4: {prober: icmp, timeout: 2s, icmp: {preferred_ip_protocol: ip4, payload_size: 64}}\n"
        FileManager.default.createFile(atPath: work + "/blackbox.yml", contents: Data(modules.utf8))
        let blackboxPort = Harness.freePort()
        let blackbox = try Harness.spawn(inside[0], Array(inside.dropFirst()) + ["/usr/bin/prometheus-blackbox-exporter", "--config.file=\(work)/blackbox.yml",
                                                                                  "--web.listen-address=127.0.0.1:\(blackboxPort)", "--log.level=debug"],
                                         stdout: work + "/blackbox.out", stderr: work + "/blackbox.err")
        defer { Harness.stop(blackbox, signal: SIGTERM) }
        let serve = try ServeCLITests.Serve(config: "allow: [\"127.0.0.1\"]\n" + modules, wrapper: inside)
        defer { serve.stop() }
        func fetch(_ url: String) throws -> String {
            try Harness.run(inside[0], Array(inside.dropFirst()) + ["curl", "-s", "--max-time", "10", url]).stdout
        }
        #expect(Harness.waitFor(seconds: 15) { ((try? fetch("http://127.0.0.1:\(blackboxPort)/-/healthy")) ?? "").contains("Healthy") })
        let ours = try fetch("\(serve.base)/probe?target=127.0.0.1&module=icmp_v4&debug=true")
        let theirs = try fetch("http://127.0.0.1:\(blackboxPort)/probe?target=127.0.0.1&module=icmp_v4&debug=true")
        #expect(ours.contains("kind=unprivileged_datagram") && !ours.contains("will attempt privileged"), "\(ours)")
        #expect(!theirs.contains("will attempt privileged") && theirs.contains("Found matching reply packet"), "\(theirs)")
        let metrics = { (page: String) -> [String: Double] in
            BlackboxProbersCLITests.probeSamples(String(page.components(separatedBy: "Metrics that would have been returned:").last?
                .components(separatedBy: "Module configuration:").first ?? ""))
        }
        let mine = metrics(ours), reference = metrics(theirs)
        #expect(Set(mine.keys) == Set(reference.keys), "sonde \(mine.keys.sorted()), blackbox \(reference.keys.sorted())")
        #expect(mine["probe_success"] == 1 && reference["probe_success"] == 1)
        #expect(mine["probe_icmp_reply_hop_limit"] == reference["probe_icmp_reply_hop_limit"])
        let rtt = mine["probe_icmp_duration_seconds{phase=\"rtt\"}"] ?? -1
        #expect(rtt > 0 && rtt < 0.5, "rtt \(rtt)")

        // A host that does not answer (the namespace's kernel ignores echo requests): both wait
        // out the module's 2 s, fail, and have no rtt and no hop limit.
        #expect(try Harness.run(inside[0], Array(inside.dropFirst()) + ["sysctl", "-w", "net.ipv4.icmp_echo_ignore_all=1"]).status == 0)
        let silentOurs = metrics(try fetch("\(serve.base)/probe?target=127.0.0.1&module=icmp_v4&debug=true"))
        let silentTheirs = metrics(try fetch("http://127.0.0.1:\(blackboxPort)/probe?target=127.0.0.1&module=icmp_v4&debug=true"))
        #expect(Set(silentOurs.keys) == Set(silentTheirs.keys), "sonde \(silentOurs.keys.sorted()), blackbox \(silentTheirs.keys.sorted())")
        #expect(silentOurs["probe_success"] == 0 && silentTheirs["probe_success"] == 0 && silentOurs["probe_icmp_reply_hop_limit"] == nil)
        #expect(silentOurs["probe_icmp_duration_seconds{phase=\"rtt\"}"] == 0)
        let waited = silentOurs["probe_duration_seconds"] ?? -1, theirWait = silentTheirs["probe_duration_seconds"] ?? -1
        #expect(waited >= 1.9 && waited < 2.5 && theirWait >= 1.9 && theirWait < 2.5, "sonde \(waited) s, blackbox \(theirWait) s")
    }

    @Test func grpcAnswersAsBlackboxDoes() throws {
        let work = Harness.temporaryDirectory()
        // A certificate for localhost and 127.0.0.1, as the nginx fixture makes it.
        let made = try Harness.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                       "-days", "7", "-keyout", work + "/key.pem", "-out", work + "/cert.pem",
                                                       "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        #expect(made.status == 0, "\(made.stderr)")
        let plainPort = Harness.freePort(), tlsPort = Harness.freePort(), closedPort = Harness.freePort(), silentPort = Harness.freePort()
        let peer = try BlackboxProbersCLITests.startPython("grpc_health_peer.py", ["\(plainPort)", "\(tlsPort)", work + "/cert.pem", work + "/key.pem"],
                                                           in: work)
        defer { Harness.stop(peer, signal: SIGTERM) }
        let ca = work + "/cert.pem"
        let modules = """
        modules:
          grpc_plain: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4}}
          grpc_serving: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, service: sonde.Serving}}
          grpc_down: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, service: sonde.Down}}
          grpc_unknown: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, service: sonde.Missing}}
          grpc_tls: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, tls: true, service: sonde.Serving, tls_config: {ca_file: \(ca)}}}
          grpc_tls_down: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, tls: true, service: sonde.Down, tls_config: {ca_file: \(ca)}}}
          grpc_tls_unknown: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, tls: true, service: sonde.Missing, tls_config: {ca_file: \(ca)}}}
          grpc_tls_named:
            prober: grpc
            timeout: 3s
            grpc: {preferred_ip_protocol: ip4, tls: true, tls_config: {ca_file: \(ca), server_name: localhost, min_version: TLS13}}
          grpc_tls_insecure: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, tls: true, tls_config: {insecure_skip_verify: true}}}
          grpc_tls_untrusted: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, tls: true}}
          grpc_tls_wrong_name: {prober: grpc, timeout: 3s, grpc: {preferred_ip_protocol: ip4, tls: true, tls_config: {ca_file: \(ca), server_name: other.test}}}
        """
        let blackbox = try Self.startBlackbox(modules, in: work)
        defer { Harness.stop(blackbox.pid, signal: SIGTERM) }
        let allow = [plainPort, tlsPort, closedPort, silentPort].map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", ")
        let serve = try ServeCLITests.Serve(config: "allow: [\(allow)]\n" + modules)
        defer { serve.stop() }

        let plain = "127.0.0.1:\(plainPort)", tls = "127.0.0.1:\(tlsPort)", closed = "127.0.0.1:\(closedPort)"
        let cases: [(module: String, target: String, success: Bool, status: Double)] = [
            ("grpc_plain", plain, true, 0), ("grpc_plain", "http://" + plain, true, 0), ("grpc_serving", plain, true, 0),
            ("grpc_down", plain, false, 0), ("grpc_unknown", plain, false, 5), ("grpc_plain", closed, false, 14),
            ("grpc_tls", tls, true, 0), ("grpc_tls_down", tls, false, 0), ("grpc_tls_unknown", tls, false, 5),
            ("grpc_tls_named", tls, true, 0), ("grpc_tls_insecure", tls, true, 0), ("grpc_tls_untrusted", tls, false, 14),
            ("grpc_tls_wrong_name", tls, false, 14), ("grpc_tls", closed, false, 14),
        ]
        let same = ["probe_success", "probe_ip_protocol", "probe_ip_addr_hash", "probe_grpc_status_code", "probe_grpc_ssl",
                    "probe_grpc_healthcheck_response", "probe_ssl_earliest_cert_expiry"]
        var checks: [String: Double] = [:]
        for (module, target, success, status) in cases {
            let mine = try Self.compare(module: module, target: target, success: success, sonde: serve.base, blackbox: blackbox.base, sameValues: same)
            #expect(mine["probe_grpc_status_code"] == status, "\(module) \(target): status \(String(describing: mine["probe_grpc_status_code"]))")
            checks["\(module) \(target)"] = mine["probe_grpc_duration_seconds{phase=\"check\"}"]
        }
        // NOT_SERVING over TLS still tells the certificate (the call was answered), as blackbox's does.
        let down = BlackboxProbersCLITests.probeSamples(try ServeCLITests.fetch("\(serve.base)/probe?target=\(tls)&module=grpc_tls_down").body)
        #expect(down["probe_grpc_ssl"] == 1 && down["probe_grpc_healthcheck_response{serving_status=\"NOT_SERVING\"}"] == 1, "\(down)")
        #expect(down.keys.contains { $0.hasPrefix("probe_ssl_last_chain_info{") && $0.contains("subject=\"CN=localhost\"") }, "\(down)")

        // A peer that takes the connection and never answers: the call ends at the probe's
        // deadline, DEADLINE_EXCEEDED (blackbox puts no deadline on its call, so it is not asked).
        let silent = try Harness.spawn("/usr/bin/env", ["python3", "-c", "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', \(silentPort)))\n"
                                                         + "s.listen(8)\nprint('ready', flush=True)\ntime.sleep(120)\n"], stdout: work + "/silent.out", stderr: work + "/silent.err")
        defer { Harness.stop(silent, signal: SIGKILL) }
        #expect(Harness.waitFor(seconds: 15) { ((try? String(contentsOfFile: work + "/silent.out", encoding: .utf8)) ?? "").contains("ready") })
        let stalled = BlackboxProbersCLITests.probeSamples(try ServeCLITests.fetch("\(serve.base)/probe?target=127.0.0.1:\(silentPort)&module=grpc_plain",
                                                                                   headers: ["X-Prometheus-Scrape-Timeout-Seconds: 1.5"]).body)
        let stalledFor = stalled["probe_duration_seconds"] ?? -1
        #expect(stalled["probe_success"] == 0 && stalled["probe_grpc_status_code"] == 4 && stalledFor >= 0.95 && stalledFor < 1.5, "\(stalled)")

        // The allow list: a host:port no pattern names is refused before anything is sent.
        let refused = try ServeCLITests.fetch("\(serve.base)/probe?target=127.0.0.1:22&module=grpc_plain")
        #expect(refused.status == 403, "\(refused)")
        let schemed = try ServeCLITests.fetch("\(serve.base)/probe?target=https://127.0.0.1:22&module=grpc_plain")
        #expect(schemed.status == 403, "the allow list reads the target as the prober does: \(schemed)")
        let withPath = try ServeCLITests.fetch("\(serve.base)/probe?target=http://\(plain)/x&module=grpc_plain")
        #expect(withPath.status == 400, "\(withPath)")
        let noPort = try ServeCLITests.fetch("\(serve.base)/probe?target=127.0.0.1&module=grpc_plain")
        #expect(noPort.status == 403, "port 80 is not allowed: \(noPort)")
        let debug = try ServeCLITests.fetch("\(serve.base)/probe?target=\(plain)&module=grpc_down&debug=true")
        #expect(debug.body.contains("serving_status=NOT_SERVING") && debug.body.contains("service: \"sonde.Down\""), "\(debug.body)")
        print("grpc check phase (s): \(checks.sorted { $0.key < $1.key })")
    }
}
