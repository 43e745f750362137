import Foundation
import SondeSuite

/// What `sonde serve`'s `/probe` may reach (`allow:`): blackbox_exporter probes any target it is
/// given, an open proxy; sonde probes only targets a pattern matches, and refuses the rest before
/// sending anything.
///
/// A pattern is `scheme://host[:port]/path`, where the path may hold `*` (any run of characters,
/// `/` and `?` included) and the host may start with `*.` (any subdomain, not the domain itself):
/// the http prober's targets. A pattern without a scheme is an endpoint, for the probers that
/// reach a host rather than a URL: `host:port` (`[::1]:53`, `*.example.com:443`) lets the tcp and
/// dns probers reach that port, `host` alone (`192.0.2.1`, `*.example.com`) lets the icmp prober
/// ping it.
/// Scheme and host compare case-insensitively, the port as a number (the scheme's default when
/// absent); a target with user information (`user:pass@`) is refused, whatever the patterns, and
/// so is one whose path holds a dot segment (`DotSegments`): the path is matched as written,
/// and libcurl or the server would remove `..` afterwards and reach a path the list never saw.
public struct AllowList: Equatable, Sendable {
    public var patterns: [Pattern]

    public init(patterns: [Pattern]) { self.patterns = patterns }

    /// One `allow:` entry.
    public struct Pattern: Equatable, Sendable, CustomStringConvertible {
        /// Empty for an endpoint pattern (`host:port` or `host`).
        public var scheme: String
        /// Lowercased; `*.example.com` matches subdomains of example.com.
        public var host: String
        /// 0 for an endpoint pattern of a host alone.
        public var port: Int
        /// The path (and query) glob, starting with `/`; empty for an endpoint pattern.
        public var path: String
        public var description: String

        /// The pattern of `text`, or why it is not one (`key` `allow`).
        public static func parse(_ text: String) -> Result<Pattern, SpecProblem> {
            func refused(_ reason: String) -> Result<Pattern, SpecProblem> { .failure(SpecProblem(key: "allow", "'\(text)' \(reason)")) }
            guard !SpecRules.hasControlCharacters(text), !text.contains(" ") else { return refused("holds spaces or control characters") }
            if !text.contains("://") { return parseEndpoint(text) }
            // A leading `*.` in the host parses as an ordinary label, then is put back.
            let wildcard = "sonde-any-subdomain"
            let subdomains = text.contains("://*.")
            guard let target = Target(parsing: subdomains ? text.replacingOccurrences(of: "://*.", with: "://\(wildcard).") : text) else {
                if URLComponents(string: text)?.host?.dropFirst(subdomains ? 2 : 0).contains("*") == true {
                    return refused("has '*' in its host other than a leading '*.'")
                }
                return refused("is not scheme://host[:port]/path (http or https)")
            }
            let host = subdomains ? "*." + target.host.dropFirst(wildcard.count + 1) : target.host
            guard !host.dropFirst(subdomains ? 2 : 0).contains("*") else { return refused("has '*' in its host other than a leading '*.'") }
            return .success(Pattern(scheme: target.scheme, host: host, port: target.port, path: target.path, description: text))
        }

        /// `host:port`, `[v6]:port`, `host`, `[v6]` or a bare IPv6 address; the host may start with `*.`.
        static func parseEndpoint(_ text: String) -> Result<Pattern, SpecProblem> {
            func refused(_ reason: String) -> Result<Pattern, SpecProblem> { .failure(SpecProblem(key: "allow", "'\(text)' \(reason)")) }
            guard let (host, port) = Endpoint.split(text) else {
                return refused("is not scheme://host[:port]/path, host:port or host")
            }
            let bare = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
            guard !bare.isEmpty, !bare.contains("*") else { return refused("has '*' in its host other than a leading '*.'") }
            guard Target.isPlainHost(bare) else { return refused("is not host:port or host (a host name or an IP address)") }
            if let port, !(1...65_535).contains(port) { return refused("has a port outside 1 to 65535") }
            return .success(Pattern(scheme: "", host: host.lowercased(), port: port ?? 0, path: "", description: text))
        }

        /// Whether the host `target` (lowercased, IPv6 without brackets) is this pattern's host.
        func hostMatches(_ target: String) -> Bool {
            host.hasPrefix("*.") ? target.hasSuffix(host.dropFirst(1)) : host == target
        }

        func matches(_ target: Target) -> Bool {
            guard scheme == target.scheme, port == target.port else { return false }
            if host.hasPrefix("*.") {
                guard target.host.hasSuffix(host.dropFirst(1)) else { return false }
            } else if host != target.host {
                return false
            }
            return Self.glob(Array(path.utf8), Array(target.path.utf8))
        }

        /// Whether `text` matches `pattern`, where `*` is any run of bytes. Linear in practice
        /// (the classic backtrack to the last star), never exponential.
        static func glob(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
            var p = 0, t = 0, star = -1, mark = 0
            while t < text.count {
                if p < pattern.count && pattern[p] == UInt8(ascii: "*") {
                    star = p
                    mark = t
                    p += 1
                } else if p < pattern.count && pattern[p] == text[t] {
                    p += 1
                    t += 1
                } else if star >= 0 {
                    p = star + 1
                    mark += 1
                    t = mark
                } else {
                    return false
                }
            }
            while p < pattern.count && pattern[p] == UInt8(ascii: "*") { p += 1 }
            return p == pattern.count
        }
    }

    /// A URL as the allow list compares it.
    public struct Target: Equatable, Sendable {
        public var scheme: String
        public var host: String
        public var port: Int
        /// Path and query (`/` when empty).
        public var path: String

        /// A host name of letters, digits, `.`, `-` and `_`, or an IP literal (`URLComponents`
        /// gives it decoded: `localhost%00.example.test` would match `*.example.test` and resolve
        /// as `localhost`).
        static func isPlainHost(_ host: String) -> Bool {
            let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            if literal.contains(":") {
                return literal.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." }
            }
            return host.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-" || $0 == "_") }
        }

        /// nil when `text` is not an http(s) URL with a plain host (`isPlainHost`), carries user
        /// information or has a dot segment in its path.
        public init?(parsing text: String) {
            guard text.utf8.count <= 8192, !SpecRules.hasControlCharacters(text),
                  let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", let host = components.host?.lowercased(), !host.isEmpty,
                  components.user == nil, components.password == nil, Self.isPlainHost(host) else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = components.port ?? (scheme == "https" ? 443 : 80)
            guard (1...65_535).contains(port) else { return nil }
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            guard !DotSegments.present(in: path) else { return nil }
            self.path = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
    }

    /// Whether `target`'s path holds a dot segment, the one reason of refusal `allowing` has that
    /// a refusal message should name.
    /// The path is read from the text itself (after `scheme://authority`, up to `?` or `#`), so
    /// that a URL `URLComponents` refuses (a `\\` in it) is still told apart.
    public static func hasDotSegment(_ target: String) -> Bool {
        guard let authority = target.range(of: "://") else { return false }
        let rest = target[authority.upperBound...]
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "\\" }) else { return false }
        return DotSegments.present(in: String(rest[slash...].prefix { $0 != "?" && $0 != "#" }))
    }

    /// The endpoint pattern that lets the tcp or dns prober reach `host` on `port`, nil when none does.
    public func allowing(host: String, port: Int) -> Pattern? {
        let host = host.lowercased()
        guard Target.isPlainHost(host) else { return nil }
        return patterns.first { $0.scheme.isEmpty && $0.port == port && $0.port != 0 && $0.hostMatches(host) }
    }

    /// The endpoint pattern of a host alone that lets the icmp prober ping `host`, nil when none does.
    public func allowing(host: String) -> Pattern? {
        let host = host.lowercased()
        guard Target.isPlainHost(host) else { return nil }
        return patterns.first { $0.scheme.isEmpty && $0.port == 0 && $0.hostMatches(host) }
    }

    /// The pattern that lets `target` through, nil when none does (or it is not a URL the list compares).
    public func allowing(_ target: String) -> Pattern? {
        guard let parsed = Target(parsing: target) else { return nil }
        return patterns.first { $0.matches(parsed) }
    }
}
