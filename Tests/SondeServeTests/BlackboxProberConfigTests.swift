import Foundation
import SondeSuite
import SondeServe
import Testing

/// The tcp and dns modules of a blackbox.yml as serve reads them, Go's regular expressions as
/// sonde runs them, and the allow list's endpoint patterns (`host:port`, `host`).
@Suite struct BlackboxProberConfigTests {
    @Test func readsTCPAndDNSModules() throws {
        let config = try ServeConfigLoaderTests.load("""
        allow: ["127.0.0.1:25", "*.example.com:53"]
        modules:
          smtp_starttls:
            prober: tcp
            timeout: 5s
            tcp:
              preferred_ip_protocol: ip4
              query_response:
                - expect: "^220 (?P<host>[^ ]+) "
                - send: "EHLO $${host}"
                - expect: "^250-STARTTLS"
                - send: "STARTTLS"
                - expect: "^220"
                  starttls: true
              tls_config: {insecure_skip_verify: true, server_name: mail.example.com, min_version: TLS12}
          dns_mx:
            prober: dns
            dns:
              query_name: example.com
              query_type: MX
              transport_protocol: tcp
              valid_rcodes: [NOERROR, NXDOMAIN]
              validate_answer_rrs:
                fail_if_not_matches_regexp: ["example\\\\.com\\\\.\\\\t.*\\\\tIN\\\\tMX\\\\t"]
          tcp_other_section: {prober: tcp, http: {oauth2: {}}}
        """)
        let smtp = try #require(config.modules["smtp_starttls"])
        #expect(smtp.unsupported == nil)
        #expect(smtp.tcp.preferredIPProtocol == "ip4" && smtp.tcp.queryResponse.count == 5)
        #expect(smtp.tcp.queryResponse[0].expect?.source == "^220 (?P<host>[^ ]+) " && smtp.tcp.queryResponse[4].startTLS)
        // `$$` is serve's escape for a `$` (its config expands `${NAME}` from the environment).
        #expect(smtp.tcp.queryResponse[1].send == "EHLO ${host}")
        #expect(smtp.tcp.tlsConfig.insecureSkipVerify && smtp.tcp.tlsConfig.serverName == "mail.example.com" && smtp.tcp.tlsConfig.minVersion == "TLS12")
        let dns = try #require(config.modules["dns_mx"])
        #expect(dns.unsupported == nil && dns.dns.queryName == "example.com" && dns.dns.queryType == "MX" && dns.dns.transportProtocol == "tcp")
        #expect(dns.dns.validRcodes == ["NOERROR", "NXDOMAIN"] && dns.dns.validateAnswer.failIfNotMatches.count == 1)
        #expect(dns.dns.recursionDesired && dns.dns.preferredIPProtocol == "ip6", "blackbox's defaults")
        // Another prober's section is read and ignored, as blackbox ignores it.
        #expect(config.modules["tcp_other_section"]?.unsupported == nil)
    }

    @Test func refusesWhatBlackboxRefuses() {
        let problems = ServeConfigLoaderTests.problems("""
        allow: ["127.0.0.1:53"]
        modules:
          a: {prober: dns, dns: {query_type: A}}
          b: {prober: dns, dns: {query_name: x, query_type: BOGUS, transport_protocol: sctp, valid_rcodes: [NOPE]}}
          c: {prober: tcp, tcp: {query_response: [{expect: "(unclosed"}], tls_config: {cert_file: /nonexistent.pem}}}
          d: {prober: tcp, tcp: {query_response: [{expect: "(?=lookahead)"}], typo: 1}}
          e: {prober: dns}
          f: {prober: http, http: {fail_if_header_matches: [{regexp: "x"}, {header: X-A}, {header: X-B, regexp: "a{1001}", typo: 1}]}}
          g: {prober: http, http: {fail_if_body_matches_regexp: ["((a{1000}){1000}){1000}"], fail_if_header_not_matches: {header: X-A}}}
        """)
        for expected in ["modules.a.dns.query_name: missing", "modules.b.dns.query_type: query type 'BOGUS' is not valid",
                         "modules.b.dns.transport_protocol: 'sctp' is not udp or tcp", "modules.b.dns.valid_rcodes: unknown rcode 'NOPE'",
                         "modules.c.tcp.query_response.expect: could not compile", "modules.c.tcp.tls_config.cert_file: /nonexistent.pem",
                         "modules.d.tcp.query_response.expect: could not compile regular expression '(?=lookahead)': error parsing regexp: invalid or unsupported Perl syntax: `(?=`", "modules.d.tcp: unknown key 'typo'",
                         "modules.e.dns.query_name: missing",
                         "modules.f.http.fail_if_header_matches.header: header name must be set for HTTP header matchers",
                         "modules.f.http.fail_if_header_matches.regexp: regexp must be set for HTTP header matchers",
                         "modules.f.http.fail_if_header_matches.regexp: could not compile regular expression 'a{1001}': error parsing regexp: invalid repeat count: `{1001}`",
                         "modules.f.http.fail_if_header_matches: unknown key 'typo'",
                         "modules.g.http.fail_if_body_matches_regexp: could not compile regular expression '((a{1000}){1000}){1000}'",
                         "modules.g.http.fail_if_header_not_matches: expected a list of header, regexp, allow_missing mappings"] {
            #expect(problems.contains { $0.contains(expected) }, "no problem like \(expected) in:\n\(problems.joined(separator: "\n"))")
        }
    }

    @Test func notImplementedOptionsRefuseTheModule() throws {
        let config = try ServeConfigLoaderTests.load("""
        allow: ["127.0.0.1:53"]
        modules:
          dot: {prober: dns, dns: {query_name: example.com, dns_over_tls: true}}
          src: {prober: tcp, tcp: {source_ip_address: 127.0.0.2}}
          ping: {prober: icmp, icmp: {source_ip_address: 127.0.0.2}}
          mtls: {prober: grpc, grpc: {tls: true, tls_config: {ca: "inline PEM"}}}
        """)
        #expect(config.modules["dot"]?.unsupported?.contains("dns.dns_over_tls") == true)
        #expect(config.modules["src"]?.unsupported?.contains("tcp.source_ip_address") == true)
        #expect(config.modules["ping"]?.unsupported?.contains("icmp.source_ip_address") == true)
        #expect(config.modules["mtls"]?.unsupported?.contains("grpc.tls_config.ca") == true)
    }

    @Test func icmpAndGRPCSectionsAreRead() throws {
        let config = try ServeConfigLoaderTests.load("""
        allow: ["127.0.0.1", "127.0.0.1:50051"]
        modules:
          ping: {prober: icmp}
          ping_df: {prober: icmp, icmp: {preferred_ip_protocol: ip4, ip_protocol_fallback: false, dont_fragment: true, payload_size: 1400, ttl: 9}}
          health: {prober: grpc}
          health_tls:
            prober: grpc
            grpc: {service: my.Service, tls: true, preferred_ip_protocol: ip4, tls_config: {server_name: grpc.test, insecure_skip_verify: true, min_version: TLS13}}
        """)
        let ping = try #require(config.modules["ping"]), df = try #require(config.modules["ping_df"])
        #expect(ping.unsupported == nil && ping.icmp == BlackboxModule.ICMP(), "blackbox's defaults: ip6, fallback, 64")
        #expect(ping.icmp.preferredIPProtocol == "ip6" && ping.icmp.ttl == 64 && ping.icmp.payloadSize == 0 && !ping.icmp.dontFragment)
        #expect(df.icmp.preferredIPProtocol == "ip4" && !df.icmp.ipProtocolFallback && df.icmp.dontFragment && df.icmp.payloadSize == 1400 && df.icmp.ttl == 9)
        let health = try #require(config.modules["health"]), tls = try #require(config.modules["health_tls"])
        #expect(health.unsupported == nil && health.grpc == BlackboxModule.GRPC() && health.grpc.service == "" && !health.grpc.tls)
        #expect(tls.unsupported == nil && tls.grpc.service == "my.Service" && tls.grpc.tls && tls.grpc.preferredIPProtocol == "ip4")
        #expect(tls.grpc.tlsConfig.serverName == "grpc.test" && tls.grpc.tlsConfig.insecureSkipVerify && tls.grpc.tlsConfig.minVersion == "TLS13")
    }

    @Test func icmpAndGRPCNumbersAreRangeChecked() {
        let problems = ServeConfigLoaderTests.problems("""
        allow: ["127.0.0.1"]
        modules:
          a: {prober: icmp, icmp: {ttl: 256}}
          b: {prober: icmp, icmp: {ttl: -1, payload_size: 70000}}
          c: {prober: icmp, icmp: {preferred_ip_protocol: ip5, typo: 1}}
          d: {prober: grpc, grpc: {tls: maybe, typo: 1, tls_config: {min_version: TLS9}}}
        """)
        for expected in ["modules.a.icmp.ttl", "modules.b.icmp.ttl", "modules.b.icmp.payload_size", "modules.c.icmp.preferred_ip_protocol",
                         "modules.c.icmp: unknown key 'typo'", "modules.d.grpc.tls", "modules.d.grpc: unknown key 'typo'",
                         "modules.d.grpc.tls_config.min_version: unknown TLS version 'TLS9'"] {
            #expect(problems.contains { $0.contains(expected) }, "no problem like \(expected) in:\n\(problems.joined(separator: "\n"))")
        }
    }

    @Test func goRegexpExpandsAsGoDoes() throws {
        let expression = try GoRegexp("^220 (?P<host>[^ ]+) (\\w+)")
        let line = Array("220 mx.example.com ESMTP ready".utf8)
        let match = try #require(expression.firstMatch(in: line))
        #expect(expression.groupNames == ["host", ""])
        #expect(expression.expand("EHLO ${host}", bytes: line, match: match) == "EHLO mx.example.com")
        #expect(expression.expand("$host/$2/${2}x/$$/$", bytes: line, match: match) == "mx.example.com/ESMTP/ESMTPx/$/$")
        // `$2x` names the group "2x", which does not exist: empty, as in Go; `${` unclosed stays as written.
        #expect(expression.expand("[$2x][${2][$9][$01]", bytes: line, match: match) == "[][${2][][]")
        #expect(expression.expand("no references", bytes: line, match: match) == "no references")
        #expect(try GoRegexp("(?i)^ssh-2\\.0").matches("SSH-2.0-OpenSSH_9.2"))
        #expect(try GoRegexp("[]a]").matches("]"))
        #expect(try GoRegexp("[[:digit:]]+").matches("x42"))
        // RE2's flags as Go's: (?U) swaps greediness, (?s) lets . match a newline.
        let ungreedy = try GoRegexp("(?U)(a+)")
        #expect(ungreedy.firstMatch(in: Array("aaa".utf8))?.groups[1] == 0..<1)
        #expect(try !GoRegexp("a.b").matches("a\nb") && GoRegexp("(?s)a.b").matches("a\nb"))
        // A group that took no part is nil; an empty match has a place.
        let optional = try #require(try GoRegexp("(x)?y()").firstMatch(in: Array("y".utf8)))
        #expect(optional.groups == [0..<1, nil, 1..<1])
        for refused in ["(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b", "(?>a)", "a++", "a*+", "\\C", "(", "a\\", "(?<name>a)"] {
            #expect(throws: GoRegexp.Refused.self, "\(refused)") { try GoRegexp(refused) }
        }
    }

    /// What Go 1.19's regexp/syntax (blackbox_exporter 0.23's) refuses, refused with its words;
    /// the ICU engine took `((a{1000}){1000}){1000}` and `\C`.
    @Test func goRegexpRefusesWhatGoRefuses() throws {
        for (pattern, message) in [("((a{1000}){1000}){1000}", "invalid repeat count: `{1000}`"), ("(a{1000}){2}", "invalid repeat count: `{2}`"),
                                   ("a{1001}", "invalid repeat count: `{1001}`"), ("a**", "invalid nested repetition operator: `**`"),
                                   ("\\C", "invalid escape sequence: `\\C`"), ("[z-a]", "invalid character class range: `z-a`"),
                                   ("x)", "unexpected )"), ("(x", "missing closing )"), ("\\8", "invalid escape sequence: `\\8`"),
                                   (String(repeating: "(", count: 1001) + "a" + String(repeating: ")", count: 1001), "expression nests too deeply"),
                                   ("\\pL{1000}", "expression too large")] {
            do {
                _ = try GoRegexp(pattern)
                Issue.record("\(pattern.prefix(40)) was taken")
            } catch {
                #expect(error.message.hasPrefix("error parsing regexp: ") && error.message.contains(message), "\(pattern.prefix(40)): \(error.message)")
            }
        }
        // Literal \C inside \Q…\E and a class, and 999 nested groups, are fine (Go takes them).
        #expect(try GoRegexp("\\Qa\\C\\E").matches("a\\C"))
        #expect((try? GoRegexp(String(repeating: "(", count: 998) + "a" + String(repeating: ")", count: 998))) != nil)
    }

    /// `(a+)+b` against `'a' * N + '!'`: the ICU engine backtracked for 31.6 s at N=60 and did not end
    /// in 150 s at N=2000; RE2 is one pass.
    @Test func goRegexpIsLinearOnCatastrophicBacktracking() throws {
        let expression = try GoRegexp("(a+)+b")
        for count in [60, 2000, 1_000_000] {
            let text = Array(repeating: UInt8(ascii: "a"), count: count) + [UInt8(ascii: "!")]
            let started = Date()
            #expect(expression.firstMatch(in: text) == nil && !expression.matches(text))
            #expect(Date().timeIntervalSince(started) < 2, "N=\(count): \(Date().timeIntervalSince(started)) s")
        }
    }

    @Test func endpointPatternsMatchHostAndPort() throws {
        func list(_ patterns: String...) throws -> AllowList {
            AllowList(patterns: try patterns.map { try AllowList.Pattern.parse($0).get() })
        }
        let allow = try list("127.0.0.1:5353", "*.example.com:443", "[::1]:53", "192.0.2.1", "https://api.example.com/*")
        #expect(allow.allowing(host: "127.0.0.1", port: 5353) != nil)
        #expect(allow.allowing(host: "imap.EXAMPLE.com", port: 443) != nil)
        #expect(allow.allowing(host: "::1", port: 53) != nil)
        #expect(allow.allowing(host: "192.0.2.1") != nil, "a host alone is for the icmp prober")
        for (host, port) in [("127.0.0.1", 5354), ("example.com", 443), ("evil.example.com.net", 443), ("192.0.2.1", 80),
                             ("127.0.0.1\u{0}", 5353), ("a b", 443)] {
            #expect(allow.allowing(host: host, port: port) == nil, "\(host):\(port) should be refused")
        }
        #expect(allow.allowing(host: "127.0.0.1") == nil, "a host:port pattern does not let icmp ping the host")
        #expect(allow.allowing("https://127.0.0.1:5353/") == nil, "an endpoint pattern is not a URL pattern")
        for bad in ["host:0", "host:70000", "host:port", "a*b.example.com:1", "[::1:53", "*:53", "ho st:1"] {
            #expect(throws: SpecProblem.self, "\(bad)") { try AllowList.Pattern.parse(bad).get() }
        }
        #expect(Endpoint.split("[::1]:53")! == ("::1", 53))
        #expect(Endpoint.split("::1")! == ("::1", nil))
        #expect(Endpoint.split("example.com")! == ("example.com", nil))
        #expect(Endpoint.split("example.com:") == nil && Endpoint.split("example.com:123456") == nil)
    }
}
