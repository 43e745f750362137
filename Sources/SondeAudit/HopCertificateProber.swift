import Foundation
import SondeCore

/// Reads the certificates of every https host the audited URL's redirects went through, other than
/// the one the TLS scan ran on (and the final host among them): per host one handshake collecting
/// the served chain (CURLOPT_CERTINFO) and one verifying it against the CA file or the default
/// store, as URLSession and `curl -L` verify the certificate of every hop they follow. The HTTP
/// probes themselves do not verify (`HTTPProber`), so this is where a hop's certificate is judged.
///
/// Bounded: at most `maxHosts` hosts, two handshakes each (each by the connect and probe
/// timeouts), `width` at a time; none starts after `deadline` (monotonic µs). Blocks the calling thread.
struct HopCertificateProber: Sendable {
    var options: AuditOptions
    /// The most hosts checked (a redirect chain has at most `HTTPProber.maxRedirects` + 1 hops).
    static let maxHosts = 11

    /// The https hosts of `observation`'s first GET, in the order first reached, without `scanned`:
    /// each with the hop that first reached it (0: the URL given).
    static func hosts(_ observation: HTTPObservation, excluding scanned: (host: String, port: Int)?) -> [(hop: Int, url: String, host: String, port: Int)] {
        var result: [(hop: Int, url: String, host: String, port: Int)] = []
        for (index, hop) in (observation.first?.transactionMetrics ?? []).enumerated() {
            guard let parsed = try? Auditor.parse(hop.request.url), parsed.scheme == "https" else { continue }
            let same = { (host: String, port: Int) in host.caseInsensitiveCompare(parsed.host) == .orderedSame && port == parsed.port }
            if let scanned, same(scanned.host, scanned.port) { continue }
            if result.contains(where: { same($0.host, $0.port) }) { continue }
            result.append((index, hop.request.url, parsed.host, parsed.port))
        }
        return Array(result.prefix(maxHosts))
    }

    func sites(_ observation: HTTPObservation, excluding scanned: (host: String, port: Int)?, deadline: Int64) -> [CertificateSite] {
        let hosts = Self.hosts(observation, excluding: scanned)
        guard !hosts.isEmpty else { return [] }
        let chainRequest = HandshakeRequest(sslVersion: TLSProtocolVersion.tls1_0.curlAtLeast, cipherList: TLSScanner.everyLegacySuite,
                                            tls13Ciphers: TLSScanner.everyTLS13Suite, certificateInfo: true)
        let verifyRequest = HandshakeRequest(sslVersion: TLSProtocolVersion.tls1_0.curlAtLeast, cipherList: TLSScanner.everyLegacySuite,
                                             tls13Ciphers: TLSScanner.everyTLS13Suite, verifyPeer: true)
        let endpoints = hosts.map { TLSEndpoint(host: $0.host, port: $0.port, caFile: options.caFile, connectTimeoutMs: options.connectTimeoutMs,
                                                probeTimeoutMs: options.probeTimeoutMs, url: $0.url, resolve: options.resolve) }
        let work = endpoints.flatMap { [($0, chainRequest), ($0, verifyRequest)] }
        let outcomes = ProbePool.map(work, width: options.width, deadline: deadline) { TLSHandshake.perform($0.1, to: $0.0) }
        return hosts.enumerated().map { index, host in
            let served = outcomes[2 * index]
            let verification = outcomes[2 * index + 1]
            var site = CertificateSite(host: host.host, port: host.port, reached: host.hop == 0 ? "the URL audited" : "redirect hop \(host.hop)",
                                       chain: ServedChain(certinfo: served?.certificates ?? []),
                                       leaf: served?.certificates.first.flatMap { LeafCertificate(certinfo: $0) }, peer: nil,
                                       verification: verification)
            if let served, served.kind != .completed {
                site.error = "no TLS handshake with \(site.authority): \(served.summary)"
            } else if served == nil {
                site.notChecked = "the audit's time budget ran out before its handshakes"
            }
            return site
        }
    }
}
