import Foundation
import SondeRun
import Yams

/// The tcp and dns sections of a blackbox_exporter module (`BlackboxModule.TCP`, `.DNS`): every
/// key checked, every regular expression compiled (`GoRegexp`) and every file checked readable at
/// load, as blackbox refuses a config whose regexp does not compile.
extension SuiteReader {
    mutating func readTCP(_ node: Node, key: String, into tcp: inout BlackboxModule.TCP, notImplemented: inout [String]) {
        guard let fields = fields(of: node, key: key, expected: "a mapping of the tcp prober's options") else { return }
        for (keyNode, field, value, here) in fields {
            switch field {
            case "preferred_ip_protocol": if let name = ipProtocol(value, key: here) { tcp.preferredIPProtocol = name }
            case "ip_protocol_fallback": if let flag = boolean(value, key: here) { tcp.ipProtocolFallback = flag }
            case "tls": if let flag = boolean(value, key: here) { tcp.tls = flag }
            case "tls_config": readTLSConfig(value, key: here, into: &tcp.tlsConfig, notImplemented: &notImplemented, section: "tcp")
            case "query_response":
                guard case .sequence(let steps) = value else {
                    report(value.mark, key: here, "expected a list of expect/send/starttls steps (got \(Self.describe(value)))")
                    continue
                }
                if steps.count > BlackboxModule.maxQueryResponseSteps {
                    report(value.mark, key: here, "at most \(BlackboxModule.maxQueryResponseSteps) steps (got \(steps.count))")
                }
                for step in steps.prefix(BlackboxModule.maxQueryResponseSteps) {
                    if let parsed = readQueryResponse(step, key: here) { tcp.queryResponse.append(parsed) }
                }
            default:
                if BlackboxModule.TCP.keysNotImplemented.contains(field) {
                    notImplemented.append("tcp.\(field)")
                } else {
                    report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \((BlackboxModule.TCP.keys + BlackboxModule.TCP.keysNotImplemented).joined(separator: ", ")))")
                }
            }
        }
    }

    mutating func readQueryResponse(_ node: Node, key: String) -> BlackboxModule.QueryResponse? {
        guard case .mapping(let mapping) = node else {
            report(node.mark, key: key, "expected a mapping with expect, send or starttls (got \(Self.describe(node)))")
            return nil
        }
        var step = BlackboxModule.QueryResponse()
        for (keyNode, value) in mapping {
            let field = keyNode.scalar?.string ?? ""
            let here = key + "." + field
            switch field {
            case "expect":
                guard let pattern = text(value, key: here), !pattern.isEmpty else { continue }
                step.expect = regexp(pattern, value, key: here)
            case "send":
                guard let send = text(value, key: here) else { continue }
                guard send.utf8.count <= 65_536 else {
                    report(value.mark, key: here, "at most 64 KiB")
                    continue
                }
                step.send = send
            case "starttls": if let flag = boolean(value, key: here) { step.startTLS = flag }
            default:
                report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \(BlackboxModule.QueryResponse.keys.joined(separator: ", ")))")
            }
        }
        return step
    }

    mutating func readDNS(_ node: Node, key: String, into dns: inout BlackboxModule.DNS, notImplemented: inout [String]) {
        guard let fields = fields(of: node, key: key, expected: "a mapping of the dns prober's options") else { return }
        var sawName = false
        for (keyNode, field, value, here) in fields {
            switch field {
            case "preferred_ip_protocol": if let name = ipProtocol(value, key: here) { dns.preferredIPProtocol = name }
            case "ip_protocol_fallback": if let flag = boolean(value, key: here) { dns.ipProtocolFallback = flag }
            case "recursion_desired": if let flag = boolean(value, key: here) { dns.recursionDesired = flag }
            case "transport_protocol":
                guard let name = text(value, key: here) else { continue }
                guard name == "udp" || name == "tcp" else {
                    report(value.mark, key: here, "'\(name)' is not udp or tcp")
                    continue
                }
                dns.transportProtocol = name
            case "query_name":
                guard let name = text(value, key: here) else { continue }
                guard !name.isEmpty, name.utf8.count <= 253 || (name.hasSuffix(".") && name.utf8.count <= 254),
                      !SpecRules.hasControlCharacters(name), !name.contains(" ") else {
                    report(value.mark, key: here, "'\(name)' is not a domain name (1 to 253 characters, no spaces)")
                    continue
                }
                sawName = true
                dns.queryName = name
            case "query_type":
                guard let name = text(value, key: here) else { continue }
                guard DNSCodes.types[name] != nil else {
                    report(value.mark, key: here, "query type '\(name)' is not valid (a record type such as A, AAAA, MX, TXT, SOA, ANY)")
                    continue
                }
                dns.queryType = name
            case "query_class":
                guard let name = text(value, key: here) else { continue }
                guard DNSCodes.classes[name] != nil else {
                    report(value.mark, key: here, "query class '\(name)' is not valid (allowed: \(DNSCodes.classes.keys.sorted().joined(separator: ", ")))")
                    continue
                }
                dns.queryClass = name
            case "valid_rcodes":
                for name in texts(value, key: here) ?? [] {
                    // blackbox loads an unknown rcode and fails every probe with it; sonde says so at load.
                    guard DNSCodes.rcodes[name] != nil else {
                        report(value.mark, key: here, "unknown rcode '\(name)' (known: \(DNSCodes.rcodes.keys.sorted().joined(separator: ", ")))")
                        continue
                    }
                    dns.validRcodes.append(name)
                }
            case "validate_answer_rrs": dns.validateAnswer = readValidator(value, key: here)
            case "validate_authority_rrs": dns.validateAuthority = readValidator(value, key: here)
            case "validate_additional_rrs": dns.validateAdditional = readValidator(value, key: here)
            default:
                if BlackboxModule.DNS.keysNotImplemented.contains(field) {
                    notImplemented.append("dns.\(field)")
                } else {
                    report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \((BlackboxModule.DNS.keys + BlackboxModule.DNS.keysNotImplemented).joined(separator: ", ")))")
                }
            }
        }
        if !sawName { report(node.mark, key: key + ".query_name", "missing: a dns module names the name it queries") }
    }

    mutating func readValidator(_ node: Node, key: String) -> BlackboxModule.RRValidator {
        var validator = BlackboxModule.RRValidator()
        guard let fields = fields(of: node, key: key, expected: "a mapping of regular expression lists") else { return validator }
        for (keyNode, field, value, here) in fields {
            let patterns = regexps(value, key: here)
            switch field {
            case "fail_if_matches_regexp": validator.failIfMatches = patterns
            case "fail_if_all_match_regexp": validator.failIfAllMatch = patterns
            case "fail_if_not_matches_regexp": validator.failIfNotMatches = patterns
            case "fail_if_none_matches_regexp": validator.failIfNoneMatches = patterns
            default:
                report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \(BlackboxModule.RRValidator.keys.joined(separator: ", ")))")
            }
        }
        return validator
    }

    /// A prober's `tls_config` (the tcp prober's: more keys than the http prober's `readTLS`).
    mutating func readTLSConfig(_ node: Node, key: String, into tls: inout BlackboxModule.TLSConfig, notImplemented: inout [String],
                                section: String) {
        guard case .mapping(let mapping) = node else {
            report(node.mark, key: key, "expected a mapping (got \(Self.describe(node)))")
            return
        }
        func file(_ value: Node, _ here: String) -> String? {
            guard let path = text(value, key: here) else { return nil }
            let resolved = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
            if let problem = SpecRules.readableFile(resolved, key: here, maxBytes: 16 << 20) {
                report(value.mark, key: here, problem.message)
                return nil
            }
            return resolved
        }
        for (keyNode, value) in mapping {
            let field = keyNode.scalar?.string ?? ""
            let here = key + "." + field
            switch field {
            case "ca_file": tls.caFile = file(value, here)
            case "cert_file": tls.certFile = file(value, here)
            case "key_file": tls.keyFile = file(value, here)
            case "server_name":
                guard let name = text(value, key: here) else { continue }
                guard !name.isEmpty, name.utf8.count <= 255, !SpecRules.hasControlCharacters(name), !name.contains(" ") else {
                    report(value.mark, key: here, "'\(name)' is not a host name")
                    continue
                }
                tls.serverName = name
            case "insecure_skip_verify": if let flag = boolean(value, key: here) { tls.insecureSkipVerify = flag }
            case "min_version", "max_version":
                guard let version = text(value, key: here) else { continue }
                guard BlackboxModule.TLSConfig.versions.contains(version) else {
                    report(value.mark, key: here, "unknown TLS version '\(version)' (allowed: \(BlackboxModule.TLSConfig.versions.joined(separator: ", ")))")
                    continue
                }
                if field == "min_version" { tls.minVersion = version } else { tls.maxVersion = version }
            default:
                if BlackboxModule.TLSConfig.keysNotImplemented.contains(field) {
                    notImplemented.append("\(section).tls_config.\(field)")
                } else {
                    report(keyNode.mark, key: key, "unknown key \(Self.describe(keyNode)) (allowed: \((BlackboxModule.TLSConfig.keys + BlackboxModule.TLSConfig.keysNotImplemented).joined(separator: ", ")))")
                }
            }
        }
        if (tls.certFile == nil) != (tls.keyFile == nil) {
            report(node.mark, key: key, "cert_file and key_file come together (a client certificate and its key)")
        }
    }

    /// `ip4` or `ip6`.
    mutating func ipProtocol(_ node: Node, key: String) -> String? {
        guard let name = text(node, key: key) else { return nil }
        guard name == "ip4" || name == "ip6" else {
            report(node.mark, key: key, "'\(name)' is not ip4 or ip6")
            return nil
        }
        return name
    }

    /// `pattern` compiled (`GoRegexp`), or nil with the reason reported at `node`: as blackbox
    /// refuses a config whose regular expression Go does not compile.
    mutating func regexp(_ pattern: String, _ node: Node, key: String) -> GoRegexp? {
        do throws(GoRegexp.Refused) {
            return try GoRegexp(pattern)
        } catch {
            report(node.mark, key: key, "could not compile regular expression '\(pattern)': \(error.message)")
            return nil
        }
    }
}
