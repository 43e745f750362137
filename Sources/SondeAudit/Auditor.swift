import Foundation
import SondeCore
import SondeHTTP

/// How an audit runs: the CA file, the bounds, and which findings to keep.
public struct AuditOptions: Sendable {
    /// Verify chains against this PEM file instead of the default store (`--cacert`).
    public var caFile: String?
    /// TCP connect bound of each handshake (ms).
    public var connectTimeoutMs: Int
    /// Bound of each handshake or request (ms, `--timeout`).
    public var probeTimeoutMs: Int
    /// Budget of one target's TLS scan, and apart from it of its HTTP probes, of its redirect hops'
    /// handshakes and of its client-path probes (ms): no handshake or request starts after it, and
    /// a running HTTP probe is stopped.
    public var budgetMs: Int
    /// Handshakes at once.
    public var width: Int
    /// Keep only these finding ids (nil: all).
    public var only: Set<String>?
    /// Leave these finding ids out.
    public var skip: Set<String>
    /// `HOST:PORT:ADDRESS[,ADDRESS]…` entries that replace DNS for that host and port in every
    /// request and handshake of the audit and in the `ipv6` finding's AAAA look-up (libcurl's
    /// CURLOPT_RESOLVE form, as `sonde probe --resolve`); empty: the system resolver.
    public var resolve: [String]
    /// The clients whose failed handshake makes `tls.clients` fail (`--clients`).
    public var clientTargets: ClientTargetSet
    /// `ipv6.app-review`: the most handed-out URLs followed per audited URL (`app-review-urls`).
    public var handedOutLimit: Int
    /// `ipv6.app-review`: hosts on other sites whose handed-out URLs are followed too (`cdn-hosts`:
    /// names, or `*.suffix`).
    public var cdnHosts: [String]
    /// The link the audit runs over (its profile name), set by the run when it entered one; nil
    /// without. Over a link `ipv6.app-review` fetches the handed-out URLs.
    public var link: String?

    /// The default of `handedOutLimit`, and its range.
    public static let defaultHandedOutLimit = 16
    public static let handedOutLimitRange = 0...100

    public init(caFile: String? = nil, connectTimeoutMs: Int = 2_000, probeTimeoutMs: Int = 3_000, budgetMs: Int = 8_000, width: Int = 4,
                only: Set<String>? = nil, skip: Set<String> = [], resolve: [String] = [], clientTargets: ClientTargetSet = .vendorSupported,
                handedOutLimit: Int = AuditOptions.defaultHandedOutLimit, cdnHosts: [String] = [], link: String? = nil) {
        self.caFile = caFile
        self.connectTimeoutMs = connectTimeoutMs
        self.probeTimeoutMs = probeTimeoutMs
        self.budgetMs = budgetMs
        self.width = width
        self.only = only
        self.skip = skip
        self.resolve = resolve
        self.clientTargets = clientTargets
        self.handedOutLimit = handedOutLimit
        self.cdnHosts = cdnHosts
        self.link = link
    }

    /// Every finding id the audit can make, for `--only`/`--skip` checks.
    public static var findingIDs: [String] { AuditRules.ids }

    /// Whether `h3.works` can be tried: the running libcurl has HTTP/3.
    public static var canTryHTTP3: Bool { CurlLibrary.supportsHTTP3 }
}

/// Why a URL cannot be audited (before anything is sent).
public struct AuditURLError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Audits URLs: the HTTP probes (`HTTPProber`: the GET a URLSession client sends, twice, a
/// revalidation, the Alt-Svc move to HTTP/3), then the TLS scan of the https URL reached (the one
/// given, or the one an http URL redirected to; its default handshake GETs that URL for HSTS), the
/// certificates of every https host the redirects went through (`HopCertificateProber`: each chain
/// verified and judged, as a client verifies each hop), then the client-path probes
/// (`IPv6Prober`: AAAA and a GET over IPv6, a body sample; `CoalescingProber`: the certificate's
/// other names on the same address), then the rules, and a fix line on every `warn` and `fail`
/// (`AuditFixes`). The client-path probes share one budget of their own (`budgetMs`), as the HTTP
/// probes, the TLS scan, the hops' handshakes and the client simulation (`ClientSimulator`:
/// each profile's own ClientHello, `tls.clients`) each have theirs.
/// Blocks the calling thread (run it on a dedicated thread from async code).
public struct Auditor: Sendable {
    public var options: AuditOptions

    public init(options: AuditOptions) { self.options = options }

    /// The scheme, host and port of an `http(s)://host[:port]/…` URL; an error for any other
    /// scheme, no host or a port outside 1…65535.
    public static func parse(_ url: String) throws(AuditURLError) -> (scheme: String, host: String, port: Int) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw AuditURLError(description: "\(url) is not a URL")
        }
        guard scheme == "https" || scheme == "http" else {
            throw AuditURLError(description: "\(url): sonde audit checks http and https URLs, not \(scheme)")
        }
        guard var host = components.host, !host.isEmpty else { throw AuditURLError(description: "\(url) has no host") }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // URLComponents gives no port for one that overflows: port text without a port is refused.
        if components.port == nil, let text = portText(url), !text.isEmpty {
            throw AuditURLError(description: "\(url): port \(text.prefix(24)) is not in 1…65535")
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { throw AuditURLError(description: "\(url): port \(port) is not in 1…65535") }
        return (scheme, host, port)
    }

    /// The text after the authority's port colon (`scheme://user@host:PORT/…`), nil without one.
    static func portText(_ url: String) -> Substring? {
        guard let start = url.firstRange(of: "://")?.upperBound else { return nil }
        var authority = url[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let close = authority.lastIndex(of: "]") { authority = authority[authority.index(after: close)...] }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return authority[authority.index(after: colon)...]
    }

    /// The TLS endpoint of an `https://host[:port]/…` URL; an error for any other scheme, no host
    /// or a port outside 1…65535.
    public static func endpoint(of url: String, options: AuditOptions) throws(AuditURLError) -> TLSEndpoint {
        let (scheme, host, port) = try parse(url)
        guard scheme == "https" else { throw AuditURLError(description: "\(url): the TLS checks need an https URL") }
        return TLSEndpoint(host: host, port: port, caFile: options.caFile, connectTimeoutMs: options.connectTimeoutMs,
                           probeTimeoutMs: options.probeTimeoutMs, url: url, resolve: options.resolve)
    }

    public func audit(_ url: String) -> AuditTarget {
        let started = monotonicMicroseconds()
        // The report shows the URL without its secrets (url.secrets names them).
        let shown = HTTPEvidence.redactor.redact(url: url)
        let parsed: (scheme: String, host: String, port: Int)
        do { parsed = try Self.parse(url) } catch { return AuditTarget(url: shown, host: "", port: 0, error: error.description) }
        var target = AuditTarget(url: shown, host: parsed.host, port: parsed.port)
        let httpIDs = RedirectRules.ids + HTTPRules.ids + Self.clientPathIDs
        var observation: HTTPObservation? = nil
        if parsed.scheme == "http" || httpIDs.contains(where: keeps) {
            observation = HTTPProber(options: options).observe(url, caching: keeps("http.caching"), http3: keeps("h3.works"))
        }
        // The TLS checks run on the https URL a client ends up on: the one given, or the one an
        // http URL redirected to.
        let finalURL = observation?.finalURL ?? url
        let tlsURL = parsed.scheme == "https" ? url : finalURL.lowercased().hasPrefix("https://") ? finalURL : nil
        var findings: [AuditFinding] = []
        var leaf: LeafCertificate? = nil
        var scanned: (host: String, port: Int)? = nil
        if let tlsURL {
            do throws(AuditURLError) {
                let endpoint = try Self.endpoint(of: tlsURL, options: options)
                scanned = (endpoint.host, endpoint.port)
                let scan = TLSScanner(width: options.width, budgetMs: options.budgetMs).scan(endpoint)
                target.error = scan.error
                target.offers = scan.offers
                target.suites = Self.suites(scan)
                if scan.error == nil {
                    let lines = scan.preferred?.certificates ?? []
                    leaf = lines.first.flatMap { LeafCertificate(certinfo: $0) }
                    let site = CertificateSite(host: endpoint.host, port: endpoint.port,
                                               reached: parsed.scheme == "https" ? "the URL audited" : "the https URL the redirects lead to",
                                               chain: ServedChain(certinfo: lines), leaf: leaf, peer: scan.preferred?.peer,
                                               verification: scan.verification)
                    // Every other https host the redirects went through: a client verifies each.
                    let hops = observation.map {
                        HopCertificateProber(options: options).sites($0, excluding: (endpoint.host, endpoint.port),
                                                                     deadline: monotonicMicroseconds() + Int64(options.budgetMs) * 1000)
                    } ?? []
                    let evidence = AuditEvidence(host: endpoint.host, scan: scan, sites: [site] + hops, now: Date(),
                                                 privateTrust: options.caFile != nil)
                    target.keyExchangeGroup = scan.preferred?.peer.flatMap { $0.group.isEmpty ? nil : $0.group }
                    target.certificates = CertificateInfoParser.parse(lines)
                    findings += AuditRules.findings(evidence)
                    if keeps("tls.clients") {
                        target.clients = ClientSimulator(width: options.width, budgetMs: options.budgetMs)
                            .simulate(TLSClientCatalog.all, endpoint: endpoint, targets: options.clientTargets)
                            .map { ClientRules.explain($0, scan: scan) }
                        // In report order: after the TLS findings, before the certificate ones.
                        findings.insert(ClientRules.finding(target.clients, targets: options.clientTargets),
                                        at: min(findings.count, AuditRules.tlsIDs.count))
                    }
                }
            } catch {
                target.error = error.description
            }
        } else if let observation, observation.final?.response == nil {
            target.error = "no HTTP response from \(shown): \(observation.error ?? observation.first?.error?.message ?? "nothing received")"
        }
        if target.error == nil, let observation {
            findings += RedirectRules.findings(observation) + HTTPRules.findings(observation)
            findings += clientPathFindings(url, observation, leaf: leaf, scanned: scanned, target: &target)
        } else if let observation, keeps(AppReviewRules.ids[0]),
                  observation.first?.transactionMetrics.contains(where: { $0.response != nil }) == true {
            // A redirect answered but its target did not (an IPv4 literal on an IPv6-only
            // network): the URL is not audited, and ipv6.app-review says why.
            findings.append(appReviewFinding(url, observation, body: nil, target: &target))
        }
        target.findings = findings.filter { keeps($0.id) }.map(AuditFixes.adding(to:))
        target.requests = observation?.requestCosts ?? []
        target.durationMs = Double(monotonicMicroseconds() - started) / 1000
        return target
    }

    /// Every suite `scan` found accepted, once, with its facts and versions, in the catalog's order.
    static func suites(_ scan: TLSScanResult) -> [AuditCipherSuite] {
        var result: [AuditCipherSuite] = []
        for suite in CipherSuiteCatalog.tls13 + CipherSuiteCatalog.legacy {
            let versions = TLSProtocolVersion.allCases.filter { scan.acceptedSuites[$0]?.contains(suite) == true }
            guard !versions.isEmpty else { continue }
            result.append(AuditCipherSuite(name: suite.iana, code: Int(suite.code), keyExchange: suite.keyExchange.rawValue,
                                           encryption: suite.encryption, forwardSecret: suite.forwardSecret, atsListed: suite.atsListed,
                                           versions: versions.map(\.name)))
        }
        return result
    }

    /// The findings of the client-path probes and of the responses already seen, in report order.
    static let clientPathIDs = PayloadRules.ids + CoalescingRules.ids + RetryAfterRules.ids + IPv6Rules.ids + AppReviewRules.ids

    /// `http.payload-size`, `http.coalescing`, `retry-after` and `ipv6` for one URL: the probes
    /// they need (only for the ids kept), under one deadline, then the rules; then
    /// `ipv6.app-review` under a budget of its own (it sets `target.appReview`).
    private func clientPathFindings(_ url: String, _ observation: HTTPObservation, leaf: LeafCertificate?,
                                    scanned: (host: String, port: Int)?, target: inout AuditTarget) -> [AuditFinding] {
        let deadline = monotonicMicroseconds() + Int64(options.budgetMs) * 1000
        var findings: [AuditFinding] = [PayloadRules.finding(observation)]
        var responses: [(label: String, transaction: TransactionMetrics)] = []
        for hop in observation.first?.transactionMetrics ?? [] { responses.append(("the GET", hop)) }
        for hop in observation.second?.transactionMetrics ?? [] { responses.append(("the second GET", hop)) }
        for hop in observation.conditional?.transactionMetrics ?? [] { responses.append(("the revalidation", hop)) }
        for task in observation.h3 ?? [] { for hop in task.transactionMetrics { responses.append(("the HTTP/3 move", hop)) } }
        let coalescing = keeps("http.coalescing")
            ? CoalescingProber(options: options).observe(finalURL: observation.finalURL, connection: observation.final, leaf: leaf,
                                                         scanned: scanned, deadline: deadline)
            : CoalescingObservation(connection: observation.final, notProbed: "skipped")
        findings.append(CoalescingRules.finding(coalescing))
        for candidate in coalescing.candidates {
            for hop in candidate.request?.transactionMetrics ?? [] { responses.append(("the request for \(candidate.name)", hop)) }
        }
        let ipv6 = keeps("ipv6") ? IPv6Prober(options: options).observe(url, http: observation, deadline: deadline) : IPv6Observation()
        for host in ipv6.hosts {
            for hop in host.connect?.transactionMetrics ?? [] { responses.append(("the GET over IPv6", hop)) }
        }
        findings.append(RetryAfterRules.finding(responses))
        findings.append(IPv6Rules.finding(given: url, http: observation, probes: ipv6))
        if keeps(AppReviewRules.ids[0]) {
            findings.append(appReviewFinding(url, observation, body: ipv6.body, target: &target))
        }
        return findings
    }

    /// `ipv6.app-review`: the URLs the audit's GET and the final body hand out (the body sampled
    /// here unless `body` is the `ipv6` finding's), looked up and, on an IPv6-only network or over
    /// a link, fetched (`AppReviewProber`), under a budget of its own (`budgetMs`).
    private func appReviewFinding(_ url: String, _ observation: HTTPObservation, body: BodySample.Result?, target: inout AuditTarget) -> AuditFinding {
        let deadline = monotonicMicroseconds() + Int64(options.budgetMs) * 1000
        var sample = body
        if sample == nil, observation.final?.response != nil {
            sample = BodySample.fetch(observation.finalURL, options: options)
        }
        let review = AppReviewRules.judge(AppReviewProber(options: options).observe(url, http: observation, body: sample, deadline: deadline))
        target.appReview = review
        return AppReviewRules.finding(review)
    }

    private func keeps(_ id: String) -> Bool {
        if let only = options.only, !only.contains(id) { return false }
        return !options.skip.contains(id)
    }
}
