import Foundation
import SondeCore
import SondeSuite
import Yams

/// serve's `modules:`, in blackbox_exporter's format (`BlackboxModule`): every key checked by its
/// declaration in `BlackboxModuleKeys` (the five probers' sections), an option sonde does not
/// implement kept as the reason `/probe` refuses that module; and the readers the keys share.
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
        var reading = BlackboxModuleKeys.Reading()
        var notImplemented: [String] = []
        guard read(node, key: key, keys: BlackboxModuleKeys.module, into: &reading, notImplemented: &notImplemented, prefix: "") else { return nil }
        var module = reading.module
        if !reading.sawProber { report(node.mark, key: key + ".prober", "missing: every module names its prober (http)") }
        if module.prober == "dns" && !reading.sawDNS { report(node.mark, key: key + ".dns.query_name", "missing: a dns module names the name it queries") }
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
            var match = BlackboxModuleKeys.HeaderMatch()
            var ignored: [String] = []
            guard read(item, key: key, keys: BlackboxModuleKeys.headerMatch, into: &match, notImplemented: &ignored, prefix: "") else { continue }
            if match.header == nil { report(item.mark, key: key + ".header", "header name must be set for HTTP header matchers") }
            if !match.sawRegexp { report(item.mark, key: key + ".regexp", "regexp must be set for HTTP header matchers") }
            if let header = match.header, let expression = match.regexp {
                matches.append(.init(header: header, regexp: expression, allowMissing: match.allowMissing))
            }
        }
        return matches
    }

    /// A prober's `tls_config` (the tcp and grpc probers'; `BlackboxModuleKeys.tlsConfig`), its
    /// options sonde does not implement named `SECTION.tls_config.KEY`.
    mutating func readTLSConfig(_ node: Node, key: String, into tls: inout BlackboxModule.TLSConfig, notImplemented: inout [String],
                                section: String) {
        guard read(node, key: key, keys: BlackboxModuleKeys.tlsConfig, into: &tls, notImplemented: &notImplemented,
                   prefix: section + ".tls_config.") else { return }
        if (tls.certFile == nil) != (tls.keyFile == nil) {
            report(node.mark, key: key, "cert_file and key_file come together (a client certificate and its key)")
        }
    }

    /// A file's path (resolved against the config's folder), checked regular, readable and at
    /// most 16 MiB at load; nil (reported) otherwise.
    mutating func readableFile(_ node: Node, key: String) -> String? {
        guard let path = text(node, key: key) else { return nil }
        let resolved = path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
        if let problem = SpecRules.readableFile(resolved, key: key, maxBytes: 16 << 20) {
            report(node.mark, key: key, problem.message)
            return nil
        }
        return resolved
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
