import Foundation
import SondeCore
import SondeHTTP

/// How an audit runs: the CA file, the bounds, and which findings to keep.
public struct AuditOptions: Sendable {
    /// Verify chains against this PEM file instead of the default store (`--cacert`).
    public var caFile: String?
    /// TCP connect bound of each handshake (ms).
    public var connectTimeoutMs: Int
    /// Bound of each handshake or request (ms).
    public var probeTimeoutMs: Int
    /// Budget of one target's TLS scan, and apart from it of its HTTP probes (ms): no handshake or
    /// request starts after it, and a running HTTP probe is stopped.
    public var budgetMs: Int
    /// Handshakes at once.
    public var width: Int
    /// Keep only these finding ids (nil: all).
    public var only: Set<String>?
    /// Leave these finding ids out.
    public var skip: Set<String>

    public init(caFile: String? = nil, connectTimeoutMs: Int = 2_000, probeTimeoutMs: Int = 3_000, budgetMs: Int = 8_000, width: Int = 4,
                only: Set<String>? = nil, skip: Set<String> = []) {
        self.caFile = caFile
        self.connectTimeoutMs = connectTimeoutMs
        self.probeTimeoutMs = probeTimeoutMs
        self.budgetMs = budgetMs
        self.width = width
        self.only = only
        self.skip = skip
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
/// leaf certificate, then the rules.
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
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { throw AuditURLError(description: "\(url): port \(port) is not in 1…65535") }
        return (scheme, host, port)
    }

    /// The TLS endpoint of an `https://host[:port]/…` URL; an error for any other scheme, no host
    /// or a port outside 1…65535.
    public static func endpoint(of url: String, options: AuditOptions) throws(AuditURLError) -> TLSEndpoint {
        let (scheme, host, port) = try parse(url)
        guard scheme == "https" else { throw AuditURLError(description: "\(url): the TLS checks need an https URL") }
        return TLSEndpoint(host: host, port: port, caFile: options.caFile, connectTimeoutMs: options.connectTimeoutMs,
                           probeTimeoutMs: options.probeTimeoutMs, url: url)
    }

    public func audit(_ url: String) -> AuditTarget {
        let started = monotonicMicroseconds()
        // The report shows the URL without its secrets (url.secrets names them).
        let shown = HTTPEvidence.redactor.redact(url: url)
        let parsed: (scheme: String, host: String, port: Int)
        do { parsed = try Self.parse(url) } catch { return AuditTarget(url: shown, host: "", port: 0, error: error.description) }
        var target = AuditTarget(url: shown, host: parsed.host, port: parsed.port)
        let httpIDs = RedirectRules.ids + HTTPRules.ids
        var observation: HTTPObservation? = nil
        if parsed.scheme == "http" || httpIDs.contains(where: keeps) {
            observation = HTTPProber(options: options).observe(url, caching: keeps("http.caching"), http3: keeps("h3.works"))
        }
        // The TLS checks run on the https URL a client ends up on: the one given, or the one an
        // http URL redirected to.
        let finalURL = observation?.finalURL ?? url
        let tlsURL = parsed.scheme == "https" ? url : finalURL.lowercased().hasPrefix("https://") ? finalURL : nil
        var findings: [AuditFinding] = []
        if let tlsURL {
            do throws(AuditURLError) {
                let endpoint = try Self.endpoint(of: tlsURL, options: options)
                let scan = TLSScanner(width: options.width, budgetMs: options.budgetMs).scan(endpoint)
                target.error = scan.error
                target.offers = scan.offers
                if scan.error == nil {
                    let lines = scan.preferred?.certificates ?? []
                    let chain = CertificateInfoParser.parse(lines)
                    let evidence = AuditEvidence(host: endpoint.host, scan: scan, leaf: lines.first.flatMap { LeafCertificate(certinfo: $0) },
                                                 chain: chain, now: Date(), privateTrust: options.caFile != nil)
                    target.keyExchangeGroup = scan.preferred?.peer.flatMap { $0.group.isEmpty ? nil : $0.group }
                    target.certificates = chain
                    findings += AuditRules.findings(evidence)
                }
            } catch {
                target.error = error.description
            }
        } else if let observation, observation.final?.response == nil {
            target.error = "no HTTP response from \(shown): \(observation.error ?? observation.first?.error?.message ?? "nothing received")"
        }
        if target.error == nil, let observation {
            findings += RedirectRules.findings(observation) + HTTPRules.findings(observation)
        }
        target.findings = findings.filter { keeps($0.id) }
        target.requests = observation?.requestCosts ?? []
        target.durationMs = Double(monotonicMicroseconds() - started) / 1000
        return target
    }

    private func keeps(_ id: String) -> Bool {
        if let only = options.only, !only.contains(id) { return false }
        return !options.skip.contains(id)
    }
}
