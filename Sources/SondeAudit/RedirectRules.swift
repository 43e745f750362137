import Foundation
import SondeCore

/// The findings about where a client is sent: the scheme of the URL given (`http.cleartext`), the
/// redirect chain the first GET followed (`http.redirects`) and secrets in any URL of it
/// (`url.secrets`). Pure, like `HTTPRules`; every URL written is redacted.
enum RedirectRules {
    static let ids = ["http.cleartext", "http.redirects", "url.secrets"]

    static func findings(_ o: HTTPObservation) -> [AuditFinding] {
        [cleartext(o), redirects(o), secrets(o)]
    }

    private static func isHTTPS(_ url: String) -> Bool { url.lowercased().hasPrefix("https://") }

    /// One line per hop: `301 http://a/x → https://b/x`.
    static func chain(_ task: ProbeTask?) -> [String] {
        (task?.transactionMetrics ?? []).map { hop in
            let url = HTTPEvidence.redactor.redact(url: hop.request.url)
            guard let status = hop.response?.statusCode else { return "→ \(url): no response" }
            if let location = HTTPEvidence.header("Location", in: hop), (300..<400).contains(status) {
                return "\(url) → \(status) → \(HTTPEvidence.redactor.redact(urlsIn: location))"
            }
            return "\(url) → \(status)" + (hop.networkProtocolName.map { " (\($0))" } ?? "")
        }
    }

    static func cleartext(_ o: HTTPObservation) -> AuditFinding {
        let id = "http.cleartext", title = "the URL is https (ATS and Android 9+ refuse cleartext)"
        if isHTTPS(o.url) {
            return AuditFinding(id: id, severity: .pass, title: title, observed: "an https URL", evidence: [],
                                client: "URLSession under ATS and Android's default network security config allow it", rule: AuditRuleSources.ats)
        }
        let hops = o.first?.transactionMetrics ?? []
        let evidence = chain(o.first)
        guard let first = hops.first, let status = first.response?.statusCode else {
            return AuditFinding(id: id, severity: .fail, title: title,
                                observed: "an http URL, and no answer on it: \(o.error ?? o.first?.error?.message ?? "no response")", evidence: evidence,
                                client: "URLSession under ATS refuses an http URL (NSURLErrorAppTransportSecurityRequiresSecureConnection); Android apps targeting API 28+ refuse cleartext by default",
                                rule: AuditRuleSources.androidCleartext)
        }
        let upgraded = (300..<400).contains(status) && hops.count > 1 && isHTTPS(hops[1].request.url)
        if upgraded {
            return AuditFinding(id: id, severity: .warn, title: title,
                                observed: "an http URL that redirects to https (\(status)): apps must use the https URL",
                                evidence: evidence,
                                client: "URLSession under ATS refuses the http URL before any redirect, and Android apps targeting API 28+ refuse cleartext by default: the redirect only helps clients that allow cleartext",
                                rule: AuditRuleSources.androidCleartext)
        }
        return AuditFinding(id: id, severity: .fail, title: title,
                            observed: "served over cleartext (\(status)) without a redirect to https", evidence: evidence,
                            client: "URLSession under ATS refuses it (NSAllowsArbitraryLoads or an exception needed, justified at App Store review); Android apps targeting API 28+ refuse cleartext by default",
                            rule: AuditRuleSources.androidCleartext)
    }

    static func redirects(_ o: HTTPObservation) -> AuditFinding {
        let id = "http.redirects", title = "redirects: how many, to where, never from https to http"
        guard let task = o.first, !task.transactionMetrics.isEmpty else {
            return AuditFinding(id: id, severity: .info, title: title, observed: "not known: \(o.error ?? "no response")", client: "",
                                rule: AuditRuleSources.redirects)
        }
        let hops = task.transactionMetrics
        let evidence = chain(task)
        let redirects = hops.count - 1
        let hosts = Set(hops.compactMap { URLComponents(string: $0.request.url)?.host?.lowercased() })
        let downgrades = zip(hops, hops.dropFirst()).filter { isHTTPS($0.0.request.url) && !isHTTPS($0.1.request.url) }
        if !downgrades.isEmpty {
            return AuditFinding(id: id, severity: .fail, title: title,
                                observed: "a redirect from https to http: " + downgrades.map { HTTPEvidence.redactor.redact(url: $0.1.request.url) }.joined(separator: ", "),
                                evidence: evidence,
                                client: "URLSession under ATS refuses the http hop, Android apps targeting API 28+ refuse it by default; a client that follows it sends the request in the clear",
                                rule: AuditRuleSources.ats)
        }
        if task.error?.code == .tooManyRedirects {
            return AuditFinding(id: id, severity: .warn, title: title, observed: "more than \(HTTPProber.maxRedirects) redirects: \(task.error?.message ?? "")",
                                evidence: evidence, client: "clients give up or loop: every hop is a round trip", rule: AuditRuleSources.redirects)
        }
        if redirects == 0 {
            return AuditFinding(id: id, severity: .pass, title: title, observed: "no redirect", evidence: evidence,
                                client: "the response comes in one round trip", rule: AuditRuleSources.redirects)
        }
        let crossHost = hosts.count > 1 ? ", across \(hosts.count) hosts (each a DNS lookup and a new connection)" : ""
        let cleartextHops = hops.filter { !isHTTPS($0.request.url) }.count
        let schemes = cleartextHops == 0 ? "https throughout"
            : cleartextHops == hops.count ? "http throughout (http.cleartext judges it)"
            : "from http to https (http.cleartext judges the http URL)"
        return AuditFinding(id: id, severity: .info, title: title,
                            observed: "\(redirects) redirect\(redirects == 1 ? "" : "s"), \(schemes)\(crossHost)", evidence: evidence,
                            client: "URLSession and OkHttp follow them; each hop costs a round trip before the response, more on a mobile link",
                            rule: AuditRuleSources.redirects)
    }

    // MARK: Secrets in URLs

    /// A secret found in a URL: where, and what (never its value).
    struct Secret: Equatable, Sendable {
        var place: String
        var what: String
    }

    static func secrets(_ o: HTTPObservation) -> AuditFinding {
        let id = "url.secrets", title = "no credentials or tokens in URLs"
        var found: [Secret] = []
        for secret in Self.secrets(in: o.url) { found.append(Secret(place: "the URL given", what: secret)) }
        for hop in o.first?.transactionMetrics ?? [] {
            guard let status = hop.response?.statusCode, (300..<400).contains(status), let location = HTTPEvidence.header("Location", in: hop) else { continue }
            for secret in Self.secrets(in: location) {
                found.append(Secret(place: "the Location of the \(status) from \(HTTPEvidence.redactor.redact(url: hop.request.url))", what: secret))
            }
        }
        let evidence = ["URL: \(HTTPEvidence.redactor.redact(url: o.url))"] + chain(o.first) + found.map { "\($0.what) in \($0.place)" }
        if found.isEmpty {
            return AuditFinding(id: id, severity: .pass, title: title, observed: "none in the URL or its redirects", evidence: evidence,
                                client: "nothing secret reaches server, proxy or device logs through a URL", rule: AuditRuleSources.sensitiveURIs)
        }
        return AuditFinding(id: id, severity: .warn, title: title, observed: found.map { "\($0.what) in \($0.place)" }.joined(separator: "; "),
                            evidence: evidence,
                            client: "URLSession and OkHttp send it as any URL: it lands in server and proxy access logs, crash reports and analytics (send tokens in the Authorization header instead)",
                            rule: AuditRuleSources.bearerInURL)
    }

    /// What in `url` looks secret: a user-info (with or without a password), query or fragment
    /// parameters whose name `Redactor` takes for a secret, values shaped like a JWT. Described
    /// by name only.
    static func secrets(in url: String) -> [String] {
        var found: [String] = []
        let text = Substring(url)
        if let schemeEnd = text.range(of: "://") {
            let rest = text[schemeEnd.upperBound...]
            let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
            if let at = authority.lastIndex(of: "@") {
                found.append(authority[..<at].contains(":") ? "a user name and password (user-info)" : "a user-info (user name or token)")
            }
        }
        var parameters: [Substring] = []
        if let mark = text.firstIndex(of: "?") {
            let query = text[text.index(after: mark)...]
            parameters += query[..<(query.firstIndex(of: "#") ?? query.endIndex)].split(whereSeparator: { $0 == "&" || $0 == ";" })
        }
        if let hash = text.firstIndex(of: "#") {
            parameters += text[text.index(after: hash)...].split(whereSeparator: { $0 == "&" || $0 == ";" })
        }
        let redactor = HTTPEvidence.redactor
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            if redactor.isSecret(name: name) {
                found.append("parameter \(name)")
            } else if Self.looksLikeJWT(value) {
                found.append("a JWT-shaped value in parameter \(name)")
            }
        }
        return found
    }

    /// Three base64url parts, the first a JSON object's (`eyJ`): a JSON Web Token (RFC 7519).
    static func looksLikeJWT(_ value: String) -> Bool {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, value.hasPrefix("eyJ"), parts[0].count >= 10, parts[1].count >= 4 else { return false }
        return parts.allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=" } }
    }
}
