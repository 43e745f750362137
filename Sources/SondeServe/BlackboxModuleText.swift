import Foundation
import SondeCore
import SondeSuite

/// A module as `/probe?debug=true` shows it (blackbox_exporter's "Module configuration"), in
/// YAML with blackbox's keys; credentials and secret header values are redacted.
enum BlackboxModuleText {
    static func describe(_ module: BlackboxModule, redactor: Redactor) -> String {
        let http = module.http
        var lines = ["prober: \(module.prober)"]
        if let timeout = module.timeout { lines.append("timeout: \(DurationValue(seconds: timeout))") }
        switch module.prober {
        case "tcp": return (lines + tcpLines(module.tcp)).joined(separator: "\n") + "\n"
        case "dns": return (lines + dnsLines(module.dns)).joined(separator: "\n") + "\n"
        case "icmp": return (lines + icmpLines(module.icmp)).joined(separator: "\n") + "\n"
        case "grpc": return (lines + grpcLines(module.grpc)).joined(separator: "\n") + "\n"
        default: break
        }
        lines.append("http:")
        lines.append("  method: \(quoted(http.method))")
        if !http.headers.isEmpty {
            lines.append("  headers:")
            for header in http.headers {
                let value = redactor.redacted(header.value, as: redactor.treatment(ofHeader: header.name)) ?? header.value
                lines.append("    \(quoted(header.name)): \(quoted(value))")
            }
        }
        if !http.validStatusCodes.isEmpty { lines.append("  valid_status_codes: [\(http.validStatusCodes.map(String.init).joined(separator: ", "))]") }
        if !http.validHTTPVersions.isEmpty { lines.append("  valid_http_versions: [\(http.validHTTPVersions.joined(separator: ", "))]") }
        lines.append("  preferred_ip_protocol: \(http.preferredIPProtocol)")
        lines.append("  ip_protocol_fallback: \(http.ipProtocolFallback)")
        lines.append("  follow_redirects: \(http.followRedirects)")
        lines.append("  enable_http2: \(http.enableHTTP2)")
        if http.failIfSSL { lines.append("  fail_if_ssl: true") }
        if http.failIfNotSSL { lines.append("  fail_if_not_ssl: true") }
        if http.caFile != nil || http.insecureSkipVerify {
            lines.append("  tls_config:")
            if let caFile = http.caFile { lines.append("    ca_file: \(quoted(caFile))") }
            lines.append("    insecure_skip_verify: \(http.insecureSkipVerify)")
        }
        if let auth = http.basicAuth {
            lines.append("  basic_auth:")
            lines.append("    username: \(quoted(auth.username))")
            lines.append("    password: <secret>")
        }
        if http.bearerToken != nil { lines.append("  bearer_token: <secret>") }
        if let proxy = http.proxyURL { lines.append("  proxy_url: \(quoted(redactor.redact(url: proxy)))") }
        if let body = http.body { lines.append("  body: \(quoted(body))") }
        for (key, expressions) in [("fail_if_body_matches_regexp", http.failIfBodyMatches),
                                   ("fail_if_body_not_matches_regexp", http.failIfBodyNotMatches)] where !expressions.isEmpty {
            lines.append("  \(key): [\(expressions.map { quoted($0.source) }.joined(separator: ", "))]")
        }
        for (key, matchers) in [("fail_if_header_matches", http.failIfHeaderMatches),
                                ("fail_if_header_not_matches", http.failIfHeaderNotMatches)] where !matchers.isEmpty {
            lines.append("  \(key):")
            for matcher in matchers {
                lines.append("    - {header: \(quoted(matcher.header)), regexp: \(quoted(matcher.regexp.source)), allow_missing: \(matcher.allowMissing)}")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func tcpLines(_ tcp: BlackboxModule.TCP) -> [String] {
        var lines = ["tcp:", "  preferred_ip_protocol: \(tcp.preferredIPProtocol)", "  ip_protocol_fallback: \(tcp.ipProtocolFallback)"]
        if !tcp.queryResponse.isEmpty {
            lines.append("  query_response:")
            for step in tcp.queryResponse {
                var fields: [String] = []
                if let expect = step.expect { fields.append("expect: \(quoted(expect.source))") }
                if !step.send.isEmpty { fields.append("send: \(quoted(step.send))") }
                if step.startTLS { fields.append("starttls: true") }
                lines.append("    - {\(fields.joined(separator: ", "))}")
            }
        }
        lines.append("  tls: \(tcp.tls)")
        return lines + tlsConfigLines(tcp.tlsConfig)
    }

    /// A prober's `tls_config` (tcp, grpc), indented under its section.
    static func tlsConfigLines(_ tls: BlackboxModule.TLSConfig) -> [String] {
        var lines = ["  tls_config:", "    insecure_skip_verify: \(tls.insecureSkipVerify)"]
        for (key, value) in [("ca_file", tls.caFile), ("cert_file", tls.certFile), ("key_file", tls.keyFile), ("server_name", tls.serverName),
                             ("min_version", tls.minVersion), ("max_version", tls.maxVersion)] {
            if let value { lines.append("    \(key): \(quoted(value))") }
        }
        return lines
    }

    static func icmpLines(_ icmp: BlackboxModule.ICMP) -> [String] {
        ["icmp:", "  preferred_ip_protocol: \(icmp.preferredIPProtocol)", "  ip_protocol_fallback: \(icmp.ipProtocolFallback)",
         "  payload_size: \(icmp.payloadSize)", "  dont_fragment: \(icmp.dontFragment)", "  ttl: \(icmp.ttl)"]
    }

    static func grpcLines(_ grpc: BlackboxModule.GRPC) -> [String] {
        ["grpc:", "  service: \(quoted(grpc.service))", "  tls: \(grpc.tls)", "  preferred_ip_protocol: \(grpc.preferredIPProtocol)",
         "  ip_protocol_fallback: \(grpc.ipProtocolFallback)"] + tlsConfigLines(grpc.tlsConfig)
    }

    static func dnsLines(_ dns: BlackboxModule.DNS) -> [String] {
        var lines = ["dns:", "  preferred_ip_protocol: \(dns.preferredIPProtocol)", "  ip_protocol_fallback: \(dns.ipProtocolFallback)",
                     "  transport_protocol: \(dns.transportProtocol)", "  query_name: \(quoted(dns.queryName))", "  query_type: \(dns.queryType)",
                     "  query_class: \(dns.queryClass)", "  recursion_desired: \(dns.recursionDesired)"]
        if !dns.validRcodes.isEmpty { lines.append("  valid_rcodes: [\(dns.validRcodes.joined(separator: ", "))]") }
        for (key, validator) in [("validate_answer_rrs", dns.validateAnswer), ("validate_authority_rrs", dns.validateAuthority),
                                 ("validate_additional_rrs", dns.validateAdditional)] where !validator.isEmpty {
            lines.append("  \(key):")
            for (name, patterns) in [("fail_if_matches_regexp", validator.failIfMatches), ("fail_if_all_match_regexp", validator.failIfAllMatch),
                                     ("fail_if_not_matches_regexp", validator.failIfNotMatches),
                                     ("fail_if_none_matches_regexp", validator.failIfNoneMatches)] where !patterns.isEmpty {
                lines.append("    \(name): [\(patterns.map { quoted($0.source) }.joined(separator: ", "))]")
            }
        }
        return lines
    }

    /// A YAML double-quoted scalar.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\x%02X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
