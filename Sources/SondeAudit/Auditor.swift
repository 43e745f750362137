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
    /// Budget of one target's TLS scan (ms): no handshake starts after it.
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
}

/// Why a URL cannot be audited (before anything is sent).
public struct AuditURLError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Audits URLs: the TLS scan (whose default handshake GETs the URL for its headers), the leaf
/// certificate, then the rules.
/// Blocks the calling thread (run it on a dedicated thread from async code).
public struct Auditor: Sendable {
    public var options: AuditOptions

    public init(options: AuditOptions) { self.options = options }

    /// The endpoint of an `https://host[:port]/…` URL; an error for any other scheme, no host or a
    /// port outside 1…65535.
    public static func endpoint(of url: String, options: AuditOptions) throws(AuditURLError) -> TLSEndpoint {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw AuditURLError(description: "\(url) is not a URL")
        }
        guard scheme == "https" else { throw AuditURLError(description: "\(url): sonde audit checks TLS and needs an https URL") }
        guard var host = components.host, !host.isEmpty else { throw AuditURLError(description: "\(url) has no host") }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 443
        guard (1...65535).contains(port) else { throw AuditURLError(description: "\(url): port \(port) is not in 1…65535") }
        return TLSEndpoint(host: host, port: port, caFile: options.caFile, connectTimeoutMs: options.connectTimeoutMs,
                           probeTimeoutMs: options.probeTimeoutMs, url: url)
    }

    public func audit(_ url: String) -> AuditTarget {
        let started = monotonicMicroseconds()
        let endpoint: TLSEndpoint
        do {
            endpoint = try Self.endpoint(of: url, options: options)
        } catch {
            return AuditTarget(url: url, host: "", port: 0, error: error.description)
        }
        let scan = TLSScanner(width: options.width, budgetMs: options.budgetMs).scan(endpoint)
        var target = AuditTarget(url: url, host: endpoint.host, port: endpoint.port, error: scan.error, offers: scan.offers)
        if scan.error == nil {
            let lines = scan.preferred?.certificates ?? []
            let chain = CertificateInfoParser.parse(lines)
            let evidence = AuditEvidence(host: endpoint.host, scan: scan, leaf: lines.first.flatMap { LeafCertificate(certinfo: $0) }, chain: chain,
                                         now: Date(), privateTrust: options.caFile != nil)
            target.keyExchangeGroup = scan.preferred?.peer.flatMap { $0.group.isEmpty ? nil : $0.group }
            target.certificates = chain
            target.findings = AuditRules.findings(evidence).filter(keep)
        }
        target.durationMs = Double(monotonicMicroseconds() - started) / 1000
        return target
    }

    private func keep(_ finding: AuditFinding) -> Bool {
        if let only = options.only, !only.contains(finding.id) { return false }
        return !options.skip.contains(finding.id)
    }
}
