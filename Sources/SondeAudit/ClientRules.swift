import SondeCore

/// `tls.clients`: the simulated clients' handshakes (`ClientSimulator`) judged against the target
/// set. `fail` when a targeted client cannot connect (refused, or its certificate policy refuses);
/// `warn` when a targeted client was not answered (timed out, unreachable, not tried); `info`
/// when only clients outside the target set cannot connect; `pass` when every client connects.
/// The reason of each refusal is stated in the client's terms, cross-read with the scan (the
/// accepted versions and suites, the leaf's key). Pure.
enum ClientRules {
    static let ids = ["tls.clients"]

    /// The finding of `clients` (their reasons already `explain`ed).
    static func finding(_ clients: [AuditClientSimulation], targets: ClientTargetSet) -> AuditFinding {
        let explained = clients
        let failing = explained.filter { !$0.connected && $0.outcome != .notTried && $0.outcome != .timedOut && $0.outcome != .unreachable }
        let unanswered = explained.filter { $0.target && [.timedOut, .unreachable, .notTried].contains($0.outcome) }
        let severity: AuditFinding.Severity
        if failing.contains(where: \.target) { severity = .fail } else if !unanswered.isEmpty { severity = .warn }
        else if !failing.isEmpty || explained.contains(where: { !$0.connected }) { severity = .info } else { severity = .pass }
        let connected = explained.filter(\.connected).count
        let targetFailing = failing.filter(\.target)
        let observed: String
        if clients.isEmpty {
            observed = "no client simulated"
        } else if targetFailing.isEmpty {
            observed = "\(connected) of \(clients.count) clients connect; every targeted client (\(targets)) connects"
                + (unanswered.isEmpty ? "" : ", except \(unanswered.map(\.client).joined(separator: ", ")) not answered")
        } else {
            observed = "\(connected) of \(clients.count) clients connect; targeted clients (\(targets)) that cannot: "
                + targetFailing.map(\.client).joined(separator: ", ")
        }
        let client: String
        switch severity {
        case .fail:
            // One clause per distinct reason, naming the clients that give it.
            var order: [String] = []
            var byReason: [String: [String]] = [:]
            for failure in targetFailing {
                let reason = failure.reason ?? "no connection"
                if byReason[reason] == nil { order.append(reason) }
                byReason[reason, default: []].append(failure.client)
            }
            client = order.map { "\(byReason[$0, default: []].joined(separator: ", ")): \($0)" }.joined(separator: "; ")
        case .info: client = "only clients outside the target set (\(targets)) cannot connect: " + explained.filter { !$0.connected }.map(\.client).joined(separator: ", ")
        default: client = "every simulated client connects"
        }
        var finding = AuditFinding(id: "tls.clients", severity: severity,
                                   title: "the handshakes of real iOS and Android clients (their own ClientHellos) succeed",
                                   observed: observed, evidence: explained.map(line), client: client, rule: AuditRuleSources.clientProfiles)
        if severity >= .warn { finding.fix = fix(targetFailing.isEmpty ? unanswered : targetFailing) }
        return finding
    }

    /// "ios-17 (iOS 15.4–18 …): TLSv1.3 TLS_AES_128_GCM_SHA256 x25519 rsa_pss_rsae_sha256, RSA 2048 bits" or "… ✗ reason".
    static func line(_ c: AuditClientSimulation) -> String {
        let mark = c.target ? " [target]" : ""
        if c.connected {
            let parts = [c.version, c.suite, c.group ?? "no forward secrecy", c.signatureScheme, c.leafKey].compactMap { $0 }
            return "\(c.client)\(mark): \(parts.joined(separator: " "))\(c.helloRetry ? " (after a HelloRetryRequest)" : "")"
        }
        return "\(c.client)\(mark): no connection (\(c.outcome.rawValue)): \(c.reason ?? "unknown")"
    }

    /// `simulation` with a reason in the client's terms when the server's alert alone says little.
    static func explain(_ simulation: AuditClientSimulation, scan: TLSScanResult?) -> AuditClientSimulation {
        guard simulation.outcome == .refused, let profile = TLSClientCatalog.profile(simulation.client), let scan else { return simulation }
        var result = simulation
        let alertOrClose = simulation.alert != nil || simulation.reason == "the server closed the connection"
        guard alertOrClose else { return result }
        let offered = Set(profile.versions.compactMap(TLSProtocolVersion.init(code:)))
        let common = scan.acceptedVersions.filter { offered.contains($0) }
        let peer = scan.preferred?.peer
        let keyType = peer?.keyType.uppercased() ?? ""
        if common.isEmpty && !scan.acceptedVersions.isEmpty {
            result.reason = "no protocol version in common: the client offers \(range(profile)), the server accepts "
                + scan.acceptedVersions.map(\.name).joined(separator: ", ")
        } else if keyType.hasPrefix("ED25519") && !profile.signatureSchemes.contains(0x0807) {
            result.reason = "the Ed25519 certificate needs ed25519 signatures, which the client does not offer"
        } else if keyType.hasPrefix("ED448") && !profile.signatureSchemes.contains(0x0808) {
            result.reason = "the Ed448 certificate needs ed448 signatures, which the client does not offer"
        } else if keyType == "EC", let curve = curveCode(peer?.keyGroup ?? ""), !profile.groups.contains(curve.group) || !profile.signatureSchemes.contains(curve.scheme) {
            result.reason = "the ECDSA \(TLSCodePoints.group(curve.group)) certificate needs \(TLSCodePoints.group(curve.group)) (and its ECDSA scheme), which the client does not offer"
        } else if !common.contains(where: { version in (scan.acceptedSuites[version] ?? []).contains { profile.suites.contains($0.code) } }) && scan.acceptedSuites.values.contains(where: { !$0.isEmpty }) {
            var seen = Set<String>()
            let accepted = common.flatMap { scan.acceptedSuites[$0] ?? [] }.map(\.iana).filter { seen.insert($0).inserted }
            result.reason = "no cipher suite in common at \(common.map(\.name).joined(separator: ", ")): the server accepts \(accepted.prefix(6).joined(separator: ", "))"
                + (accepted.count > 6 ? " …" : "")
        } else if common.contains(.tls1_3) {
            result.reason = "no key-exchange group in common at TLS 1.3 (the client offers \(profile.groups.map(TLSCodePoints.group).joined(separator: ", ")), and no FFDHE): the server commits to TLS 1.3 and refuses"
        }
        if let alert = simulation.alert, let reason = result.reason, reason != "alert \(alert)" { result.reason = reason + " (alert \(alert))" }
        return result
    }

    private static func range(_ profile: TLSClientProfile) -> String {
        let low = TLSCodePoints.version(profile.lowestVersion), high = TLSCodePoints.version(profile.highestVersion)
        return low == high ? low : "\(low)–\(high)"
    }

    /// The group and ECDSA scheme of a named curve as OpenSSL names it.
    private static func curveCode(_ name: String) -> (group: UInt16, scheme: UInt16)? {
        switch name.lowercased() {
        case "prime256v1", "secp256r1", "p-256": return (0x0017, 0x0403)
        case "secp384r1", "p-384": return (0x0018, 0x0503)
        case "secp521r1", "p-521": return (0x0019, 0x0603)
        default: return nil
        }
    }

    /// What the operator changes, from the reasons of the clients that fail.
    static func fix(_ failing: [AuditClientSimulation]) -> String {
        let reasons = failing.compactMap(\.reason).joined(separator: " ")
        var lines: [String] = []
        if reasons.contains("Ed25519") || reasons.contains("Ed448") { lines.append("Serve an ECDSA P-256 or RSA 2048 certificate beside (or instead of) the EdDSA one.") }
        if reasons.contains("ECDSA") { lines.append("Serve an ECDSA P-256 certificate (or RSA 2048) for clients that offer no other curve.") }
        if reasons.contains("protocol version") { lines.append("Offer TLS 1.2 as well as TLS 1.3 (nginx: ssl_protocols TLSv1.2 TLSv1.3;).") }
        if reasons.contains("key-exchange group") { lines.append("Offer X25519 and P-256 (nginx: ssl_ecdh_curve X25519:prime256v1:secp384r1;).") }
        if reasons.contains("no cipher suite in common") || reasons.contains("the server chose TLS_") {
            lines.append("Offer ECDHE suites with AES-GCM and ChaCha20 (nginx: ssl_ciphers ECDHE+AESGCM:ECDHE+CHACHA20;).")
        }
        if reasons.contains("refuses the certificate") { lines.append("Reissue with an RSA 2048+ or ECDSA P-256/P-384 key, signed with SHA-256 or better.") }
        if lines.isEmpty { lines.append("Make the server answer these clients' handshakes: offer TLS 1.2 and 1.3 with ECDHE AES-GCM suites, X25519 and P-256, and an RSA 2048 or ECDSA P-256 certificate.") }
        return lines.joined(separator: " ")
    }
}
