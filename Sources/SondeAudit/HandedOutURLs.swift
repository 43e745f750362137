import Foundation
import SondeCore
import SondeHTTP

/// A URL a response handed out, where it was found, and what its host is. Unredacted (it may be
/// fetched); the rules redact it when they write it.
struct HandedOutURL: Sendable, Equatable {
    enum Source: Sendable, Equatable {
        /// The audited URL itself.
        case audited
        /// A redirect's Location: `hop` is the index in the first GET's transactions of the
        /// response that sent it (the next transaction, when there is one, fetched it).
        case location(hop: Int)
        /// An Alt-Svc alternative of the response to `origin`: reached with `origin`'s name
        /// (CURLOPT_CONNECT_TO), `protocolID` "h2", "h3"….
        case altSvc(origin: String, protocolID: String)
        /// A string value of the final JSON body (`path`), or a URL in a body that is not JSON (nil).
        case body(path: String?)
    }

    var url: String
    var source: Source
    /// "the URL audited", "Location of the 302 from URL", "Alt-Svc of URL (h2)", "JSON
    /// $.media.url of URL", "the body of URL (not JSON: …)" (URLs redacted).
    var foundIn: String
    var host: String
    var port: Int
    var kind: HostResolver.Kind
}

/// What a fetch's evidence hands out (`ipv6.app-review`'s discovery). Pure: the same observation
/// and body give the same URLs.
///
/// Found, in this order: each redirect's Location (made absolute), each Alt-Svc alternative of
/// every response of the first GET (`host:port`; an alternative without a host names the
/// origin's; one whose host is not a plain name or address — user-info, `/ ? #`, a `:` outside
/// brackets — is dropped), then the http(s) URLs of the final body (a JSON document's string values
/// with their paths; a body that is not JSON, or is cut at `BodySample.maxBytes`, scanned as
/// text; at most `JSONURLScanner.maxStrings` strings looked at). Each URL once. IPv4 and IPv6
/// literals are kept (a literal is the finding); names only on the audited URL's site (`sameSite`)
/// or among `cdnHosts`; an IPv6 literal with a zone id (`fe80::1%lo`) never (it names an
/// interface of the client's own). At most `limit` handed-out URLs are kept; only kept URLs count
/// against it, the rest are counted (`pastLimit`, `otherSite`, `zoneID`), as lower bounds when the
/// scan was `capped`.
enum HandedOutURLs {
    struct Discovery: Sendable, Equatable {
        /// The audited URL first, then the handed-out ones kept.
        var urls: [HandedOutURL]
        /// Handed-out URLs left out: names on another site not in `cdnHosts`.
        var otherSite: [String] = []
        /// Handed-out URLs left out: IPv6 literals with a zone id (their hosts, `fe80::1%lo`).
        var zoneID: [String] = []
        /// Handed-out URLs past `limit`.
        var pastLimit = 0
        /// The body's scan stopped at its cap: `otherSite`, `zoneID` and `pastLimit` are lower bounds.
        var capped = false
        /// Why the body was not searched, or was searched as text; nil when read as JSON.
        var bodyNote: String?
        /// What of the body was not searched (past `JSONURLScanner.maxStrings`, nesting past
        /// `JSONURLScanner.maxDepth`); nil when all of it was.
        var partialScan: String?
    }

    static func discover(_ url: String, http: HTTPObservation?, body: BodySample.Result?, limit: Int, cdnHosts: [String]) -> Discovery {
        let redact = HTTPEvidence.redactor
        var candidates: [HandedOutURL] = []
        let given = try? Auditor.parse(url)
        var discovery = Discovery(urls: [])
        if let given {
            discovery.urls.append(HandedOutURL(url: url, source: .audited, foundIn: AppReviewRules.auditedFoundIn, host: given.host, port: given.port,
                                               kind: HostResolver.kind(of: given.host)))
        }
        func add(_ text: String, _ source: HandedOutURL.Source, _ foundIn: String) {
            guard let parsed = try? Auditor.parse(text) else { return }
            candidates.append(HandedOutURL(url: text, source: source, foundIn: foundIn, host: parsed.host, port: parsed.port, kind: HostResolver.kind(of: parsed.host)))
        }
        let hops = http?.first?.transactionMetrics ?? []
        for (index, hop) in hops.enumerated() {
            guard let status = hop.response?.statusCode, (300..<400).contains(status),
                  let location = HTTPEvidence.header("Location", in: hop) else { continue }
            add(absolute(location, base: hop.request.url), .location(hop: index), "Location of the \(status) from \(redact.redact(url: hop.request.url))")
        }
        for hop in hops {
            guard let origin = try? Auditor.parse(hop.request.url) else { continue }
            for header in hop.response?.headers ?? [] where header.name.caseInsensitiveCompare("Alt-Svc") == .orderedSame {
                for alternative in AltSvcHeader(header.value).alternatives {
                    guard let named = alternative.host.flatMap({ $0.isEmpty ? nil : $0 }) ?? Optional(origin.host),
                          isPlainAltSvcHost(named), (1...65535).contains(alternative.port) else { continue }
                    let host = named.hasPrefix("[") && named.hasSuffix("]") ? String(named.dropFirst().dropLast()) : named
                    let authority = host.contains(":") ? "[\(host)]" : host
                    // The alternative serves the origin's scheme (RFC 7838 §2).
                    add("\(origin.scheme)://\(authority):\(alternative.port)/", .altSvc(origin: hop.request.url, protocolID: alternative.protocolID),
                        "Alt-Svc of \(redact.redact(url: hop.request.url)) (\(alternative.protocolID)=\"\(authority):\(alternative.port)\")")
                }
            }
        }
        if let body {
            let shown = redact.redact(url: body.url)
            switch JSONURLScanner.urls(in: body.bytes) {
            case .success(let scan):
                for item in scan.found { add(item.url, .body(path: item.path), "JSON \(item.path) of \(shown)") }
                discovery.capped = scan.capped
                var parts: [String] = []
                if scan.capped { parts.append("searched only its first \(JSONURLScanner.maxStrings) strings") }
                if scan.tooDeep > 0 {
                    parts.append("\(scan.tooDeep) value\(scan.tooDeep == 1 ? "" : "s") nested deeper than \(JSONURLScanner.maxDepth) levels not searched")
                }
                if !parts.isEmpty { discovery.partialScan = "the body of \(shown): " + parts.joined(separator: "; ") }
            case .failure(let error):
                let why = body.truncated ? "cut at \(BodySample.maxBytes / 1024) KiB" : "not JSON: \(error.description)"
                let scan = JSONURLScanner.textURLs(in: String(decoding: body.bytes, as: UTF8.self))
                discovery.capped = scan.capped
                discovery.bodyNote = "the body of \(shown) searched as text (\(why))"
                if scan.capped { discovery.partialScan = "the body of \(shown): searched only its first \(JSONURLScanner.maxStrings) URLs" }
                for found in scan.urls {
                    add(found, .body(path: nil), "the body of \(shown) (\(body.truncated ? "cut" : "not JSON"))")
                }
            }
        } else {
            discovery.bodyNote = "no body searched"
        }
        var seen: Set<String> = Set(discovery.urls.map(\.url))
        var kept = 0
        for candidate in candidates {
            // An Alt-Svc alternative is one host:port: the same one from two responses is one.
            guard seen.insert(candidate.url).inserted else { continue }
            if candidate.kind == .name, let zone = zoned(candidate.host) {
                discovery.zoneID.append(zone)
                continue
            }
            if candidate.kind == .name, let given, !sameSite(candidate.host, given.host), !matches(candidate.host, cdnHosts) {
                discovery.otherSite.append(candidate.host)
                continue
            }
            guard kept < max(0, limit) else {
                discovery.pastLimit += 1
                continue
            }
            kept += 1
            discovery.urls.append(candidate)
        }
        return discovery
    }

    /// Whether an Alt-Svc alternative's host is a plain name or address: letters, digits, `.`, `-`,
    /// `_`, and `:` only inside an IPv6 address (the parser has removed its brackets; a zone id
    /// after `%` allowed). User-info (`user:secret@host`), `/ ? #` and the like are not a host: such
    /// an alternative is dropped (and never written).
    static func isPlainAltSvcHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_:%".unicodeScalars.contains($0)) })
        else { return false }
        guard host.contains(":") else { return !host.contains("%") }
        return HostResolver.kind(of: host) == .ipv6Literal || zoned(host) != nil
    }

    /// `host` when it is an IPv6 literal with a zone id (`fe80::1%lo`), nil otherwise.
    static func zoned(_ host: String) -> String? {
        guard let percent = host.firstIndex(of: "%"), HostResolver.kind(of: String(host[..<percent])) == .ipv6Literal else { return nil }
        return host
    }

    /// `location` made absolute against `base` (a relative Location names the same host).
    static func absolute(_ location: String, base: String) -> String {
        guard let baseURL = URL(string: base), let resolved = URL(string: location, relativeTo: baseURL) else { return location }
        return resolved.absoluteString
    }

    /// Whether two names share a site: the same registrable domain, taken here as the last two
    /// labels, or three when the last is a two-letter country code and the one before it has at
    /// most three letters (`api.example.co.uk`). An approximation of the Public Suffix List
    /// (sonde ships none): `cdn-hosts` names what it misses.
    static func sameSite(_ a: String, _ b: String) -> Bool {
        a.lowercased() == b.lowercased() || (site(a).map { $0 == site(b) } ?? false)
    }

    static func site(_ host: String) -> String? {
        let labels = host.lowercased().split(separator: ".", omittingEmptySubsequences: true)
        guard labels.count >= 2 else { return nil }
        let last = labels[labels.count - 1], second = labels[labels.count - 2]
        let take = labels.count >= 3 && last.count == 2 && second.count <= 3 ? 3 : 2
        return labels.suffix(take).joined(separator: ".")
    }

    /// Whether `host` is one of `patterns`: an exact name, or `*.suffix` for every name under it.
    static func matches(_ host: String, _ patterns: [String]) -> Bool {
        let lower = host.lowercased()
        return patterns.contains { raw in
            let pattern = raw.lowercased()
            if pattern.hasPrefix("*.") { return lower.hasSuffix(String(pattern.dropFirst(1))) }
            return lower == pattern
        }
    }
}
