import Foundation
import SondeCore
import SondeRun
import Yams

/// serve's `modules:`, in blackbox_exporter's format (`BlackboxModule`): every key checked, the
/// five probers' sections read (tcp and dns in `SuiteReader+BlackboxProbers`, icmp and grpc in
/// `SuiteReader+BlackboxICMPGRPC`), an option sonde does not implement kept as the reason
/// `/probe` refuses that module.
extension SuiteReader {
    mutating func readModules(_ entry: Entry) -> [String: BlackboxModule] {
        guard case .mapping(let mapping) = entry.value else {
            report(entry.value.mark, key: "modules", "expected a mapping of module names to blackbox_exporter modules (got \(Self.describe(entry.raw)))")
            return [:]
        }
        var modules: [String: BlackboxModule] = [:]
        for (nameNode, body) in mapping {
            guard let name = nameNode.scalar?.string, (1...128).contains(name.count), SpecRules.plainText(name, key: "modules") == nil else {
                report(nameNode.mark, key: "modules", "a module name is text of 1 to 128 characters without spaces (got \(Self.describe(nameNode)))")
                continue
            }
            if let module = readModule(body, name: name) { modules[name] = module }
        }
        return modules
    }

    mutating func readModule(_ node: Node, name: String) -> BlackboxModule? {
        let key = "modules.\(name)"
        guard case .mapping(let mapping) = node else {
            report(node.mark, key: key, "expected a mapping with prober: (got \(Self.describe(node)))")
            return nil
        }
        var module = BlackboxModule()
        var sawProber = false
        var sawDNS = false
        var notImplemented: [String] = []
        for (keyNode, value) in mapping {
            let field = keyNode.scalar?.string ?? ""
            switch field {
            case "prober":
                sawProber = true
                guard let prober = text(value, key: key + ".prober") else { continue }
                guard BlackboxModule.probers.contains(prober) else {
                    report(value.mark, key: key + ".prober", "unknown prober '\(prober)' (allowed: \(BlackboxModule.probers.joined(separator: ", ")))")
                    continue
                }
                module.prober = prober
            case "timeout":
                module.timeout = duration(value, key: key + ".timeout", within: 0...BlackboxModule.maxTimeout).flatMap { $0 > 0 ? $0 : nil }
            case "http":
                readHTTP(value, key: key + ".http", into: &module.http, notImplemented: &notImplemented)
            case "tcp":
                readTCP(value, key: key + ".tcp", into: &module.tcp, notImplemented: &notImplemented)
            case "dns":
                sawDNS = true
                readDNS(value, key: key + ".dns", into: &module.dns, notImplemented: &notImplemented)
            case "icmp":
                readICMP(value, key: key + ".icmp", into: &module.icmp, notImplemented: &notImplemented)
            case "grpc":
                readGRPC(value, key: key + ".grpc", into: &module.grpc, notImplemented: &notImplemented)
            default:
                report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \(BlackboxModule.moduleKeys.joined(separator: ", ")))")
            }
        }
        if !sawProber { report(node.mark, key: key + ".prober", "missing: every module names its prober (http)") }
        if module.prober == "dns" && !sawDNS { report(node.mark, key: key + ".dns.query_name", "missing: a dns module names the name it queries") }
        if !BlackboxModule.implementedProbers.contains(module.prober) {
            module.unsupported = "module \(name) uses blackbox_exporter's \(module.prober) prober: sonde's /probe runs the "
                + BlackboxModule.implementedProbers.joined(separator: ", ") + " probers"
        } else if case let used = notImplemented.filter({ $0.hasPrefix(module.prober + ".") }), !used.isEmpty {
            // Only the module's own prober's section counts: blackbox reads the others and ignores them.
            module.unsupported = "module \(name) uses \(used.joined(separator: ", ")), which sonde's /probe does not implement"
        }
        return module
    }

    /// The fields of a mapping `node` of the file as (key node, name, value, dotted key `key.name`),
    /// or nil when it is no mapping (reported as "expected `expected` (got …)").
    mutating func fields(of node: Node, key: String, expected: String) -> [(keyNode: Node, field: String, value: Node, here: String)]? {
        guard case .mapping(let mapping) = node else {
            report(node.mark, key: key, "expected \(expected) (got \(Self.describe(node)))")
            return nil
        }
        return mapping.map { keyNode, value in
            let field = keyNode.scalar?.string ?? ""
            return (keyNode, field, value, key + "." + field)
        }
    }

    mutating func readHTTP(_ node: Node, key: String, into http: inout BlackboxModule.HTTP, notImplemented: inout [String]) {
        guard let fields = fields(of: node, key: key, expected: "a mapping of the http prober's options") else { return }
        for (keyNode, field, value, here) in fields {
            switch field {
            case "method":
                if let method = text(value, key: here) {
                    if method.isEmpty || method.count > 32 || !method.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) {
                        report(value.mark, key: here, "'\(method)' is not an HTTP method")
                    } else {
                        http.method = method.uppercased()
                    }
                }
            case "headers":
                guard case .mapping(let headers) = value else {
                    report(value.mark, key: here, "expected a mapping of header names to values (got \(Self.describe(value)))")
                    continue
                }
                for (nameNode, valueNode) in headers {
                    guard let name = nameNode.scalar?.string, let headerValue = text(valueNode, key: here) else { continue }
                    guard !name.isEmpty, !name.contains(":"), !name.contains(" "), !SpecRules.hasControlCharacters(name),
                          !SpecRules.hasControlCharacters(headerValue) else {
                        report(nameNode.mark, key: here, "'\(name)' is not a header name and value without control characters")
                        continue
                    }
                    http.headers.append((name, headerValue))
                }
            case "body":
                http.body = text(value, key: here)
            case "valid_status_codes":
                guard case .sequence(let items) = value else {
                    report(value.mark, key: here, "expected a list of status codes (got \(Self.describe(value)))")
                    continue
                }
                http.validStatusCodes = items.prefix(1000).compactMap { integer($0, key: here, within: 100...599) }
            case "valid_http_versions":
                let allowed = ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/2.0", "HTTP/3", "HTTP/3.0"]
                for version in texts(value, key: here) ?? [] {
                    guard allowed.contains(version) else {
                        report(value.mark, key: here, "unknown version '\(version)' (allowed: \(allowed.joined(separator: ", ")))")
                        continue
                    }
                    http.validHTTPVersions.append(version)
                }
            case "preferred_ip_protocol":
                if let protocolName = text(value, key: here) {
                    guard ["ip4", "ip6"].contains(protocolName) else {
                        report(value.mark, key: here, "'\(protocolName)' is not ip4 or ip6")
                        continue
                    }
                    http.preferredIPProtocol = protocolName
                }
            case "ip_protocol_fallback": if let flag = boolean(value, key: here) { http.ipProtocolFallback = flag }
            case "follow_redirects": if let flag = boolean(value, key: here) { http.followRedirects = flag }
            case "no_follow_redirects": if let flag = boolean(value, key: here) { http.followRedirects = !flag }
            case "enable_http2": if let flag = boolean(value, key: here) { http.enableHTTP2 = flag }
            case "fail_if_ssl": if let flag = boolean(value, key: here) { http.failIfSSL = flag }
            case "fail_if_not_ssl": if let flag = boolean(value, key: here) { http.failIfNotSSL = flag }
            case "tls_config":
                readTLS(value, key: here, into: &http, notImplemented: &notImplemented)
            case "basic_auth":
                readBasicAuth(value, key: here, into: &http)
            case "bearer_token":
                http.bearerToken = text(value, key: here)
            case "bearer_token_file":
                http.bearerToken = secretFile(value, key: here)
            case "proxy_url":
                if let proxy = text(value, key: here) {
                    if let problem = SpecRules.url(proxy, key: here, schemes: ["http", "https", "socks5", "socks5h"]) {
                        report(value.mark, key: here, problem.message)
                    } else {
                        http.proxyURL = proxy
                    }
                }
            case "fail_if_body_matches_regexp": http.failIfBodyMatches = regexps(value, key: here)
            case "fail_if_body_not_matches_regexp": http.failIfBodyNotMatches = regexps(value, key: here)
            case "fail_if_header_matches": http.failIfHeaderMatches = headerMatches(value, key: here)
            case "fail_if_header_not_matches": http.failIfHeaderNotMatches = headerMatches(value, key: here)
            default:
                if BlackboxModule.httpKeysNotImplemented.contains(field) {
                    notImplemented.append("http.\(field)")
                } else {
                    report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \((BlackboxModule.httpKeys + BlackboxModule.httpKeysNotImplemented).joined(separator: ", ")))")
                }
            }
        }
    }

    /// A list of regular expressions (at most `BlackboxModule.maxRegexps`), each compiled.
    mutating func regexps(_ node: Node, key: String) -> [GoRegexp] {
        let patterns = texts(node, key: key) ?? []
        if patterns.count > BlackboxModule.maxRegexps {
            report(node.mark, key: key, "at most \(BlackboxModule.maxRegexps) regular expressions (got \(patterns.count))")
        }
        var compiled: [GoRegexp] = []
        for pattern in patterns.prefix(BlackboxModule.maxRegexps) {
            if let expression = regexp(pattern, node, key: key) { compiled.append(expression) }
        }
        return compiled
    }

    /// `fail_if_header_matches` / `fail_if_header_not_matches`: a list of `{header, regexp, allow_missing}`.
    mutating func headerMatches(_ node: Node, key: String) -> [BlackboxModule.HTTP.HeaderMatch] {
        guard case .sequence(let items) = node else {
            report(node.mark, key: key, "expected a list of header, regexp, allow_missing mappings (got \(Self.describe(node)))")
            return []
        }
        if items.count > BlackboxModule.maxRegexps {
            report(node.mark, key: key, "at most \(BlackboxModule.maxRegexps) header matchers (got \(items.count))")
        }
        var matches: [BlackboxModule.HTTP.HeaderMatch] = []
        for item in items.prefix(BlackboxModule.maxRegexps) {
            guard let fields = fields(of: item, key: key, expected: "a mapping with header, regexp and allow_missing") else { continue }
            var header: String?, expression: GoRegexp?, allowMissing = false, sawRegexp = false
            for (keyNode, field, value, here) in fields {
                switch field {
                case "header":
                    guard let name = text(value, key: here) else { continue }
                    guard !name.isEmpty, name.utf8.count <= 256, !name.contains(":"), !name.contains(" "), !SpecRules.hasControlCharacters(name) else {
                        report(value.mark, key: here, "'\(name)' is not a header name")
                        continue
                    }
                    header = name
                case "regexp":
                    sawRegexp = true
                    guard let pattern = text(value, key: here) else { continue }
                    // blackbox: an empty regexp is no regexp.
                    if pattern.isEmpty { sawRegexp = false } else { expression = regexp(pattern, value, key: here) }
                case "allow_missing": if let flag = boolean(value, key: here) { allowMissing = flag }
                default:
                    report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \(BlackboxModule.HTTP.HeaderMatch.keys.joined(separator: ", ")))")
                }
            }
            if header == nil { report(item.mark, key: key + ".header", "header name must be set for HTTP header matchers") }
            if !sawRegexp { report(item.mark, key: key + ".regexp", "regexp must be set for HTTP header matchers") }
            if let header, let expression { matches.append(.init(header: header, regexp: expression, allowMissing: allowMissing)) }
        }
        return matches
    }

    mutating func readTLS(_ node: Node, key: String, into http: inout BlackboxModule.HTTP, notImplemented: inout [String]) {
        guard case .mapping(let mapping) = node else {
            report(node.mark, key: key, "expected a mapping (got \(Self.describe(node)))")
            return
        }
        for (keyNode, value) in mapping {
            let field = keyNode.scalar?.string ?? ""
            switch field {
            case "ca_file":
                guard let path = text(value, key: key + ".ca_file") else { continue }
                let resolved = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
                if let problem = SpecRules.readableFile(resolved, key: key + ".ca_file", maxBytes: 16 << 20) {
                    report(value.mark, key: key + ".ca_file", problem.message)
                } else {
                    http.caFile = resolved
                }
            case "insecure_skip_verify":
                if let flag = boolean(value, key: key + ".insecure_skip_verify") { http.insecureSkipVerify = flag }
            default:
                if BlackboxModule.tlsKeysNotImplemented.contains(field) {
                    notImplemented.append("http.tls_config.\(field)")
                } else {
                    report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \((BlackboxModule.tlsKeys + BlackboxModule.tlsKeysNotImplemented).joined(separator: ", ")))")
                }
            }
        }
    }

    mutating func readBasicAuth(_ node: Node, key: String, into http: inout BlackboxModule.HTTP) {
        guard case .mapping(let mapping) = node else {
            report(node.mark, key: key, "expected a mapping with username and password (got \(Self.describe(node)))")
            return
        }
        var username: String?, password = ""
        for (keyNode, value) in mapping {
            switch keyNode.scalar?.string ?? "" {
            case "username": username = text(value, key: key + ".username")
            case "password": password = text(value, key: key + ".password") ?? ""
            case "password_file": password = secretFile(value, key: key + ".password_file") ?? ""
            default: report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \(BlackboxModule.basicAuthKeys.joined(separator: ", ")))")
            }
        }
        guard let username else {
            report(node.mark, key: key + ".username", "missing")
            return
        }
        guard !username.contains(":"), !SpecRules.hasControlCharacters(username + password) else {
            report(node.mark, key: key, "a username without ':' and credentials without control characters")
            return
        }
        http.basicAuth = (username, password)
    }

    /// The first line of a small secret file (a token, a password), read once at load.
    mutating func secretFile(_ node: Node, key: String) -> String? {
        guard let path = text(node, key: key) else { return nil }
        let resolved = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
        if let problem = SpecRules.readableFile(resolved, key: key, maxBytes: 64 << 10) {
            report(node.mark, key: key, problem.message)
            return nil
        }
        guard let data = FileManager.default.contents(atPath: resolved), let content = String(data: data, encoding: .utf8) else {
            report(node.mark, key: key, "\(resolved) is not readable UTF-8 text")
            return nil
        }
        let secret = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !SpecRules.hasControlCharacters(secret) else {
            report(node.mark, key: key, "\(resolved) holds more than one line")
            return nil
        }
        return secret
    }
}
