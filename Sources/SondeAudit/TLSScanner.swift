import SondeCore

/// Everything the audit learnt of one endpoint's TLS by handshakes alone.
public struct TLSScanResult: Sendable {
    public var endpoint: TLSEndpoint
    /// Why nothing could be learnt (no TCP connection, no TLS), nil when the default handshake completed.
    public var error: String?
    /// What the server accepted per version, oldest first.
    public var offers: [AuditTLSOffer]
    /// The default handshake: every version and suite the client has offered at once, with a GET
    /// of the audited URL (its headers are the HTTP findings' evidence).
    var preferred: HandshakeOutcome?
    /// The same handshake verifying the chain against the CA file (or the default store).
    var verification: HandshakeOutcome?
    /// A handshake asking for a stapled OCSP response.
    var stapling: HandshakeOutcome?
    /// One handshake per version alone.
    var versionOutcomes: [TLSProtocolVersion: HandshakeOutcome]
    /// Accepted suites by version (the catalog's suites).
    var acceptedSuites: [TLSProtocolVersion: [CipherSuite]]
    /// Wall time of the scan (ms) and the handshakes made.
    public var durationMs: Double
    public var handshakes: Int

    /// The versions whose handshake completed.
    public var acceptedVersions: [TLSProtocolVersion] {
        TLSProtocolVersion.allCases.filter { versionOutcomes[$0]?.kind == .completed }
    }
}

/// Probes what a server offers over TLS: each protocol version alone (CURLOPT_SSLVERSION min = max),
/// then, for each accepted version, each cipher suite alone (CURLOPT_SSL_CIPHER_LIST for TLS 1.0–1.2,
/// CURLOPT_TLS13_CIPHERS for TLS 1.3), as `nscurl --ats-diagnostics` and testssl.sh's `-E` do.
///
/// OpenSSL 3's default security level (1; Debian's openssl.cnf and OpenSSL 3.2+ builds: 2) makes the
/// *client* refuse TLS 1.0/1.1, SHA-1 signatures and RSA keys under 2048 bits before the server is
/// asked; every cipher list here ends in `@SECLEVEL=0`, so a refusal is the server's. The client's
/// own verdict on those is `AuditRules`' business, not the handshake's.
///
/// Bounded: each handshake by the endpoint's connect and probe timeouts, the whole scan by
/// `budgetMs` (handshakes not started by then are reported untested), `width` at a time.
public struct TLSScanner: Sendable {
    /// Handshakes at once (1…16).
    public var width: Int
    /// The scan's time budget (ms): no handshake starts after it.
    public var budgetMs: Int

    public init(width: Int = 4, budgetMs: Int = 8_000) {
        self.width = min(max(width, 1), 16)
        self.budgetMs = max(budgetMs, 1)
    }

    /// The cipher list that offers every legacy suite the client has, at security level 0.
    static let everyLegacySuite = "ALL:COMPLEMENTOFALL:@SECLEVEL=0"
    /// Every TLS 1.3 suite (OpenSSL's default leaves the CCM ones out).
    static let everyTLS13Suite = CipherSuiteCatalog.tls13.map(\.openSSL).joined(separator: ":")

    private enum Probe: Sendable {
        case preferred, verification, stapling
        case version(TLSProtocolVersion)
        case suite(CipherSuite, TLSProtocolVersion)

        var request: HandshakeRequest {
            switch self {
            case .preferred:
                return HandshakeRequest(sslVersion: TLSProtocolVersion.tls1_0.curlAtLeast, cipherList: TLSScanner.everyLegacySuite,
                                        tls13Ciphers: TLSScanner.everyTLS13Suite, certificateInfo: true, fetch: true)
            case .verification:
                return HandshakeRequest(sslVersion: TLSProtocolVersion.tls1_0.curlAtLeast, cipherList: TLSScanner.everyLegacySuite,
                                        tls13Ciphers: TLSScanner.everyTLS13Suite, verifyPeer: true)
            case .stapling:
                return HandshakeRequest(sslVersion: TLSProtocolVersion.tls1_0.curlAtLeast, cipherList: TLSScanner.everyLegacySuite,
                                        tls13Ciphers: TLSScanner.everyTLS13Suite, verifyPeer: true, requestStatus: true)
            case .version(let version):
                return HandshakeRequest(sslVersion: version.curlExactly, cipherList: TLSScanner.everyLegacySuite,
                                        tls13Ciphers: version == .tls1_3 ? TLSScanner.everyTLS13Suite : nil)
            case .suite(let suite, let version):
                if version == .tls1_3 {
                    return HandshakeRequest(sslVersion: version.curlExactly, cipherList: TLSScanner.everyLegacySuite, tls13Ciphers: suite.openSSL)
                }
                return HandshakeRequest(sslVersion: version.curlExactly, cipherList: suite.openSSL + ":@SECLEVEL=0")
            }
        }
    }

    /// Scans `endpoint`. Blocks the calling thread (handshakes run on their own threads).
    public func scan(_ endpoint: TLSEndpoint) -> TLSScanResult {
        let started = monotonicMicroseconds()
        let deadline = started + Int64(budgetMs) * 1000
        let first: [Probe] = [.preferred, .verification, .stapling] + TLSProtocolVersion.allCases.map { .version($0) }
        let firstOutcomes = ProbePool.map(first, width: width, deadline: deadline) { TLSHandshake.perform($0.request, to: endpoint) }
        var result = TLSScanResult(endpoint: endpoint, error: nil, offers: [], preferred: firstOutcomes[0], verification: firstOutcomes[1],
                                   stapling: firstOutcomes[2], versionOutcomes: [:], acceptedSuites: [:], durationMs: 0,
                                   handshakes: firstOutcomes.compactMap { $0 }.count)
        for (index, version) in TLSProtocolVersion.allCases.enumerated() {
            if let outcome = firstOutcomes[3 + index] { result.versionOutcomes[version] = outcome }
        }
        if let preferred = result.preferred, preferred.kind != .completed {
            result.error = "no TLS handshake with \(endpoint.host):\(endpoint.port): \(preferred.summary)"
        } else if result.preferred == nil {
            result.error = "the time budget ran out before the first handshake"
        }
        let accepted = result.acceptedVersions
        let suiteProbes: [Probe] = result.error != nil ? [] : accepted.flatMap { version in
            CipherSuiteCatalog.suites(for: version).map { Probe.suite($0, version) }
        }
        let suiteOutcomes = ProbePool.map(suiteProbes, width: width, deadline: deadline) { TLSHandshake.perform($0.request, to: endpoint) }
        result.handshakes += suiteOutcomes.compactMap { $0 }.count
        var untested: [TLSProtocolVersion: [String]] = [:]
        for (probe, outcome) in zip(suiteProbes, suiteOutcomes) {
            guard case .suite(let suite, let version) = probe else { continue }
            switch outcome?.kind {
            case .completed?:
                result.acceptedSuites[version, default: []].append(suite)
            case .refused?:
                break
            default:
                untested[version, default: []].append(suite.iana)
            }
        }
        result.offers = TLSProtocolVersion.allCases.map { version in
            let kind = result.versionOutcomes[version]?.kind
            let accepted: Bool? = kind == .completed ? true : kind == .refused ? false : nil
            return AuditTLSOffer(version: version.name, accepted: accepted,
                                 ciphers: (result.acceptedSuites[version] ?? []).map(\.iana), untested: untested[version] ?? [])
        }
        result.durationMs = Double(monotonicMicroseconds() - started) / 1000
        return result
    }
}
