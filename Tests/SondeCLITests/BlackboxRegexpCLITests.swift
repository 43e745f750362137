import Foundation
import Testing

/// serve's `/probe` and Go's regular expressions (RE2), side by side with the real blackbox_exporter
/// 0.23 (Debian's package) on the same modules and targets (issue 39, items 10, 11 and 15): a
/// backtracking pattern against a line and a DNS record, peers that stream lines, the http
/// prober's header and body regexps and a redirect it does not follow, and a real Prometheus
/// scraping a probe whose regexp fails.
@Suite(.serialized) struct BlackboxRegexpCLITests {
    /// The peers, blackbox_exporter and serve on one blackbox.yml (serve's config adds the allow list).
    final class Setup {
        let work = Harness.temporaryDirectory()
        let httpPort = Harness.freePort(), tcpPort = Harness.freePort(), dnsPort = Harness.freePort(), blackboxPort = Harness.freePort()
        let peer: pid_t, dns: pid_t, blackbox: pid_t
        let serve: ServeCLITests.Serve

        init(modules: String, serveArguments: [String] = []) throws {
            peer = try BlackboxProbersCLITests.startPython("regexp_peer.py", ["\(httpPort)", "\(tcpPort)"], in: work)
            dns = try BlackboxProbersCLITests.startPython("dns_peer.py", ["\(dnsPort)"], in: work)
            let config = "modules:\n" + modules
            FileManager.default.createFile(atPath: work + "/blackbox.yml", contents: Data(config.utf8))
            blackbox = try ServeCLITests.startPeer("/usr/bin/prometheus-blackbox-exporter",
                                                   ["--config.file=\(work)/blackbox.yml", "--web.listen-address=127.0.0.1:\(blackboxPort)"],
                                                   ready: "http://127.0.0.1:\(blackboxPort)/-/healthy", in: work, name: "blackbox")
            serve = try ServeCLITests.Serve(config: "allow: [\"http://127.0.0.1:\(httpPort)/*\", \"127.0.0.1:\(tcpPort)\", \"127.0.0.1:\(dnsPort)\"]\n" + config,
                                            arguments: serveArguments)
        }

        /// Both answers to one probe: (sonde's status, body, seconds), (blackbox's status, body, seconds).
        func probe(_ module: String, _ target: String) throws -> (ours: Answer, theirs: Answer) {
            let query = "probe?module=\(module)&target=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            return (try Answer("\(serve.base)/\(query)"), try Answer("http://127.0.0.1:\(blackboxPort)/\(query)"))
        }

        func stop() {
            serve.stop()
            for pid in [blackbox, dns, peer] { Harness.stop(pid, signal: SIGTERM) }
        }
    }

    /// One `/probe` answer, timed by curl.
    struct Answer {
        var status: Int
        var body: String
        var seconds: Double
        var samples: [String: Double] { BlackboxProbersCLITests.probeSamples(body) }

        init(_ url: String) throws {
            let result = try Harness.run("/usr/bin/curl", ["-s", "-w", "\n%{http_code} %{time_total}", "--max-time", "40", url], timeout: 50)
            let text = result.stdout
            let newline = text.lastIndex(of: "\n") ?? text.endIndex
            let fields = text[newline...].split(separator: " ")
            body = String(text[..<newline])
            status = Int(fields.first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            seconds = Double(fields.last ?? "") ?? 40
        }
    }

    /// `(a+)+b` against `'a' * N + '!'` took the ICU engine 31.6 s of a 3 s probe at N = 60 and did
    /// not end at N = 2000 (SIGTERM no longer stopped serve); a DNS record the same. blackbox (Go's
    /// RE2) answers at once; so does serve now, with the same series, and a config that Go refuses
    /// (`((a{1000}){1000}){1000}`) is refused by both.
    @Test func backtrackingPatternsEndAsInBlackbox() throws {
        let setup = try Setup(modules: """
          tcp_backtrack_60: {prober: tcp, timeout: 3s, tcp: {preferred_ip_protocol: ip4, query_response: [{send: "backtrack 60"}, {expect: "(a+)+b"}]}}
          tcp_backtrack_2000: {prober: tcp, timeout: 3s, tcp: {preferred_ip_protocol: ip4, query_response: [{send: "backtrack 2000"}, {expect: "(a+)+b"}]}}
          tcp_matches: {prober: tcp, timeout: 3s, tcp: {preferred_ip_protocol: ip4, query_response: [{send: "backtrack 2000"}, {expect: "^(a+)+!$"}]}}
          dns_backtrack:
            prober: dns
            timeout: 3s
            dns:
              preferred_ip_protocol: ip4
              query_name: backtrack.example.test
              query_type: TXT
              validate_answer_rrs: {fail_if_matches_regexp: ["(a+)+b"], fail_if_not_matches_regexp: ["(a+)+!"]}
        """)
        defer { setup.stop() }
        let tcp = "127.0.0.1:\(setup.tcpPort)", dns = "127.0.0.1:\(setup.dnsPort)"
        for (module, target, success) in [("tcp_backtrack_60", tcp, false), ("tcp_backtrack_2000", tcp, false), ("tcp_matches", tcp, true),
                                          ("dns_backtrack", dns, true)] {
            let (ours, theirs) = try setup.probe(module, target)
            #expect(ours.status == 200 && theirs.status == 200, "\(module): sonde \(ours.status) in \(ours.seconds) s, blackbox \(theirs.status)")
            #expect(theirs.samples["probe_success"] == (success ? 1 : 0), "\(module): blackbox \(theirs.body)")
            for key in ["probe_success", "probe_failed_due_to_regex", "probe_dns_answer_rrs"] where theirs.samples[key] != nil {
                #expect(ours.samples[key] == theirs.samples[key], "\(module) \(key): sonde \(String(describing: ours.samples[key])), blackbox \(String(describing: theirs.samples[key]))")
            }
            // The peer holds a line that never matches: both read until the module's 3 s, no longer.
            #expect(ours.seconds < 3.8, "\(module): sonde answered in \(ours.seconds) s (blackbox \(theirs.seconds) s)")
        }
        // A probe whose match would never end, then SIGTERM: serve stops at once.
        let background = try Harness.spawn("/usr/bin/curl", ["-s", "--max-time", "20", "\(setup.serve.base)/probe?module=tcp_backtrack_2000&target=\(tcp)"],
                                           stdout: setup.work + "/curl.out", stderr: setup.work + "/curl.err")
        defer { Harness.stop(background, signal: SIGKILL) }
        usleep(500_000)
        let started = Date()
        setup.serve.stop(signal: SIGTERM)
        #expect(Date().timeIntervalSince(started) < 10, "serve took \(Date().timeIntervalSince(started)) s to stop on SIGTERM")

        // What Go refuses, both refuse at load.
        let refused = """
        modules:
          nested: {prober: tcp, tcp: {query_response: [{expect: "((a{1000}){1000}){1000}"}]}}
        """
        FileManager.default.createFile(atPath: setup.work + "/refused.yml", contents: Data(refused.utf8))
        let check = try Harness.run("/usr/bin/prometheus-blackbox-exporter", ["--config.check", "--config.file=\(setup.work)/refused.yml"], timeout: 30)
        #expect(check.status != 0 && (check.stdout + check.stderr).contains("Could not compile regular expression"), "blackbox: \(check.stdout) \(check.stderr)")
        let serve = try Harness.sonde(["serve", "--config", setup.work + "/refused.yml", "--listen", "127.0.0.1:0", "--output-dir", setup.work + "/runs"],
                                      timeout: 30)
        #expect(serve.status == 64 && serve.stderr.contains("invalid repeat count: `{1000}`"), "sonde: \(serve.status) \(serve.stderr)")
    }

    /// 100 probes at once of a peer that streams lines never matching `expect`, with a 3 s timeout:
    /// answers took up to 11.6 s and `/-/healthy` 6.6 s. Now each ends at its deadline, as
    /// blackbox's does, and `/-/healthy` stays prompt beside them.
    @Test func streamingPeersCannotHoldProbesPastTheDeadline() throws {
        let setup = try Setup(modules: """
          tcp_stream: {prober: tcp, timeout: 3s, tcp: {preferred_ip_protocol: ip4, query_response: [{send: "stream"}, {expect: "^never$"}]}}
        """)
        defer { setup.stop() }
        let target = "127.0.0.1:\(setup.tcpPort)"
        let (ours, theirs) = try setup.probe("tcp_stream", target)
        #expect(ours.status == 200 && ours.samples["probe_success"] == 0 && theirs.samples["probe_success"] == 0, "\(ours.body)\n\(theirs.body)")
        #expect(ours.samples["probe_failed_due_to_regex"] == theirs.samples["probe_failed_due_to_regex"], "\(ours.body)\n\(theirs.body)")
        #expect(ours.seconds < 3.8, "one probe: \(ours.seconds) s")
        // 100 at once (serve's default --web.max-probes), and /-/healthy every 200 ms meanwhile.
        let result = try Harness.run("/usr/bin/env", ["python3", "-c", """
            import threading, time, urllib.request, json
            base = "\(setup.serve.base)"
            probes, health, done = [], [], threading.Event()
            def probe():
                start = time.time()
                try:
                    body = urllib.request.urlopen(base + "/probe?module=tcp_stream&target=\(target)", timeout=40).read().decode()
                    ok = "probe_success 0" in body
                except Exception as error:
                    ok = False
                probes.append((time.time() - start, ok))
            def healthy():
                while not done.is_set():
                    start = time.time()
                    try:
                        urllib.request.urlopen(base + "/-/healthy", timeout=20).read()
                    except Exception:
                        pass
                    health.append(time.time() - start)
                    time.sleep(0.2)
            watcher = threading.Thread(target=healthy); watcher.start()
            threads = [threading.Thread(target=probe) for _ in range(100)]
            for t in threads: t.start()
            for t in threads: t.join()
            done.set(); watcher.join()
            print(json.dumps({"probes": [p[0] for p in probes], "answered": sum(1 for p in probes if p[1]), "health": health}))
            """], timeout: 120)
        let json = try Harness.json(result.stdout)
        let probes = (json["probes"] as? [Double]) ?? [], health = (json["health"] as? [Double]) ?? []
        #expect(probes.count == 100 && json["answered"] as? Int == 100, "\(result.stdout) \(result.stderr)")
        #expect((probes.max() ?? 99) < 4.5, "the slowest of 100 probes took \(probes.max() ?? -1) s (3 s timeout)")
        #expect(!health.isEmpty && (health.max() ?? 99) < 1, "/-/healthy beside them: \(health)")
    }

    /// `fail_if_body_matches_regexp`, `fail_if_body_not_matches_regexp` and the header regexps were
    /// refused with 400 (Prometheus saw a failed scrape); `follow_redirects: false` with
    /// `valid_status_codes: [302]` failed (`redirectRefused`) or succeeded with an error series.
    /// Now each answers as blackbox does, and a real Prometheus scrapes `probe_success 0`.
    @Test func httpRegexpsAndUnfollowedRedirectsAsBlackbox() throws {
        let setup = try Setup(modules: """
          body_not_matches: {prober: http, timeout: 3s, http: {preferred_ip_protocol: ip4, fail_if_body_not_matches_regexp: ["Welcome to (?P<name>\\\\w+) 1\\\\.2"]}}
          body_matches: {prober: http, timeout: 3s, http: {preferred_ip_protocol: ip4, fail_if_body_matches_regexp: ["(?i)welcome"]}}
          body_missing: {prober: http, timeout: 3s, http: {preferred_ip_protocol: ip4, fail_if_body_not_matches_regexp: ["Goodbye"]}}
          header_matches:
            prober: http
            timeout: 3s
            http:
              preferred_ip_protocol: ip4
              fail_if_header_not_matches: [{header: x-version, regexp: "^1\\\\.[0-9]+"}, {header: Set-Cookie, regexp: "^session=abc"}]
          header_fails: {prober: http, timeout: 3s, http: {preferred_ip_protocol: ip4, fail_if_header_matches: [{header: X-Version, regexp: "^1\\\\."}]}}
          header_missing: {prober: http, timeout: 3s, http: {preferred_ip_protocol: ip4, fail_if_header_matches: [{header: X-Absent, regexp: "."}]}}
          header_missing_allowed:
            prober: http
            timeout: 3s
            http: {preferred_ip_protocol: ip4, fail_if_header_matches: [{header: X-Absent, regexp: ".", allow_missing: true}]}
          no_follow_302: {prober: http, timeout: 3s, http: {preferred_ip_protocol: ip4, follow_redirects: false, valid_status_codes: [302]}}
        """)
        defer { setup.stop() }
        let origin = "http://127.0.0.1:\(setup.httpPort)"
        let cases: [(module: String, path: String, success: Bool)] = [
            ("body_not_matches", "/page", true), ("body_matches", "/page", false), ("body_missing", "/page", false),
            ("header_matches", "/page", true), ("header_fails", "/page", false), ("header_missing", "/page", false),
            ("header_missing_allowed", "/page", true), ("no_follow_302", "/redirect-away", true), ("no_follow_302", "/redirect-here", true),
            ("no_follow_302", "/page", false),
        ]
        for (module, path, success) in cases {
            let (ours, theirs) = try setup.probe(module, origin + path)
            #expect(ours.status == 200 && theirs.status == 200, "\(module) \(path): sonde \(ours.status) \(ours.body)")
            #expect(theirs.samples["probe_success"] == (success ? 1 : 0), "\(module) \(path): blackbox \(theirs.body)")
            for key in ["probe_success", "probe_failed_due_to_regex", "probe_http_status_code", "probe_http_redirects"] {
                #expect(ours.samples[key] == theirs.samples[key],
                        "\(module) \(path) \(key): sonde \(String(describing: ours.samples[key])), blackbox \(String(describing: theirs.samples[key]))")
            }
            #expect(!ours.body.contains("sonde_probe_error_info"), "\(module) \(path): \(ours.body)")
        }

        // Prometheus scrapes the failing regexp module: the scrape is up, the probe failed for its regexp.
        let promPort = Harness.freePort()
        FileManager.default.createFile(atPath: setup.work + "/prometheus.yml", contents: Data("""
        global: {scrape_interval: 1s, scrape_timeout: 1s}
        scrape_configs:
          - job_name: sonde_probe
            metrics_path: /probe
            params: {module: [body_matches]}
            static_configs: [{targets: ["\(origin)/page"]}]
            relabel_configs:
              - {source_labels: [__address__], target_label: __param_target}
              - {target_label: __address__, replacement: "127.0.0.1:\(setup.serve.port)"}
        """.utf8))
        let prometheus = try ServeCLITests.startPrometheus(in: setup.work, port: promPort)
        defer { Harness.stop(prometheus, signal: SIGTERM) }
        func value(_ query: String) -> String? {
            guard let answer = try? ServeCLITests.fetch("http://127.0.0.1:\(promPort)/api/v1/query?query=\(query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"),
                  let json = try? Harness.json(answer.body),
                  let result = (json["data"] as? [String: Any])?["result"] as? [[String: Any]] else { return nil }
            return (result.first?["value"] as? [Any])?.last as? String
        }
        #expect(Harness.waitFor(seconds: 30) { value("probe_failed_due_to_regex{job=\"sonde_probe\"}") != nil },
                "Prometheus stored no probe_failed_due_to_regex; up is \(value("up{job=\"sonde_probe\"}") ?? "absent")")
        #expect(value("up{job=\"sonde_probe\"}") == "1" && value("probe_success{job=\"sonde_probe\"}") == "0"
                && value("probe_failed_due_to_regex{job=\"sonde_probe\"}") == "1")
    }
}
