import Foundation
import SondeDNS
import SondeSuite
import Yams

/// Every key of a blackbox_exporter module as serve's `modules:` reads it, one `BlackboxKey` each,
/// section by section: what `SuiteReader.readModule` applies, what unknown-key messages list, and
/// the key reference in docs/serve.md (`markdown`, checked by `BlackboxModuleKeyDocsTests`).
enum BlackboxModuleKeys {
    /// A module being read: the module, and whether `prober:` and `dns:` were there.
    struct Reading: Sendable {
        var module = BlackboxModule()
        var sawProber = false
        var sawDNS = false
    }

    /// `basic_auth:` being read.
    struct BasicAuth: Sendable {
        var username: String?
        var password = ""
    }

    /// One `fail_if_header_matches` entry being read.
    struct HeaderMatch: Sendable {
        var header: String?
        var regexp: GoRegexp?
        var allowMissing = false
        var sawRegexp = false
    }

    static let module = BlackboxKeySection<Reading>(title: "module", expected: "a mapping with prober:", keys: [
        BlackboxKey("prober", takes: BlackboxModule.probers.joined(separator: ", "), "the prober (required)") { reader, reading, value, here, _ in
            reading.sawProber = true
            guard let prober = reader.text(value, key: here) else { return }
            guard BlackboxModule.probers.contains(prober) else {
                reader.report(value.mark, key: here, "unknown prober '\(prober)' (allowed: \(BlackboxModule.probers.joined(separator: ", ")))")
                return
            }
            reading.module.prober = prober
        },
        BlackboxKey("timeout", takes: "a duration, 0 to \(Int(BlackboxModule.maxTimeout))s",
                    "the probe's time limit (never more than the scrape's less 0.5 s; 0: the scrape's)") { reader, reading, value, here, _ in
            reading.module.timeout = reader.duration(value, key: here, within: 0...BlackboxModule.maxTimeout).flatMap { $0 > 0 ? $0 : nil }
        },
        BlackboxKey("http", takes: "a mapping", "the http prober's options (below)") { reader, reading, value, here, notImplemented in
            reader.read(value, key: here, keys: http, into: &reading.module.http, notImplemented: &notImplemented, prefix: "http.")
        },
        BlackboxKey("tcp", takes: "a mapping", "the tcp prober's options (below)") { reader, reading, value, here, notImplemented in
            reader.read(value, key: here, keys: tcp, into: &reading.module.tcp, notImplemented: &notImplemented, prefix: "tcp.")
        },
        BlackboxKey("icmp", takes: "a mapping", "the icmp prober's options (below)") { reader, reading, value, here, notImplemented in
            reader.read(value, key: here, keys: icmp, into: &reading.module.icmp, notImplemented: &notImplemented, prefix: "icmp.")
        },
        BlackboxKey("dns", takes: "a mapping", "the dns prober's options (below); `query_name` required") { reader, reading, value, here, notImplemented in
            reading.sawDNS = true
            if reader.read(value, key: here, keys: dns, into: &reading.module.dns, notImplemented: &notImplemented, prefix: "dns."),
               reading.module.dns.queryName.isEmpty {
                reader.report(value.mark, key: here + ".query_name", "missing: a dns module names the name it queries")
            }
        },
        BlackboxKey("grpc", takes: "a mapping", "the grpc prober's options (below)") { reader, reading, value, here, notImplemented in
            reader.read(value, key: here, keys: grpc, into: &reading.module.grpc, notImplemented: &notImplemented, prefix: "grpc.")
        },
    ])

    static let http = BlackboxKeySection<BlackboxModule.HTTP>(title: "http", expected: "a mapping of the http prober's options", keys: [
        BlackboxKey("method", takes: "an HTTP method", "the request's method (default GET)") { reader, http, value, here, _ in
            guard let method = reader.text(value, key: here) else { return }
            if method.isEmpty || method.count > 32 || !method.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) {
                reader.report(value.mark, key: here, "'\(method)' is not an HTTP method")
            } else {
                http.method = method.uppercased()
            }
        },
        BlackboxKey("headers", takes: "a mapping of names to values", "the request's headers, in the file's order") { reader, http, value, here, _ in
            guard case .mapping(let headers) = value else {
                reader.report(value.mark, key: here, "expected a mapping of header names to values (got \(SuiteReader.describe(value)))")
                return
            }
            for (nameNode, valueNode) in headers {
                guard let name = nameNode.scalar?.string, let headerValue = reader.text(valueNode, key: here) else { continue }
                guard !name.isEmpty, !name.contains(":"), !name.contains(" "), !SpecRules.hasControlCharacters(name),
                      !SpecRules.hasControlCharacters(headerValue) else {
                    reader.report(nameNode.mark, key: here, "'\(name)' is not a header name and value without control characters")
                    continue
                }
                http.headers.append((name, headerValue))
            }
        },
        BlackboxKey("body", takes: "text", "the request's body") { reader, http, value, here, _ in
            http.body = reader.text(value, key: here)
        },
        BlackboxKey("valid_status_codes", takes: "a list of 100 to 599", "the status codes that pass (default 2xx)") { reader, http, value, here, _ in
            guard case .sequence(let items) = value else {
                reader.report(value.mark, key: here, "expected a list of status codes (got \(SuiteReader.describe(value)))")
                return
            }
            http.validStatusCodes = items.prefix(1000).compactMap { reader.integer($0, key: here, within: 100...599) }
        },
        BlackboxKey("valid_http_versions", takes: BlackboxModule.HTTP.versions.joined(separator: ", "),
                    "the HTTP versions that pass (default any)") { reader, http, value, here, _ in
            for version in reader.texts(value, key: here) ?? [] {
                guard BlackboxModule.HTTP.versions.contains(version) else {
                    reader.report(value.mark, key: here, "unknown version '\(version)' (allowed: \(BlackboxModule.HTTP.versions.joined(separator: ", ")))")
                    continue
                }
                http.validHTTPVersions.append(version)
            }
        },
        .ipProtocol(\.preferredIPProtocol),
        .ipProtocolFallback(\.ipProtocolFallback),
        .flag("follow_redirects", \.followRedirects, "follow redirects (default true)"),
        BlackboxKey("no_follow_redirects", takes: "true or false", "the older spelling of `follow_redirects: false`") { reader, http, value, here, _ in
            if let flag = reader.boolean(value, key: here) { http.followRedirects = !flag }
        },
        .flag("enable_http2", \.enableHTTP2, "false keeps a TLS connection to HTTP/1.1 (default true)"),
        .flag("fail_if_ssl", \.failIfSSL, "fail when the final response came over TLS"),
        .flag("fail_if_not_ssl", \.failIfNotSSL, "fail unless the final response came over TLS"),
        BlackboxKey("tls_config", takes: "a mapping", "the http prober's TLS options (below)") { reader, http, value, here, notImplemented in
            reader.read(value, key: here, keys: httpTLS, into: &http, notImplemented: &notImplemented, prefix: "http.tls_config.")
        },
        BlackboxKey("basic_auth", takes: "a mapping", "`username` with `password` or `password_file` (below)") { reader, http, value, here, _ in
            var auth = BasicAuth()
            var ignored: [String] = []
            guard reader.read(value, key: here, keys: basicAuth, into: &auth, notImplemented: &ignored, prefix: "") else { return }
            guard let username = auth.username else {
                reader.report(value.mark, key: here + ".username", "missing")
                return
            }
            guard !username.contains(":"), !SpecRules.hasControlCharacters(username + auth.password) else {
                reader.report(value.mark, key: here, "a username without ':' and credentials without control characters")
                return
            }
            http.basicAuth = (username, auth.password)
        },
        BlackboxKey("bearer_token", takes: "text", "sent as `Authorization: Bearer …`") { reader, http, value, here, _ in
            http.bearerToken = reader.text(value, key: here)
        },
        BlackboxKey("bearer_token_file", takes: "a file", "the token's file, its first line read at load") { reader, http, value, here, _ in
            http.bearerToken = reader.secretFile(value, key: here)
        },
        BlackboxKey("proxy_url", takes: "an http, https, socks5 or socks5h URL", "the proxy the request goes through") { reader, http, value, here, _ in
            guard let proxy = reader.text(value, key: here) else { return }
            if let problem = SpecRules.url(proxy, key: here, schemes: ["http", "https", "socks5", "socks5h"]) {
                reader.report(value.mark, key: here, problem.message)
            } else {
                http.proxyURL = proxy
            }
        },
        .regexps("fail_if_body_matches_regexp", \.failIfBodyMatches, "fail when the final body (at most 4 MiB) matches one"),
        .regexps("fail_if_body_not_matches_regexp", \.failIfBodyNotMatches, "fail when the final body matches none"),
        BlackboxKey("fail_if_header_matches", takes: "a list of mappings (below)", "fail when a header's value matches") { reader, http, value, here, _ in
            http.failIfHeaderMatches = reader.headerMatches(value, key: here)
        },
        BlackboxKey("fail_if_header_not_matches", takes: "a list of mappings (below)", "fail when a header's value does not match") { reader, http, value, here, _ in
            http.failIfHeaderNotMatches = reader.headerMatches(value, key: here)
        },
        .notImplemented("compression"), .notImplemented("body_size_limit"), .notImplemented("skip_resolve_phase_with_proxy"),
        .notImplemented("oauth2"), .notImplemented("authorization"), .notImplemented("no_proxy"), .notImplemented("proxy_from_environment"),
        .notImplemented("proxy_connect_header"), .notImplemented("enable_http3"), .notImplemented("http_client_config"),
    ])

    static let httpTLS = BlackboxKeySection<BlackboxModule.HTTP>(title: "http.tls_config", expected: "a mapping", keys: [
        BlackboxKey("ca_file", takes: "a file", "the PEM roots the server's certificate must chain to (default: the system's)") { reader, http, value, here, _ in
            if let path = reader.readableFile(value, key: here) { http.caFile = path }
        },
        .flag("insecure_skip_verify", \.insecureSkipVerify, "do not verify the server's certificate"),
        .notImplemented("ca"), .notImplemented("cert_file"), .notImplemented("cert"), .notImplemented("key_file"), .notImplemented("key"),
        .notImplemented("server_name"), .notImplemented("min_version"), .notImplemented("max_version"),
    ])

    static let basicAuth = BlackboxKeySection<BasicAuth>(title: "http.basic_auth", expected: "a mapping with username and password", keys: [
        BlackboxKey("username", takes: "text without ':'", "the user (required)") { reader, auth, value, here, _ in
            auth.username = reader.text(value, key: here)
        },
        BlackboxKey("password", takes: "text", "the password") { reader, auth, value, here, _ in
            auth.password = reader.text(value, key: here) ?? ""
        },
        BlackboxKey("password_file", takes: "a file", "the password's file, its first line read at load") { reader, auth, value, here, _ in
            auth.password = reader.secretFile(value, key: here) ?? ""
        },
    ])

    static let headerMatch = BlackboxKeySection<HeaderMatch>(title: "http.fail_if_header_matches[], http.fail_if_header_not_matches[]",
                                                             expected: "a mapping with header, regexp and allow_missing", keys: [
        BlackboxKey("header", takes: "a header name", "the final response's header (any case; required)") { reader, match, value, here, _ in
            guard let name = reader.text(value, key: here) else { return }
            guard !name.isEmpty, name.utf8.count <= 256, !name.contains(":"), !name.contains(" "), !SpecRules.hasControlCharacters(name) else {
                reader.report(value.mark, key: here, "'\(name)' is not a header name")
                return
            }
            match.header = name
        },
        BlackboxKey("regexp", takes: "a regular expression (Go's syntax)", "matched against each of the header's values (required)") { reader, match, value, here, _ in
            match.sawRegexp = true
            guard let pattern = reader.text(value, key: here) else { return }
            // blackbox: an empty regexp is no regexp.
            if pattern.isEmpty { match.sawRegexp = false } else { match.regexp = reader.regexp(pattern, value, key: here) }
        },
        .flag("allow_missing", \.allowMissing, "an absent header passes (default: it fails the probe)"),
    ])

    static let tcp = BlackboxKeySection<BlackboxModule.TCP>(title: "tcp", expected: "a mapping of the tcp prober's options", keys: [
        .ipProtocol(\.preferredIPProtocol),
        .ipProtocolFallback(\.ipProtocolFallback),
        BlackboxKey("query_response", takes: "a list of mappings (below), at most \(BlackboxModule.maxQueryResponseSteps)",
                    "the exchange, step by step") { reader, tcp, value, here, _ in
            guard case .sequence(let steps) = value else {
                reader.report(value.mark, key: here, "expected a list of expect/send/starttls steps (got \(SuiteReader.describe(value)))")
                return
            }
            if steps.count > BlackboxModule.maxQueryResponseSteps {
                reader.report(value.mark, key: here, "at most \(BlackboxModule.maxQueryResponseSteps) steps (got \(steps.count))")
            }
            for step in steps.prefix(BlackboxModule.maxQueryResponseSteps) {
                var parsed = BlackboxModule.QueryResponse()
                var ignored: [String] = []
                if reader.read(step, key: here, keys: queryResponse, into: &parsed, notImplemented: &ignored, prefix: "") {
                    tcp.queryResponse.append(parsed)
                }
            }
        },
        .flag("tls", \.tls, "TLS from the first byte"),
        BlackboxKey("tls_config", takes: "a mapping", "the TLS options (below)") { reader, tcp, value, here, notImplemented in
            reader.readTLSConfig(value, key: here, into: &tcp.tlsConfig, notImplemented: &notImplemented, section: "tcp")
        },
        .notImplemented("source_ip_address"),
    ])

    static let queryResponse = BlackboxKeySection<BlackboxModule.QueryResponse>(title: "tcp.query_response[]",
                                                                                 expected: "a mapping with expect, send or starttls", keys: [
        BlackboxKey("expect", takes: "a regular expression (Go's syntax)", "read lines until one matches") { reader, step, value, here, _ in
            guard let pattern = reader.text(value, key: here), !pattern.isEmpty else { return }
            step.expect = reader.regexp(pattern, value, key: here)
        },
        BlackboxKey("send", takes: "text, at most 64 KiB", "sent with a newline (`$1`, `${name}` from the match)") { reader, step, value, here, _ in
            guard let send = reader.text(value, key: here) else { return }
            guard send.utf8.count <= 65_536 else {
                reader.report(value.mark, key: here, "at most 64 KiB")
                return
            }
            step.send = send
        },
        .flag("starttls", \.startTLS, "upgrade the connection to TLS"),
    ])

    static let tlsConfig = BlackboxKeySection<BlackboxModule.TLSConfig>(title: "tcp.tls_config, grpc.tls_config", expected: "a mapping", keys: [
        BlackboxKey("ca_file", takes: "a file", "the PEM roots the server's certificate must chain to (default: the system's)") { reader, tls, value, here, _ in
            tls.caFile = reader.readableFile(value, key: here)
        },
        BlackboxKey("cert_file", takes: "a file", "a client certificate (PEM), with `key_file`") { reader, tls, value, here, _ in
            tls.certFile = reader.readableFile(value, key: here)
        },
        BlackboxKey("key_file", takes: "a file", "the client certificate's key (PEM), with `cert_file`") { reader, tls, value, here, _ in
            tls.keyFile = reader.readableFile(value, key: here)
        },
        BlackboxKey("server_name", takes: "a host name", "sent in SNI and verified (default: the target's host)") { reader, tls, value, here, _ in
            guard let name = reader.text(value, key: here) else { return }
            guard !name.isEmpty, name.utf8.count <= 255, !SpecRules.hasControlCharacters(name), !name.contains(" ") else {
                reader.report(value.mark, key: here, "'\(name)' is not a host name")
                return
            }
            tls.serverName = name
        },
        .flag("insecure_skip_verify", \.insecureSkipVerify, "do not verify the server's certificate"),
        .tlsVersion("min_version", \.minVersion, "the lowest TLS version (default TLS 1.2)"),
        .tlsVersion("max_version", \.maxVersion, "the highest TLS version (default TLS 1.3)"),
        .notImplemented("ca"), .notImplemented("cert"), .notImplemented("key"),
    ])

    static let dns = BlackboxKeySection<BlackboxModule.DNS>(title: "dns", expected: "a mapping of the dns prober's options", keys: [
        .ipProtocol(\.preferredIPProtocol),
        .ipProtocolFallback(\.ipProtocolFallback),
        BlackboxKey("transport_protocol", takes: "udp or tcp", "the query's transport (default udp)") { reader, dns, value, here, _ in
            guard let name = reader.text(value, key: here) else { return }
            guard name == "udp" || name == "tcp" else {
                reader.report(value.mark, key: here, "'\(name)' is not udp or tcp")
                return
            }
            dns.transportProtocol = name
        },
        BlackboxKey("query_name", takes: "a domain name, 1 to 253 characters", "the name asked (required)") { reader, dns, value, here, _ in
            guard let name = reader.text(value, key: here) else { return }
            guard !name.isEmpty, name.utf8.count <= 253 || (name.hasSuffix(".") && name.utf8.count <= 254),
                  !SpecRules.hasControlCharacters(name), !name.contains(" ") else {
                reader.report(value.mark, key: here, "'\(name)' is not a domain name (1 to 253 characters, no spaces)")
                return
            }
            dns.queryName = name
        },
        BlackboxKey("query_type", takes: "a record type (A, AAAA, MX, TXT, SOA, ANY …)", "the type asked (default ANY)") { reader, dns, value, here, _ in
            guard let name = reader.text(value, key: here) else { return }
            guard DNSCodes.types[name] != nil else {
                reader.report(value.mark, key: here, "query type '\(name)' is not valid (a record type such as A, AAAA, MX, TXT, SOA, ANY)")
                return
            }
            dns.queryType = name
        },
        BlackboxKey("query_class", takes: DNSCodes.classes.keys.sorted().joined(separator: ", "), "the class asked (default IN)") { reader, dns, value, here, _ in
            guard let name = reader.text(value, key: here) else { return }
            guard DNSCodes.classes[name] != nil else {
                reader.report(value.mark, key: here, "query class '\(name)' is not valid (allowed: \(DNSCodes.classes.keys.sorted().joined(separator: ", ")))")
                return
            }
            dns.queryClass = name
        },
        .flag("recursion_desired", \.recursionDesired, "the RD bit (default true)"),
        BlackboxKey("valid_rcodes", takes: "a list of rcode names", "the rcodes that pass (default NOERROR)") { reader, dns, value, here, _ in
            for name in reader.texts(value, key: here) ?? [] {
                // blackbox loads an unknown rcode and fails every probe with it; sonde says so at load.
                guard DNSCodes.rcodes[name] != nil else {
                    reader.report(value.mark, key: here, "unknown rcode '\(name)' (known: \(DNSCodes.rcodes.keys.sorted().joined(separator: ", ")))")
                    continue
                }
                dns.validRcodes.append(name)
            }
        },
        .validator("validate_answer_rrs", \.validateAnswer, "the answer section's records"),
        .validator("validate_authority_rrs", \.validateAuthority, "the authority section's records"),
        .validator("validate_additional_rrs", \.validateAdditional, "the additional section's records"),
        .notImplemented("dns_over_tls"), .notImplemented("tls_config"), .notImplemented("source_ip_address"),
    ])

    static let rrValidator = BlackboxKeySection<BlackboxModule.RRValidator>(title: "dns.validate_*_rrs", expected: "a mapping of regular expression lists", keys: [
        .regexps("fail_if_matches_regexp", \.failIfMatches, "fail when any record matches one"),
        .regexps("fail_if_all_match_regexp", \.failIfAllMatch, "as blackbox 0.23 runs it: fail when some record does not match one"),
        .regexps("fail_if_not_matches_regexp", \.failIfNotMatches, "fail when a record matches none (or there is no record)"),
        .regexps("fail_if_none_matches_regexp", \.failIfNoneMatches, "fail when no record matches one (or there is no record)"),
    ])

    static let icmp = BlackboxKeySection<BlackboxModule.ICMP>(title: "icmp", expected: "a mapping of the icmp prober's options", keys: [
        .ipProtocol(\.preferredIPProtocol),
        .ipProtocolFallback(\.ipProtocolFallback),
        .integer("payload_size", \.payloadSize, within: 0...BlackboxModule.ICMP.maxPayloadSize, "the echo's data bytes (0: blackbox's 28)"),
        .flag("dont_fragment", \.dontFragment, "the IPv4 DF bit (a raw socket)"),
        .integer("ttl", \.ttl, within: 0...255, "the TTL or hop limit (default 64; 0: the kernel's)"),
        .notImplemented("source_ip_address"),
    ])

    static let grpc = BlackboxKeySection<BlackboxModule.GRPC>(title: "grpc", expected: "a mapping of the grpc prober's options", keys: [
        BlackboxKey("service", takes: "text, at most \(BlackboxModule.GRPC.maxServiceBytes) bytes",
                    "the service asked of grpc.health.v1.Health/Check (\"\": the server)") { reader, grpc, value, here, _ in
            guard let service = reader.text(value, key: here) else { return }
            guard service.utf8.count <= BlackboxModule.GRPC.maxServiceBytes, !SpecRules.hasControlCharacters(service) else {
                reader.report(value.mark, key: here, "a service name is at most \(BlackboxModule.GRPC.maxServiceBytes) bytes without control characters")
                return
            }
            grpc.service = service
        },
        .flag("tls", \.tls, "the call over TLS (ALPN h2), else h2c"),
        BlackboxKey("tls_config", takes: "a mapping", "the TLS options (as tcp's)") { reader, grpc, value, here, notImplemented in
            reader.readTLSConfig(value, key: here, into: &grpc.tlsConfig, notImplemented: &notImplemented, section: "grpc")
        },
        .ipProtocol(\.preferredIPProtocol),
        .ipProtocolFallback(\.ipProtocolFallback),
    ])

    /// Every section, in the reference's order.
    static var sections: [(title: String, rows: [(name: String, takes: String, doc: String)])] {
        func rows<S>(_ section: BlackboxKeySection<S>) -> (String, [(String, String, String)]) {
            (section.title, section.keys.map { ($0.name, $0.takes, $0.doc) })
        }
        return [rows(module), rows(http), rows(httpTLS), rows(basicAuth), rows(headerMatch), rows(tcp), rows(queryResponse),
                rows(tlsConfig), rows(dns), rows(rrValidator), rows(icmp), rows(grpc)]
    }

    /// The key reference docs/serve.md holds between its `module-keys` markers.
    static var markdown: String {
        var lines = ["| section | key | takes | what |", "| --- | --- | --- | --- |"]
        for (title, rows) in sections {
            for row in rows {
                let cells = [title, "`\(row.name)`", row.takes, row.doc].map { $0.replacingOccurrences(of: "|", with: "\\|") }
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension BlackboxKey {
    /// `TLS10` … `TLS13` into `path`.
    static func tlsVersion(_ name: String, _ path: WritableKeyPath<Section, String?> & Sendable, _ doc: String) -> BlackboxKey {
        BlackboxKey(name, takes: BlackboxModule.TLSConfig.versions.joined(separator: ", "), doc) { reader, section, value, here, _ in
            guard let version = reader.text(value, key: here) else { return }
            guard BlackboxModule.TLSConfig.versions.contains(version) else {
                reader.report(value.mark, key: here, "unknown TLS version '\(version)' (allowed: \(BlackboxModule.TLSConfig.versions.joined(separator: ", ")))")
                return
            }
            section[keyPath: path] = version
        }
    }

    /// A section's `validate_*_rrs` (`BlackboxModuleKeys.rrValidator`) into `path`.
    static func validator(_ name: String, _ path: WritableKeyPath<Section, BlackboxModule.RRValidator> & Sendable, _ doc: String) -> BlackboxKey {
        BlackboxKey(name, takes: "a mapping (below)", "regular expressions for " + doc) { reader, section, value, here, _ in
            var validator = BlackboxModule.RRValidator()
            var ignored: [String] = []
            reader.read(value, key: here, keys: BlackboxModuleKeys.rrValidator, into: &validator, notImplemented: &ignored, prefix: "")
            section[keyPath: path] = validator
        }
    }
}
