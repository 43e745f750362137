import Foundation
import SondeCLI
import SondeSuite
import SondeServe
import Testing

/// serve's config: the suite's checks with a schedule, blackbox_exporter's modules, the allow list,
/// every problem at its place.
@Suite struct ServeConfigLoaderTests {
    static func load(_ text: String, environment: [String: String] = [:]) throws(SuiteLoader.Failure) -> ServeConfig {
        try ServeConfigLoader.parse(text, file: "sonde.yaml", folder: "/tmp", kinds: .sonde, environment: environment)
    }

    static func problems(_ text: String) -> [String] {
        do { _ = try load(text) } catch { return error.problems.map(\.description) }
        return []
    }

    @Test func readsEveryKey() throws {
        let config = try Self.load("""
        listen: 127.0.0.1:9200
        vantage: fra-1
        allow: ["https://api.example.com/*", "https://*.cdn.example.com/v1/*"]
        modules:
          http_2xx:
            prober: http
            timeout: 5s
            http: {method: get, valid_status_codes: [200, 204], preferred_ip_protocol: ip4, no_follow_redirects: true,
                   headers: {Accept: application/json}, bearer_token: "${TOKEN}"}
          icmp: {prober: icmp}
          body_regex: {prober: http, http: {fail_if_body_not_matches_regexp: ["ok"], fail_if_header_matches: [{header: X-A, regexp: "^b"}]}}
          compressed: {prober: http, http: {compression: gzip}}
        parallel: 2
        defaults: {every: 1m}
        checks:
          - {name: api, kind: probe, urls: [https://api.example.com/v1/health], count: 3, every: 5m}
          - {name: socket, kind: soak, url: wss://api.example.com/socket, duration: 10m}
        history: history.sqlite
        keep: {days: 30}
        """, environment: ["TOKEN": "s3cret"])
        #expect(config.listen == ListenAddress(host: "127.0.0.1", port: 9200))
        #expect(config.vantage == "fra-1")
        #expect(config.allow.patterns.count == 2)
        #expect(config.parallel == 2)
        #expect(config.checks.map(\.check.name) == ["api", "socket"])
        #expect(config.checks.map(\.every) == [300, 60])
        #expect(config.checks[0].runTimeout == 600)
        #expect(config.checks[1].runTimeout == 660, "a soak's duration and a minute")
        #expect(config.history == "/tmp/history.sqlite")
        #expect(config.keepDays == 30)
        let module = try #require(config.modules["http_2xx"])
        #expect(module.timeout == 5 && module.http.method == "GET" && module.http.validStatusCodes == [200, 204])
        #expect(module.http.preferredIPProtocol == "ip4" && !module.http.followRedirects && module.http.bearerToken == "s3cret")
        #expect(module.unsupported == nil)
        #expect(config.modules["icmp"]?.unsupported == nil && config.modules["icmp"]?.prober == "icmp")
        // The regexp options are implemented (issue 39, item 15); compression is not.
        let regex = try #require(config.modules["body_regex"])
        #expect(regex.unsupported == nil && regex.http.failIfBodyNotMatches.map(\.source) == ["ok"])
        #expect(regex.http.failIfHeaderMatches.map(\.header) == ["X-A"] && regex.http.failIfHeaderMatches.first?.allowMissing == false)
        #expect(config.modules["compressed"]?.unsupported?.contains("http.compression") == true)
    }

    @Test func withoutChecksItIsAProbeExporter() throws {
        let config = try Self.load("allow: [\"http://127.0.0.1:8080/*\"]\nmodules: {http_2xx: {prober: http}}\n")
        #expect(config.checks.isEmpty && config.parallel == ServeConfig.defaultParallel)
        // An empty file (one truncated mid-save) is refused, as `sonde run` refuses an empty suite.
        for empty in ["", "# nothing\n", "{}\n"] {
            #expect(Self.problems(empty).contains { $0.contains("the config file is empty") }, "\(empty.debugDescription)")
        }
    }

    @Test func everyProblemAtItsPlace() {
        let problems = Self.problems("""
        listen: nowhere
        allow: ["ftp://x/*", "https://a*b.example.com/*"]
        modules:
          m: {prober: http, timeout: 2h, http: {method: "GE T", valid_status_codes: [700], tls_config: {ca_file: /nonexistent.pem}, typo: 1}}
          n: {prober: smtp}
        checks:
          - {name: api, kind: probe, urls: [https://example.com/]}
          - {name: web, kind: probe, urls: [https://example.com/], every: 0s}
          - {name: slow, kind: probe, urls: [https://example.com/], every: 1m, run-timeout: 25h}
        keep: {days: 0, weeks: 1}
        colour: blue
        """)
        let expected = [
            "sonde.yaml:1:9: listen: 'nowhere' is not host:port",
            "sonde.yaml:2:9: allow: 'ftp://x/*' is not scheme://host[:port]/path",
            "sonde.yaml:2:22: allow: 'https://a*b.example.com/*' has '*' in its host",
            "sonde.yaml:4:30: modules.m.timeout: must be at most 10m",
            "sonde.yaml:4:49: modules.m.http.method: 'GE T' is not an HTTP method",
            "sonde.yaml:4:78: modules.m.http.valid_status_codes: must be between 100 and 599",
            "modules.m.http.tls_config.ca_file: /nonexistent.pem: no such file",
            "modules.m.http: unknown key 'typo'",
            "sonde.yaml:5:15: modules.n.prober: unknown prober 'smtp'",
            "sonde.yaml:7:5: every: missing",
            "sonde.yaml:8:67: every: must be at least 1s",
            "sonde.yaml:9:85: run-timeout: must be at most 24h",
            "keep: must be between 1 and 3650 (got 0)",
            "keep: unknown key 'weeks'",
            "sonde.yaml:11:1: colour: unknown key",
        ]
        #expect(!problems.contains { $0.contains("modules.n.prober: missing") }, "an unknown prober is one problem")
        for prefix in expected {
            #expect(problems.contains { $0.contains(prefix) }, "no problem like \(prefix) in:\n\(problems.joined(separator: "\n"))")
        }
    }

    /// A mistyped module key and a bad value, in every section of a module: each said at its place,
    /// the key with the nearest one of its section (from the key table), the value in its key's words.
    @Test func aMistypedModuleKeyNamesTheNearestAndABadValueIsRefused() {
        let text = """
        modules:
          h: {prober: http, http: {valid_status_code: [200], preferred_ip_protocol: ip5, tls_config: {insecure_skip_verfy: true}}}
          t: {prober: tcp, tcp: {query_respons: [], tls_config: {min_version: TLS14}}}
          d: {prober: dns, dns: {query_name: example.com, query_typ: A, transport_protocol: sctp}}
          i: {prober: icmp, icmp: {tll: 3, payload_size: 70000}}
          g: {prober: grpc, grpc: {servce: x, tls: maybe}}
          x: {probr: http}
          z: {prober: http, http: {zzzzzz: 1}}
        """
        var messages: [String] = []
        do { _ = try Self.load(text) } catch { messages = error.problems.map(\.description) }
        for expected in [
            "sonde.yaml:2:28: modules.h.http: unknown key 'valid_status_code' (allowed: method, headers, body, valid_status_codes,",
            "): did you mean valid_status_codes?",
            "sonde.yaml:2:77: modules.h.http.preferred_ip_protocol: 'ip5' is not ip4 or ip6",
            "modules.h.http.tls_config: unknown key 'insecure_skip_verfy' (allowed: ca_file, insecure_skip_verify, ca,",
            "did you mean insecure_skip_verify?",
            "modules.t.tcp: unknown key 'query_respons' (allowed: preferred_ip_protocol, ip_protocol_fallback, query_response, tls, tls_config, source_ip_address): did you mean query_response?",
            "modules.t.tcp.tls_config.min_version: unknown TLS version 'TLS14' (allowed: TLS10, TLS11, TLS12, TLS13)",
            "modules.d.dns: unknown key 'query_typ'", "did you mean query_type?",
            "modules.d.dns.transport_protocol: 'sctp' is not udp or tcp",
            "modules.i.icmp: unknown key 'tll'", "did you mean ttl?",
            "modules.i.icmp.payload_size: must be between 0 and 65507 (got 70000)",
            "modules.g.grpc: unknown key 'servce'", "did you mean service?",
            "modules.g.grpc.tls: expected true or false (got 'maybe')",
            "modules.x: unknown key 'probr' (allowed: prober, timeout, http, tcp, icmp, dns, grpc): did you mean prober?",
            "modules.x.prober: missing",
            "modules.z.http: unknown key 'zzzzzz' (allowed: method,",
        ] {
            #expect(messages.contains { $0.contains(expected) }, "no problem says \(expected): \(messages)")
        }
        // A key far from every name gets no guess.
        #expect(!messages.contains { $0.contains("'zzzzzz'") && $0.contains("did you mean") }, "\(messages)")
    }

    @Test func allowListMatchesOriginsExactlyAndPathsByGlob() throws {
        func list(_ patterns: String...) throws -> AllowList {
            AllowList(patterns: try patterns.map { try AllowList.Pattern.parse($0).get() })
        }
        let allow = try list("https://api.example.com/v1/*", "http://127.0.0.1:8080/*", "https://*.cdn.example.com/*", "http://[::1]:8080/*")
        for target in ["https://api.example.com/v1/health", "https://API.example.com:443/v1/x?y=1", "http://127.0.0.1:8080/",
                       "https://eu_west.cdn.example.com/x", "http://[::1]:8080/v",
                       "https://eu.cdn.example.com/big.bin"] {
            #expect(allow.allowing(target) != nil, "\(target) should pass")
        }
        for target in ["https://api.example.com/v2/health", "http://api.example.com/v1/health", "https://api.example.com:8443/v1/",
                       "http://127.0.0.1:8081/", "https://cdn.example.com/big.bin", "https://api.example.com.evil.net/v1/x",
                       "https://user:pw@api.example.com/v1/x", "https://evilcdn.example.com/x", "not a url", "file:///etc/passwd",
                       "https://localhost%00.cdn.example.com/x", "https://local%0ahost.cdn.example.com/x", "https://a%2fb.cdn.example.com/x"] {
            #expect(allow.allowing(target) == nil, "\(target) should be refused")
        }
        // Dot segments, in every spelling libcurl or a server resolves, are refused before matching.
        for path in ["/v1/../admin", "/v1/%2e%2e/admin", "/v1/%2E%2E/admin", "/v1/.%2e/admin", "/v1/x/../../admin", "/v1/%252e%252e/admin",
                     "/v1/..%2fadmin", "/v1/..%5cadmin", "/v1/..;x/admin", "/v1/./health", "/v1/..", "/v1/%2e"] {
            #expect(allow.allowing("https://api.example.com" + path) == nil, "\(path) should be refused")
            #expect(AllowList.hasDotSegment("https://api.example.com" + path), "\(path)")
        }
        #expect(AllowList.hasDotSegment("https://api.example.com/v1/..\\admin"))
        for path in ["/v1/...", "/v1/.well-known/x", "/v1/a..b", "/v1/x?next=../admin", "/v1/%2e%2e.txt", "/v1/x#/../y"] {
            #expect(!AllowList.hasDotSegment("https://api.example.com" + path), "\(path) has no dot segment")
        }
        #expect(allow.allowing("https://api.example.com/v1/.well-known/x?next=../admin") != nil)
        // A pathological glob stays fast.
        let stars = try list("http://h/" + String(repeating: "*a", count: 40) + "b")
        let started = Date()
        #expect(stars.allowing("http://h/" + String(repeating: "a", count: 5000)) == nil)
        #expect(Date().timeIntervalSince(started) < 1)
    }

    @Test func listenAddresses() {
        #expect(ListenAddress(parsing: "127.0.0.1:0") == ListenAddress(host: "127.0.0.1", port: 0))
        #expect(ListenAddress(parsing: "[::1]:9166") == ListenAddress(host: "::1", port: 9166))
        #expect(ListenAddress(parsing: "[::1]:9166")?.description == "[::1]:9166")
        for bad in ["9166", ":9166", "host:70000", "::1:9166", "host:-1", "host:9166x", "[::1]9166", "a b:1"] {
            #expect(ListenAddress(parsing: bad) == nil, "\(bad)")
        }
    }
}

extension ServeConfigLoaderTests {
    @Test func webConfigProblemsAtTheirPlaceInItsFile() throws {
        let folder = NSTemporaryDirectory() + "sonde-web-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder + "/cert.pem", contents: Data("x".utf8))
        FileManager.default.createFile(atPath: folder + "/web.yml", contents: Data("""
        tls_server_config: {cert_file: cert.pem, client_auth_type: RequireAndVerifyClientCert}
        basic_auth_users: {alice: plaintext}
        colour: blue
        """.utf8))
        var problems: [String] = []
        do { _ = try ServeConfigLoader.parse("web-config: web.yml\n", file: folder + "/sonde.yaml", folder: folder, kinds: .sonde, environment: [:]) } catch {
            problems = error.problems.map(\.description)
        }
        for expected in ["web.yml:1:42: tls_server_config: not supported by sonde serve 'client_auth_type'",
                         "web.yml:1:20: tls_server_config: needs both cert_file and key_file",
                         "web.yml:2:27: basic_auth_users: the hash of 'alice' is not a bcrypt hash",
                         "web.yml:3:1: web-config: unknown key 'colour'"] {
            #expect(problems.contains { $0.contains(expected) }, "no \(expected) in:\n\(problems.joined(separator: "\n"))")
        }
        FileManager.default.createFile(atPath: folder + "/key.pem", contents: Data("x".utf8))
        FileManager.default.createFile(atPath: folder + "/web.yml", contents: Data("""
        tls_server_config: {cert_file: cert.pem, key_file: key.pem, min_version: TLS13}
        basic_auth_users: {alice: "$2y$10$abcdefghijklmnopqrstuuJcdFZ7dDq0YH1lDZzEBLJqVxWSzqsBa"}
        """.utf8))
        let config = try ServeConfigLoader.parse("web-config: web.yml\nmodules: {http_2xx: {prober: http}}\n", file: folder + "/sonde.yaml",
                                                 folder: folder, kinds: .sonde, environment: [:])
        #expect(config.web?.tls == WebConfig.TLS(certFile: folder + "/cert.pem", keyFile: folder + "/key.pem", minVersion: "TLS13"))
        #expect(config.web?.basicAuthUsers.keys.sorted() == ["alice"])
        #expect(config.web?.requiresAuth == true)
    }
}
