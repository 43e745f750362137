import Foundation
import Testing

/// serve's `/probe` with blackbox_exporter's tcp and dns probers, side by side with the real
/// blackbox_exporter 0.23 (Debian's package) on the same modules and targets, all on loopback:
/// nginx (plain and TLS) and a STARTTLS line peer for tcp, a dnslib server (PyPI) over UDP and TCP
/// for dns. For every module, success and failure: the same `probe_*` series with the same
/// labels, the same `probe_success`, and the same values where both measure the same thing.
@Suite(.serialized) struct BlackboxProbersCLITests {
    /// A Python peer of the Fixtures folder, started and waited for ("ready" on its stdout).
    static func startPython(_ script: String, _ arguments: [String], in directory: String) throws -> pid_t {
        let out = directory + "/\(script).out"
        let pid = try Harness.spawn("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/\(script)"] + arguments,
                                    stdout: out, stderr: directory + "/\(script).err")
        guard Harness.waitFor(seconds: 15, { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("ready") }) else {
            Harness.stop(pid, signal: SIGKILL)
            throw Harness.SpawnError(message: "\(script) did not start: " + ((try? String(contentsOfFile: directory + "/\(script).err", encoding: .utf8)) ?? ""))
        }
        return pid
    }

    /// The `probe_*` samples of an exposition (sonde's own `sonde_*` left out).
    static func probeSamples(_ text: String) -> [String: Double] {
        ServeCLITests.samples(text).filter { $0.key.hasPrefix("probe_") }
    }

    @Test func tcpAndDNSAnswerAsBlackboxDoes() throws {
        let work = Harness.temporaryDirectory()
        let nginx = try Nginx()
        defer { nginx.stop() }
        let dnsPort = Harness.freePort(), starttlsPort = Harness.freePort(), closedPort = Harness.freePort()
        let dns = try Self.startPython("dns_peer.py", ["\(dnsPort)"], in: work)
        defer { Harness.stop(dns, signal: SIGTERM) }
        let starttls = try Self.startPython("starttls_peer.py", ["\(starttlsPort)", nginx.certificate, nginx.directory + "/key.pem"], in: work)
        defer { Harness.stop(starttls, signal: SIGTERM) }

        let ca = nginx.certificate
        // One blackbox.yml, loaded by both (serve's config adds the allow list).
        let modules = """
        modules:
          tcp_connect: {prober: tcp, timeout: 3s, tcp: {preferred_ip_protocol: ip4}}
          tcp_http:
            prober: tcp
            timeout: 3s
            tcp:
              preferred_ip_protocol: ip4
              query_response:
                - send: "GET /1k.bin HTTP/1.0\\r\\n"
                - expect: "^HTTP/1\\\\.1 (\\\\d+) OK"
                - expect: "^Content-Length: 1024$"
          tcp_http_404_expected:
            prober: tcp
            timeout: 3s
            tcp:
              preferred_ip_protocol: ip4
              query_response: [{send: "GET /1k.bin HTTP/1.0\\r\\n"}, {expect: "^HTTP/1\\\\.1 404"}]
          tcp_tls:
            prober: tcp
            timeout: 3s
            tcp:
              preferred_ip_protocol: ip4
              tls: true
              tls_config: {ca_file: \(ca)}
              query_response: [{send: "GET /1k.bin HTTP/1.0\\r\\n"}, {expect: "^HTTP/1\\\\.1 200"}]
          tcp_silent: {prober: tcp, timeout: 1s, tcp: {preferred_ip_protocol: ip4, query_response: [{expect: "^never"}]}}
          tcp_tls_insecure: {prober: tcp, timeout: 3s, tcp: {preferred_ip_protocol: ip4, tls: true, tls_config: {insecure_skip_verify: true}}}
          tcp_tls_untrusted: {prober: tcp, timeout: 3s, tcp: {preferred_ip_protocol: ip4, tls: true}}
          tcp_starttls:
            prober: tcp
            timeout: 3s
            tcp:
              preferred_ip_protocol: ip4
              tls_config: {ca_file: \(ca), server_name: localhost}
              query_response:
                - expect: "^220 (?P<host>[^ ]+) ESMTP"
                  send: "STARTTLS ${host}"
                - expect: "^220 go ahead peer\\\\.test$"
                  starttls: true
                - expect: "^250 secure"
          dns_a:
            prober: dns
            timeout: 3s
            dns:
              preferred_ip_protocol: ip4
              query_name: example.test
              query_type: A
              validate_answer_rrs:
                fail_if_not_matches_regexp: ["^example\\\\.test\\\\.\\\\t300\\\\tIN\\\\tA\\\\t192\\\\.0\\\\.2\\\\.1$"]
          dns_mx_tcp:
            prober: dns
            timeout: 3s
            dns:
              preferred_ip_protocol: ip4
              transport_protocol: tcp
              query_name: example.test
              query_type: MX
              validate_answer_rrs: {fail_if_none_matches_regexp: ["\\\\tMX\\\\t10 mail\\\\.example\\\\.test\\\\.$"]}
              validate_additional_rrs: {fail_if_not_matches_regexp: ["^mail\\\\.example\\\\.test\\\\.\\\\t300\\\\tIN\\\\tA\\\\t"]}
          dns_records:
            prober: dns
            timeout: 3s
            dns:
              preferred_ip_protocol: ip4
              query_name: example.test
              validate_answer_rrs:
                fail_if_none_matches_regexp: ["\\\\tTXT\\\\t\\"v=spf1 -all\\"$", "\\\\tAAAA\\\\t2001:db8::1$",
                                              "\\\\tSOA\\\\tns1\\\\.example\\\\.test\\\\. hostmaster\\\\.example\\\\.test\\\\. 2024010101 3600 600 604800 60$"]
          dns_soa: {prober: dns, timeout: 3s, dns: {preferred_ip_protocol: ip4, query_name: example.test, query_type: SOA}}
          dns_matches_fails:
            prober: dns
            timeout: 3s
            dns:
              preferred_ip_protocol: ip4
              query_name: example.test
              query_type: A
              validate_answer_rrs: {fail_if_matches_regexp: ["192\\\\.0\\\\.2\\\\.1"]}
          dns_nxdomain: {prober: dns, timeout: 3s, dns: {preferred_ip_protocol: ip4, query_name: missing.example.test, query_type: A}}
          dns_nxdomain_valid:
            prober: dns
            timeout: 3s
            dns:
              preferred_ip_protocol: ip4
              query_name: missing.example.test
              query_type: A
              valid_rcodes: [NXDOMAIN]
              validate_authority_rrs: {fail_if_not_matches_regexp: ["\\\\tSOA\\\\t"]}
          dns_all_match:
            prober: dns
            timeout: 3s
            dns: {preferred_ip_protocol: ip4, query_name: example.test, validate_answer_rrs: {fail_if_all_match_regexp: ["\\\\tA\\\\t"]}}
        """
        FileManager.default.createFile(atPath: work + "/blackbox.yml", contents: Data(modules.utf8))
        let blackboxPort = Harness.freePort()
        let blackbox = try ServeCLITests.startPeer("/usr/bin/prometheus-blackbox-exporter",
                                                   ["--config.file=\(work)/blackbox.yml", "--web.listen-address=127.0.0.1:\(blackboxPort)"],
                                                   ready: "http://127.0.0.1:\(blackboxPort)/-/healthy", in: work, name: "blackbox")
        defer { Harness.stop(blackbox, signal: SIGTERM) }
        let allow = [nginx.http, nginx.https, dnsPort, starttlsPort, closedPort].map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", ")
        // serve's config expands `${NAME}` from the environment: a Go template reference is written `$${host}` there.
        let serve = try ServeCLITests.Serve(config: "allow: [\(allow)]\n" + modules.replacingOccurrences(of: "${host}", with: "$${host}"))
        defer { serve.stop() }

        let http = "127.0.0.1:\(nginx.http)", https = "127.0.0.1:\(nginx.https)", resolver = "127.0.0.1:\(dnsPort)"
        let cases: [(module: String, target: String, success: Bool)] = [
            ("tcp_connect", http, true), ("tcp_connect", "127.0.0.1:\(closedPort)", false),
            ("tcp_http", http, true), ("tcp_http_404_expected", http, false),
            ("tcp_silent", resolver, false),  // dnslib's TCP side waits for a query: the expect ends at the deadline
            ("tcp_tls", https, true), ("tcp_tls_insecure", https, true), ("tcp_tls_untrusted", https, false),
            ("tcp_starttls", "127.0.0.1:\(starttlsPort)", true),
            ("dns_a", resolver, true), ("dns_mx_tcp", resolver, true), ("dns_records", resolver, true), ("dns_soa", resolver, true),
            ("dns_matches_fails", resolver, false), ("dns_nxdomain", resolver, false), ("dns_nxdomain_valid", resolver, true),
            ("dns_all_match", resolver, false),
        ]
        // What both measure alike, compared by value (timings differ, and are only checked for sense).
        let sameValues = ["probe_success", "probe_failed_due_to_regex", "probe_ip_protocol", "probe_ip_addr_hash", "probe_dns_answer_rrs",
                          "probe_dns_authority_rrs", "probe_dns_additional_rrs", "probe_dns_query_succeeded", "probe_dns_serial",
                          "probe_ssl_earliest_cert_expiry", "probe_ssl_last_chain_expiry_timestamp_seconds"]
        for (module, target, success) in cases {
            let ours = try ServeCLITests.fetch("\(serve.base)/probe?target=\(target)&module=\(module)")
            let theirs = try ServeCLITests.fetch("http://127.0.0.1:\(blackboxPort)/probe?target=\(target)&module=\(module)")
            #expect(ours.status == 200 && theirs.status == 200, "\(module): sonde \(ours.status) \(ours.body), blackbox \(theirs.status)")
            let mine = Self.probeSamples(ours.body), reference = Self.probeSamples(theirs.body)
            #expect(Set(mine.keys) == Set(reference.keys),
                    "\(module) \(target): only sonde \(Set(mine.keys).subtracting(reference.keys).sorted()), only blackbox \(Set(reference.keys).subtracting(mine.keys).sorted())")
            #expect(reference["probe_success"] == (success ? 1 : 0), "\(module) \(target): blackbox \(theirs.body)")
            for key in reference.keys.sorted() where sameValues.contains(String(key.prefix { $0 != "{" })) || key.hasPrefix("probe_ssl_last_chain_info")
                || key.hasPrefix("probe_tls_version_info") {
                #expect(mine[key] == reference[key], "\(module) \(target) \(key): sonde \(String(describing: mine[key])), blackbox \(String(describing: reference[key]))")
            }
            let duration = mine["probe_duration_seconds"] ?? -1
            #expect(duration > 0 && duration < 3.5, "\(module): probe_duration_seconds \(duration)")
            if module == "tcp_silent" {
                // Both wait out the module's 1 s and no more (a regex that never saw its line is not a regex failure).
                let theirDuration = reference["probe_duration_seconds"] ?? -1
                #expect(duration >= 0.95 && duration < 1.5 && theirDuration >= 0.95 && theirDuration < 1.5, "sonde \(duration) s, blackbox \(theirDuration) s")
            }
            let phases = mine.filter { $0.key.hasPrefix("probe_dns_duration_seconds{") }.values
            #expect(phases.allSatisfy { $0 >= 0 && $0 <= duration }, "\(module): phases \(phases) within \(duration) s")
            // The exposition parses as Prometheus reads it: HELP and TYPE for each family, blackbox's help texts.
            for line in theirs.body.split(separator: "\n") where line.hasPrefix("# HELP probe_") {
                #expect(ours.body.contains(line), "\(module): sonde lacks \(line)")
            }
        }
        // The chain info of the TLS modules names nginx's leaf, as blackbox does.
        let tls = Self.probeSamples(try ServeCLITests.fetch("\(serve.base)/probe?target=\(https)&module=tcp_tls").body)
        #expect(tls.keys.contains { $0.hasPrefix("probe_ssl_last_chain_info{") && $0.contains("subject=\"CN=localhost\"") && $0.contains("subjectalternative=\"localhost\"") })

        // The allow list: a host:port it does not name is refused before anything is sent, and a
        // URL pattern does not let the tcp prober through.
        let refused = try ServeCLITests.fetch("\(serve.base)/probe?target=127.0.0.1:22&module=tcp_connect")
        #expect(refused.status == 403, "\(refused)")
        let noPort = try ServeCLITests.fetch("\(serve.base)/probe?target=127.0.0.1&module=tcp_connect")
        #expect(noPort.status == 400, "\(noPort)")
        // debug=true shows the log and the module, as blackbox's does.
        let debug = try ServeCLITests.fetch("\(serve.base)/probe?target=\(http)&module=tcp_http&debug=true")
        #expect(debug.body.contains("Regexp matched") && debug.body.contains("query_response:") && debug.body.contains("Probe succeeded"), "\(debug.body)")
    }
}
