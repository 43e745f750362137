import Foundation
import SondeCore

/// One https host whose certificates the audit read: the one the TLS scan ran on, and every other
/// host a redirect took the client through (each checked as a client meets it: URLSession and
/// `curl -L` verify every hop's certificate, not only the first).
struct CertificateSite: Sendable {
    var host: String
    var port: Int
    /// How the client got there ("the URL audited", "redirect hop 2").
    var reached: String
    /// The certificates served, in the order served.
    var chain: ServedChain
    /// The leaf's names, EKU, validity and SCTs; nil when not read.
    var leaf: LeafCertificate?
    /// The handshake's own view of the leaf (OpenSSL's, `PeerFacts`), when read.
    var peer: PeerFacts?
    /// The handshake verifying the chain against the CA file or the default store; nil when not made.
    var verification: HandshakeOutcome?
    /// Why no certificate could be read (no handshake), nil when they were.
    var error: String?
    /// Why the host was not checked (the time budget), nil when it was.
    var notChecked: String?

    /// "host:port" (an IPv6 literal in brackets).
    var authority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
}

/// Apple's certificate rules (App Transport Security, the iOS 13 requirements, the 398-day
/// limit, the CT policy) over every certificate of every https host a client reaches: the chain
/// verifies and is sent in order, every certificate's key and signature (the leaf and the CAs
/// that issued it, `CertificatePolicy`), the host in the leaf's SAN, its EKU, validity and SCTs,
/// and every served certificate's dates. Pure: the same sites give the same findings (the clock is
/// `now`). With several sites each finding is their worst, and says which host each line is of.
enum CertificateRules {
    static let ids = ["cert.chain", "cert.chain-order", "cert.key-size", "cert.signature", "cert.san", "cert.eku", "cert.validity",
                      "cert.expiry", "cert.ct"]

    /// One site's judgement of one rule.
    struct Verdict {
        var severity: AuditFinding.Severity
        var observed: String
        var evidence: [String] = []
        var client: String = ""
        var rule: String? = nil
    }

    static func findings(_ sites: [CertificateSite], policy: CertificatePolicy = .ats, privateTrust: Bool, now: Date) -> [AuditFinding] {
        let store = privateTrust ? "the CA file given" : "the default trust store"
        return [
            combine("cert.chain", "a complete chain that verifies, on every https host reached", sites) { chain($0, store: store, privateTrust: privateTrust) },
            combine("cert.chain-order", "the chain sent in order (leaf, then each issuer), nothing extra", sites, chainOrder),
            combine("cert.key-size", "RSA ≥ 2048 bits or ECC ≥ 256 bits in every certificate of the chain", sites) { keys($0, policy: policy) },
            combine("cert.signature", "every certificate of the chain signed with SHA-256 or better", sites) { signatures($0, policy: policy) },
            combine("cert.san", "the host in the subjectAltName, on every https host reached", sites) { site in san(site) },
            combine("cert.eku", "serverAuth in the extended key usage", sites) { site in eku(site) },
            combine("cert.validity", "validity of at most 398 days", sites) { validity($0, privateTrust: privateTrust) },
            combine("cert.expiry", "every served certificate within its validity", sites) { expiry($0, now: now) },
            combine("cert.ct", "embedded SCTs as Apple's CT policy asks", sites) { ct($0, privateTrust: privateTrust) },
        ]
    }

    private static let atsClient = "URLSession under App Transport Security"

    /// One finding from each site's verdict: the worst severity; with several sites each observation
    /// and evidence line names its host.
    static func combine(_ id: String, _ title: String, _ sites: [CertificateSite], _ judge: (CertificateSite) -> Verdict) -> AuditFinding {
        let verdicts = sites.map { site -> Verdict in
            if let error = site.error { return Verdict(severity: .fail, observed: "no certificate read: \(error)", client: "\(atsClient) cannot connect") }
            if let why = site.notChecked { return Verdict(severity: .warn, observed: "not checked: \(why)") }
            return judge(site)
        }
        guard let worst = verdicts.max(by: { $0.severity < $1.severity }) else {
            return AuditFinding(id: id, severity: .warn, title: title, observed: "no https host to check", client: "")
        }
        if sites.count == 1 {
            return AuditFinding(id: id, severity: worst.severity, title: title, observed: worst.observed, evidence: worst.evidence,
                                client: worst.client, rule: worst.rule)
        }
        let observed = zip(sites, verdicts).map { "\($0.authority) (\($0.reached)): \($1.observed)" }.joined(separator: "; ")
        let evidence = zip(sites, verdicts).flatMap { site, verdict in verdict.evidence.map { "\(site.authority): \($0)" } }
        return AuditFinding(id: id, severity: worst.severity, title: title, observed: observed, evidence: evidence,
                            client: worst.client, rule: worst.rule)
    }

    // MARK: The chain

    static func chain(_ site: CertificateSite, store: String, privateTrust: Bool) -> Verdict {
        guard let outcome = site.verification else {
            return Verdict(severity: .warn, observed: "not tried (time budget)")
        }
        let served = site.chain.certificates.map { "served: \($0.label) (issuer \($0.issuer))" }
        let androidNote = privateTrust ? "; Android apps targeting API 24+ trust only system CAs unless their network security config names this CA" : ""
        switch outcome.kind {
        case .completed:
            return Verdict(severity: .pass, observed: "\(site.chain.certificates.count) certificate(s) served, verified against \(store)", evidence: served,
                           client: "URLSession trusts it" + androidNote, rule: privateTrust ? AuditRuleSources.androidTrust : AuditRuleSources.ats)
        case .unverified:
            let leafOnly = site.chain.certificates.count == 1 && !(site.chain.certificates.first?.selfIssued ?? true)
            let missing = leafOnly && [20, 21].contains(outcome.verifyResult)
            let observed = missing
                ? "only the leaf was served and its issuer is not in \(store): intermediate missing (X509 error \(outcome.verifyResult): \(outcome.detail))"
                : "does not verify against \(store) (X509 error \(outcome.verifyResult): \(outcome.detail))"
            return Verdict(severity: .fail, observed: observed, evidence: served + [outcome.summary],
                           client: "\(atsClient) and Android refuse the server (a chain that does not build to a trusted root)", rule: AuditRuleSources.ats)
        default:
            return Verdict(severity: .warn, observed: "not known: \(outcome.summary)", evidence: served)
        }
    }

    static func chainOrder(_ site: CertificateSite) -> Verdict {
        let chain = site.chain
        guard !chain.certificates.isEmpty else { return Verdict(severity: .warn, observed: "no certificate read") }
        let extras = chain.extras
        let order = chain.certificates.map { "#\($0.index + 1)" }.joined(separator: ", ")
        let pathText = chain.path.map { "#\($0 + 1)" }.joined(separator: " → ")
        var evidence = chain.lines
        evidence.append("sent: \(order); the path from the leaf: \(pathText)")
        let client = "URLSession and Android build the path from what was sent and accept it; a TLS 1.2 stack that follows RFC 5246 §7.4.2 to the letter (\"each following certificate MUST directly certify the one preceding it\") may refuse it"
        if !chain.inOrder || !extras.isEmpty {
            var problems: [String] = []
            if !chain.inOrder { problems.append("sent out of order (\(order); the path from the leaf is \(pathText))") }
            if !extras.isEmpty {
                problems.append("\(extras.count) certificate\(extras.count == 1 ? "" : "s") sent that issue\(extras.count == 1 ? "s" : "") none of the others: "
                                + extras.map(\.label).joined(separator: ", "))
            }
            return Verdict(severity: .warn, observed: problems.joined(separator: "; "), evidence: evidence, client: client, rule: AuditRuleSources.certificateOrder)
        }
        if chain.rootSent, let root = chain.path.last {
            return Verdict(severity: .info, observed: "in order; the root (\(chain.certificates[root].label)) is sent too: clients have it already, its bytes are sent on every handshake",
                           evidence: evidence, client: "clients ignore the sent root and use their own", rule: AuditRuleSources.certificateOrder)
        }
        if chain.certificates.count == 1 {
            return Verdict(severity: .pass, observed: "the leaf alone (cert.chain judges whether its issuer was needed)", evidence: evidence,
                           client: "nothing to order", rule: AuditRuleSources.certificateOrder)
        }
        return Verdict(severity: .pass, observed: "\(chain.certificates.count) certificates in order, each issued by the next",
                       evidence: evidence, client: "every client builds the path as sent", rule: AuditRuleSources.certificateOrder)
    }

    // MARK: Every certificate's key and signature

    static func keys(_ site: CertificateSite, policy: CertificatePolicy) -> Verdict {
        let certificates = site.chain.certificates
        guard !certificates.isEmpty else { return Verdict(severity: .warn, observed: "no certificate read") }
        var refused: [String] = []
        var unread: [String] = []
        var evidence: [String] = []
        for certificate in certificates {
            let role = certificate.index == 0 ? "leaf" : site.chain.isIssuer(certificate.index) ? "issuing CA" : "sent, not on the path"
            guard let key = certificate.key else {
                unread.append(certificate.label)
                evidence.append("\(certificate.label) (\(role)): key not read")
                continue
            }
            evidence.append("\(certificate.label) (\(role)): \(key.description)")
            if let why = policy.refusal(of: key), certificate.index == 0 || site.chain.isIssuer(certificate.index) {
                refused.append("\(certificate.label) (\(role)): \(why)")
            }
        }
        if let peer = site.peer, !peer.keyType.isEmpty {
            evidence.append("leaf key from the handshake: \(peer.keyType) \(peer.keyBits)" + (peer.keyGroup.isEmpty ? "" : " (\(peer.keyGroup))"))
        }
        if !refused.isEmpty {
            let caOnly = !refused.contains { $0.hasPrefix("#1 ") }
            return Verdict(severity: .fail, observed: refused.joined(separator: "; "), evidence: evidence,
                           client: "\(policy.client) refuses the certificate (its rule covers TLS server certificates and the CAs that issue them; curl refuses such a chain too: \(caOnly ? "\"CA certificate key too weak\"" : "\"EE certificate key too weak\""))",
                           rule: policy.source)
        }
        if !unread.isEmpty {
            return Verdict(severity: .warn, observed: "key not read in " + unread.joined(separator: ", "), evidence: evidence, client: "")
        }
        return Verdict(severity: .pass, observed: certificates.map { "\($0.label): \($0.key?.description ?? "")" }.joined(separator: "; "),
                       evidence: evidence, client: "\(policy.client) accepts the keys", rule: policy.source)
    }

    static func signatures(_ site: CertificateSite, policy: CertificatePolicy) -> Verdict {
        let certificates = site.chain.certificates
        guard !certificates.isEmpty else { return Verdict(severity: .warn, observed: "no certificate read") }
        var refused: [String] = []
        var unread: [String] = []
        var evidence: [String] = []
        var judged: [String] = []
        for certificate in certificates {
            guard let signature = certificate.signature else {
                unread.append(certificate.label)
                evidence.append("\(certificate.label): signature algorithm not read")
                continue
            }
            if certificate.selfIssued {
                evidence.append("\(certificate.label): \(signature.name) (self-issued: its own signature is not judged)")
                continue
            }
            evidence.append("\(certificate.label): \(signature.name)" + (signature.digest.map { " (digest \($0))" } ?? ""))
            judged.append("\(certificate.label): \(signature.name)")
            if let why = policy.refusal(of: signature), certificate.index == 0 || site.chain.isIssuer(certificate.index) {
                refused.append("\(certificate.label) (\(certificate.index == 0 ? "leaf" : "issuing CA")): \(why)")
            }
        }
        if let peer = site.peer, !peer.signature.isEmpty { evidence.append("leaf signature from the handshake: \(peer.signature)") }
        if !refused.isEmpty {
            let caOnly = !refused.contains { $0.hasPrefix("#1 ") }
            return Verdict(severity: .fail, observed: refused.joined(separator: "; "), evidence: evidence,
                           client: "\(policy.client) refuses the certificate (SHA-1 signed certificates are not trusted since iOS 13; curl refuses such a chain too: \(caOnly ? "\"CA signature digest algorithm too weak\"" : "\"EE certificate signature digest too weak\""))",
                           rule: AuditRuleSources.iOS13Certificates)
        }
        if !unread.isEmpty {
            return Verdict(severity: .warn, observed: "signature algorithm not read in " + unread.joined(separator: ", "), evidence: evidence, client: "")
        }
        return Verdict(severity: .pass, observed: judged.isEmpty ? "no signature to judge (self-issued only)" : judged.joined(separator: "; "),
                       evidence: evidence, client: "\(policy.client) accepts the signatures", rule: AuditRuleSources.iOS13Certificates)
    }

    // MARK: The leaf

    static func san(_ site: CertificateSite) -> Verdict {
        guard let leaf = site.leaf else { return Verdict(severity: .warn, observed: "the leaf certificate was not read") }
        let host = site.host.lowercased()
        let isIP = HostResolver.kind(of: host) != .name
        var entries = (leaf.dnsNames ?? []).map { "DNS \($0)" }
        entries += (leaf.ipAddresses ?? []).map { "IP \($0)" }
        let names = entries.isEmpty ? "empty" : entries.joined(separator: ", ")
        let hasSAN = leaf.dnsNames != nil || leaf.ipAddresses != nil
        let commonNames = leaf.commonNames.isEmpty ? "none" : leaf.commonNames.joined(separator: ", ")
        let evidence = ["subject CN: " + commonNames, "subjectAltName: " + (hasSAN ? names : "absent"), "read with \(leaf.source)"]
        guard hasSAN else {
            return Verdict(severity: .fail, observed: "no subjectAltName; CN only (\(commonNames))", evidence: evidence,
                           client: "\(atsClient) refuses the certificate (a name in the CommonName is not trusted since iOS 13)",
                           rule: AuditRuleSources.iOS13Certificates)
        }
        let matched = isIP ? (leaf.ipAddresses ?? []).contains { HostResolver.sameAddress($0, host) }
                           : (leaf.dnsNames ?? []).contains { matches(pattern: $0.lowercased(), host: host) }
        return Verdict(severity: matched ? .pass : .fail,
                       observed: matched ? "\(site.host) is in the subjectAltName" : "\(site.host) is not in the subjectAltName (\(names))",
                       evidence: evidence,
                       client: matched ? "\(atsClient) accepts the name"
                           : "\(atsClient) and Android refuse the certificate for \(site.host) (curl -L: \"no alternative certificate subject name matches target host name\")",
                       rule: AuditRuleSources.iOS13Certificates)
    }

    /// RFC 6125 §6.4.3, as clients apply it: a wildcard only as the whole left-most label.
    static func matches(pattern: String, host: String) -> Bool {
        guard pattern.hasPrefix("*.") else { return pattern == host }
        guard let dot = host.firstIndex(of: ".") else { return false }
        return host[dot...] == pattern.dropFirst(1) && host[..<dot].count > 0
    }

    static func eku(_ site: CertificateSite) -> Verdict {
        guard let leaf = site.leaf else { return Verdict(severity: .warn, observed: "the leaf certificate was not read") }
        let observed = !leaf.hasExtendedKeyUsage ? "no extendedKeyUsage extension" : leaf.serverAuth ? "serverAuth present" : "extendedKeyUsage without serverAuth"
        return Verdict(severity: leaf.serverAuth ? .pass : .fail, observed: observed,
                       client: leaf.serverAuth ? "\(atsClient) accepts it" : "\(atsClient) refuses certificates issued after 2019-07-01 without serverAuth",
                       rule: AuditRuleSources.iOS13Certificates)
    }

    static func validity(_ site: CertificateSite, privateTrust: Bool) -> Verdict {
        guard let leaf = site.leaf else { return Verdict(severity: .warn, observed: "the leaf certificate was not read") }
        guard let days = leaf.validityDays else { return Verdict(severity: .warn, observed: "dates not read") }
        let evidence = ["notBefore \(leaf.notBefore.map(iso) ?? "?"), notAfter \(leaf.notAfter.map(iso) ?? "?"): \(days) days"]
        if days > 825 {
            return Verdict(severity: .fail, observed: "\(days) days", evidence: evidence,
                           client: "\(atsClient) refuses it (iOS 13+: at most 825 days for any TLS server certificate)", rule: AuditRuleSources.iOS13Certificates)
        }
        if days > 398 {
            // The 398-day limit covers certificates from preinstalled roots only.
            return privateTrust
                ? Verdict(severity: .info, observed: "\(days) days, under a private root (the CA file given)", evidence: evidence,
                          client: "\(atsClient) accepts it from a user- or administrator-added root (the 398-day limit covers preinstalled roots only); from a preinstalled root it would be refused",
                          rule: AuditRuleSources.validity398)
                : Verdict(severity: .fail, observed: "\(days) days", evidence: evidence,
                          client: "\(atsClient) refuses it (certificates from preinstalled roots: at most 398 days)", rule: AuditRuleSources.validity398)
        }
        return Verdict(severity: .pass, observed: "\(days) days", evidence: evidence, client: "\(atsClient) accepts it", rule: AuditRuleSources.validity398)
    }

    static func expiry(_ site: CertificateSite, now date: Date) -> Verdict {
        let now = Timestamp(microsecondsSince1970: Int64(date.timeIntervalSince1970 * 1_000_000))
        var expired: [String] = []
        var soon: [String] = []
        var evidence: [String] = []
        for certificate in site.chain.certificates {
            guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter else { continue }
            evidence.append("\(certificate.label): \(notBefore) → \(notAfter)")
            if now < notBefore || notAfter < now { expired.append(certificate.label) }
            else if notAfter < now.adding(microseconds: 30 * 86_400 * 1_000_000) { soon.append(certificate.label) }
        }
        guard !evidence.isEmpty else { return Verdict(severity: .warn, observed: "no certificate dates read") }
        let severity: AuditFinding.Severity = !expired.isEmpty ? .fail : !soon.isEmpty ? .warn : .pass
        let observed = !expired.isEmpty ? "outside its validity: " + expired.joined(separator: "; ")
            : !soon.isEmpty ? "expires within 30 days: " + soon.joined(separator: "; ") : "every served certificate is valid for 30 days or more"
        return Verdict(severity: severity, observed: observed, evidence: evidence,
                       client: severity == .fail ? "every client refuses an expired certificate" : "clients accept the dates")
    }

    static func ct(_ site: CertificateSite, privateTrust: Bool) -> Verdict {
        guard let leaf = site.leaf else { return Verdict(severity: .warn, observed: "the leaf certificate was not read") }
        let days = leaf.validityDays ?? 0
        let required = days <= 180 ? 2 : 3
        let count = leaf.embeddedSCTs
        let observed = "\(count.map(String.init) ?? "an unreadable list of") embedded SCT\(count == 1 ? "" : "s"); Apple's policy asks \(required) for \(days) days"
        if privateTrust {
            return Verdict(severity: .info, observed: observed, client: "Apple's CT policy applies to publicly trusted certificates only: not to this CA",
                           rule: AuditRuleSources.certificateTransparency)
        }
        if let count, count >= required {
            return Verdict(severity: .pass, observed: observed, client: "\(atsClient) finds enough SCTs", rule: AuditRuleSources.certificateTransparency)
        }
        return Verdict(severity: .warn, observed: observed,
                       client: "\(atsClient) refuses a publicly trusted certificate without enough SCTs (SCTs sent in the TLS extension or OCSP are not read by this audit)",
                       rule: AuditRuleSources.certificateTransparency)
    }

    private static func iso(_ date: Date) -> String {
        Timestamp(microsecondsSince1970: Int64(date.timeIntervalSince1970 * 1_000_000)).description
    }
}
