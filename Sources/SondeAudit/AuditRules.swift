import Foundation
import SondeCore

/// What the rules judge: one target's scan, its leaf certificate, the served chain and its
/// response headers.
struct AuditEvidence: Sendable {
    var host: String
    var scan: TLSScanResult
    var leaf: LeafCertificate?
    var chain: [PeerCertificate]
    var now: Date
    /// The chain was verified against a CA file the user gave (`--cacert`): a private or
    /// user-installed root, to which Apple's 398-day and CT rules do not apply.
    var privateTrust: Bool
}

/// Apple's published rules (App Transport Security, the iOS 13 certificate requirements, the
/// 398-day limit, the CT policy) and the TLS-offered checks, turned into findings. Pure: the same
/// evidence gives the same findings (the clock is `evidence.now`).
enum AuditRules {
    /// Every finding id the audit makes, in report order: the TLS and certificate ones (this
    /// type's), then `RedirectRules`' and `HTTPRules`', then the client-path ones (payload size,
    /// coalescing, Retry-After, IPv6).
    static var ids: [String] { tlsIDs + RedirectRules.ids + HTTPRules.ids + Auditor.clientPathIDs }

    /// The ids of this type's findings.
    static let tlsIDs = ["tls.min-version", "tls.forward-secrecy", "tls.key-exchange", "tls.ocsp-stapling", "cert.chain", "cert.key-size",
                      "cert.signature", "cert.san", "cert.eku", "cert.validity", "cert.expiry", "cert.ct", "hsts"]

    static func findings(_ evidence: AuditEvidence) -> [AuditFinding] {
        var findings = [minimumVersion(evidence), forwardSecrecy(evidence), keyExchange(evidence), ocspStapling(evidence),
                        chain(evidence)]
        findings += certificate(evidence)
        findings.append(hsts(evidence))
        return findings
    }

    private static let atsClient = "URLSession under App Transport Security"

    // MARK: TLS offered

    static func minimumVersion(_ e: AuditEvidence) -> AuditFinding {
        let accepted = e.scan.acceptedVersions
        let evidence = TLSProtocolVersion.allCases.map { version in
            "\(version.name): " + (e.scan.versionOutcomes[version].map { $0.kind == .completed ? "accepted (\($0.summary))" : "not accepted (\($0.summary))" } ?? "not tried")
        }
        let observed = accepted.isEmpty ? "no protocol version accepted" : "accepts " + accepted.map(\.name).joined(separator: ", ")
        let modern = accepted.contains { $0 >= .tls1_2 }
        let legacy = accepted.filter { $0 < .tls1_2 }
        let severity: AuditFinding.Severity = !modern ? .fail : legacy.isEmpty ? .pass : .warn
        let client: String
        switch severity {
        case .fail: client = "\(atsClient) refuses to connect (ATS requires TLS 1.2 or later)"
        case .warn: client = "\(atsClient) negotiates TLS 1.2+ and connects; \(legacy.map(\.name).joined(separator: ", ")) stay open to old clients and downgrade scanners"
        default: client = "\(atsClient) connects"
        }
        return AuditFinding(id: "tls.min-version", severity: severity, title: "TLS 1.2 or later, and nothing older", observed: observed,
                            evidence: evidence, client: client, rule: AuditRuleSources.ats)
    }

    static func forwardSecrecy(_ e: AuditEvidence) -> AuditFinding {
        let modern = e.scan.acceptedSuites.filter { $0.key >= .tls1_2 }
        let all = e.scan.acceptedSuites.flatMap { version, suites in suites.map { (version, $0) } }
        let atsSuites = modern.flatMap { version, suites in suites.filter { version == .tls1_3 || $0.atsListed }.map { (version, $0) } }
        let withoutFS = all.filter { !$0.1.forwardSecret }
        let evidence = TLSProtocolVersion.allCases.compactMap { version -> String? in
            guard let suites = e.scan.acceptedSuites[version], !suites.isEmpty else { return nil }
            return "\(version.name): " + suites.map { "\($0.iana)\($0.forwardSecret ? "" : " (no forward secrecy)")" }.joined(separator: ", ")
        }
        let severity: AuditFinding.Severity
        let observed: String
        let client: String
        if atsSuites.isEmpty {
            severity = .fail
            var seen = Set<String>()
            let names = all.map(\.1.iana).filter { seen.insert($0).inserted }
            observed = all.isEmpty ? "no cipher suite accepted" : "no forward-secret ECDHE suite from ATS's list at TLS 1.2+ (accepted: \(names.joined(separator: ", ")))"
            client = "\(atsClient) refuses to connect: ATS requires an ECDHE suite from its list (or TLS 1.3)"
        } else if !withoutFS.isEmpty {
            severity = .warn
            observed = "\(atsSuites.count) ATS suites, and \(withoutFS.count) without forward secrecy: " + withoutFS.map(\.1.iana).joined(separator: ", ")
            client = "\(atsClient) connects with an ATS suite; a client offering the others may get no forward secrecy"
        } else {
            severity = .pass
            observed = "\(atsSuites.count) ATS-acceptable suites, every accepted suite forward secret"
            client = "\(atsClient) connects"
        }
        return AuditFinding(id: "tls.forward-secrecy", severity: severity, title: "a forward-secret ECDHE AES-GCM/ChaCha20 suite ATS accepts, none without forward secrecy",
                            observed: observed, evidence: evidence, client: client, rule: AuditRuleSources.ats)
    }

    static func keyExchange(_ e: AuditEvidence) -> AuditFinding {
        let group = e.scan.preferred?.peer?.group ?? ""
        let summary = e.scan.preferred?.summary ?? "no handshake"
        return AuditFinding(id: "tls.key-exchange", severity: .info, title: "the key exchange group a default handshake negotiates",
                            observed: group.isEmpty ? "no ephemeral key exchange (RSA key transport)" : group, evidence: [summary],
                            client: "the group the server picked from those the client offered (informational; ATS sets no rule on it)")
    }

    static func ocspStapling(_ e: AuditEvidence) -> AuditFinding {
        guard let outcome = e.scan.stapling else {
            return AuditFinding(id: "tls.ocsp-stapling", severity: .info, title: "OCSP response stapled", observed: "not tried (time budget)",
                                client: "", rule: AuditRuleSources.ocspStapling)
        }
        let severity: AuditFinding.Severity
        let observed: String
        switch outcome.kind {
        case .completed:
            severity = .pass
            observed = "a stapled OCSP response that verifies (CURLOPT_SSL_VERIFYSTATUS)"
        case .badStatus where outcome.detail.lowercased().contains("no ocsp response"):
            severity = .info
            observed = "no stapled OCSP response"
        case .badStatus:
            severity = .warn
            observed = "a stapled OCSP response that does not verify: \(outcome.detail)"
        default:
            severity = .info
            observed = "not known: \(outcome.summary)"
        }
        return AuditFinding(id: "tls.ocsp-stapling", severity: severity, title: "OCSP response stapled", observed: observed,
                            evidence: [outcome.summary],
                            client: "Apple's clients take a stapled response instead of asking the CA's responder; without one they may ask it themselves",
                            rule: AuditRuleSources.ocspStapling)
    }

    static func chain(_ e: AuditEvidence) -> AuditFinding {
        let store = e.privateTrust ? "the CA file given" : "the default trust store"
        guard let outcome = e.scan.verification else {
            return AuditFinding(id: "cert.chain", severity: .warn, title: "a complete chain that verifies", observed: "not tried (time budget)", client: "")
        }
        let served = e.chain.map { "served: \($0.subject) (issuer \($0.issuer))" }
        let androidNote = e.privateTrust
            ? "; Android apps targeting API 24+ trust only system CAs unless their network security config names this CA" : ""
        switch outcome.kind {
        case .completed:
            return AuditFinding(id: "cert.chain", severity: .pass, title: "a complete chain that verifies",
                                observed: "\(e.chain.count) certificate(s) served, verified against \(store)", evidence: served,
                                client: "URLSession trusts it" + androidNote, rule: e.privateTrust ? AuditRuleSources.androidTrust : AuditRuleSources.ats)
        case .unverified:
            let leafOnly = e.chain.count == 1 && e.chain.first.map { $0.subject != $0.issuer } == true
            let missing = leafOnly && [20, 21].contains(outcome.verifyResult)
            let observed = missing
                ? "only the leaf was served and its issuer is not in \(store): intermediate missing (X509 error \(outcome.verifyResult): \(outcome.detail))"
                : "does not verify against \(store) (X509 error \(outcome.verifyResult): \(outcome.detail))"
            return AuditFinding(id: "cert.chain", severity: .fail, title: "a complete chain that verifies", observed: observed,
                                evidence: served + [outcome.summary],
                                client: "\(atsClient) and Android refuse the server (a chain that does not build to a trusted root)",
                                rule: AuditRuleSources.ats)
        default:
            return AuditFinding(id: "cert.chain", severity: .warn, title: "a complete chain that verifies", observed: "not known: \(outcome.summary)",
                                evidence: served, client: "")
        }
    }

    // MARK: The leaf certificate

    static func certificate(_ e: AuditEvidence) -> [AuditFinding] {
        let peer = e.scan.preferred?.peer
        var findings: [AuditFinding] = []
        // Key size.
        if let peer, !peer.keyType.isEmpty {
            let bits = peer.keyBits
            let rsa = peer.keyType.hasPrefix("RSA")
            let ec = peer.keyType == "EC"
            let minimum = rsa ? 2048 : ec ? 256 : 0
            let severity: AuditFinding.Severity = (rsa || ec) && bits < minimum ? .fail : .pass
            let curve = peer.keyGroup.isEmpty ? "" : " (\(peer.keyGroup))"
            findings.append(AuditFinding(id: "cert.key-size", severity: severity, title: "RSA ≥ 2048 bits or ECC ≥ 256 bits",
                                         observed: "\(peer.keyType) \(bits) bits\(curve)", evidence: ["leaf key from the handshake: \(peer.keyType) \(bits)"],
                                         client: severity == .fail ? "\(atsClient) refuses the certificate (iOS 13+ trusts no RSA key under 2048 bits)" : "\(atsClient) accepts the key",
                                         rule: AuditRuleSources.ats))
        } else {
            findings.append(AuditFinding(id: "cert.key-size", severity: .warn, title: "RSA ≥ 2048 bits or ECC ≥ 256 bits", observed: "not read", client: ""))
        }
        // Signature.
        if let peer, !peer.signature.isEmpty {
            let digest = peer.signatureDigest.uppercased()
            let weak = ["SHA1", "MD5", "MD4", "MD2"].contains(digest.replacingOccurrences(of: "-", with: ""))
            findings.append(AuditFinding(id: "cert.signature", severity: weak ? .fail : .pass, title: "leaf signed with SHA-256 or better",
                                         observed: "\(peer.signature)" + (digest.isEmpty ? "" : " (digest \(peer.signatureDigest))"),
                                         evidence: ["leaf signature from the handshake: \(peer.signature)"],
                                         client: weak ? "\(atsClient) refuses the certificate (SHA-1 signed certificates are not trusted since iOS 13)" : "\(atsClient) accepts the signature",
                                         rule: AuditRuleSources.iOS13Certificates))
        } else {
            findings.append(AuditFinding(id: "cert.signature", severity: .warn, title: "leaf signed with SHA-256 or better", observed: "not read", client: ""))
        }
        guard let leaf = e.leaf else {
            for (id, title) in [("cert.san", "the host in the subjectAltName"), ("cert.eku", "serverAuth in the extended key usage"),
                                ("cert.validity", "validity of at most 398 days"), ("cert.expiry", "every served certificate within its validity"),
                                ("cert.ct", "embedded SCTs as Apple's CT policy asks")] {
                findings.append(AuditFinding(id: id, severity: .warn, title: title, observed: "the leaf certificate was not read", client: ""))
            }
            return findings
        }
        findings.append(san(e, leaf))
        findings.append(eku(leaf))
        findings.append(validity(e, leaf))
        findings.append(expiry(e))
        findings.append(ct(e, leaf))
        return findings
    }

    static func san(_ e: AuditEvidence, _ leaf: LeafCertificate) -> AuditFinding {
        let host = e.host.lowercased()
        let isIP = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let names = "DNS " + (leaf.dnsNames ?? []).joined(separator: ", ") + "; IP " + (leaf.ipAddresses ?? []).joined(separator: ", ")
        let evidence = ["subject CN: " + leaf.commonNames.joined(separator: ", "), "subjectAltName: " + (leaf.dnsNames == nil ? "absent" : names),
                        "read with \(leaf.source)"]
        guard leaf.dnsNames != nil || leaf.ipAddresses != nil else {
            return AuditFinding(id: "cert.san", severity: .fail, title: "the host in the subjectAltName",
                                observed: "no subjectAltName; CN only (\(leaf.commonNames.joined(separator: ", ")))", evidence: evidence,
                                client: "\(atsClient) refuses the certificate (a name in the CommonName is not trusted since iOS 13)",
                                rule: AuditRuleSources.iOS13Certificates)
        }
        let matched = isIP ? (leaf.ipAddresses ?? []).contains { $0.lowercased() == host }
                           : (leaf.dnsNames ?? []).contains { matches(pattern: $0.lowercased(), host: host) }
        return AuditFinding(id: "cert.san", severity: matched ? .pass : .fail, title: "the host in the subjectAltName",
                            observed: matched ? "\(e.host) is in the subjectAltName" : "\(e.host) is not in the subjectAltName (\(names))",
                            evidence: evidence,
                            client: matched ? "\(atsClient) accepts the name" : "\(atsClient) and Android refuse the certificate for \(e.host)",
                            rule: AuditRuleSources.iOS13Certificates)
    }

    /// RFC 6125 §6.4.3, as clients apply it: a wildcard only as the whole left-most label.
    static func matches(pattern: String, host: String) -> Bool {
        guard pattern.hasPrefix("*.") else { return pattern == host }
        guard let dot = host.firstIndex(of: ".") else { return false }
        return host[dot...] == pattern.dropFirst(1) && host[..<dot].count > 0
    }

    static func eku(_ leaf: LeafCertificate) -> AuditFinding {
        let severity: AuditFinding.Severity = leaf.serverAuth ? .pass : .fail
        let observed = !leaf.hasExtendedKeyUsage ? "no extendedKeyUsage extension" : leaf.serverAuth ? "serverAuth present" : "extendedKeyUsage without serverAuth"
        return AuditFinding(id: "cert.eku", severity: severity, title: "serverAuth in the extended key usage", observed: observed,
                            client: leaf.serverAuth ? "\(atsClient) accepts it" : "\(atsClient) refuses certificates issued after 2019-07-01 without serverAuth",
                            rule: AuditRuleSources.iOS13Certificates)
    }

    static func validity(_ e: AuditEvidence, _ leaf: LeafCertificate) -> AuditFinding {
        guard let days = leaf.validityDays else {
            return AuditFinding(id: "cert.validity", severity: .warn, title: "validity of at most 398 days", observed: "dates not read", client: "")
        }
        let evidence = ["notBefore \(leaf.notBefore.map(iso) ?? "?"), notAfter \(leaf.notAfter.map(iso) ?? "?"): \(days) days"]
        let severity: AuditFinding.Severity
        let client: String
        if days > 825 {
            severity = .fail
            client = "\(atsClient) refuses it (iOS 13+: at most 825 days for any TLS server certificate)"
        } else if days > 398 {
            severity = e.privateTrust ? .warn : .fail
            client = e.privateTrust
                ? "\(atsClient) accepts it from a user- or administrator-added root; from a preinstalled root it would be refused (398 days)"
                : "\(atsClient) refuses it (certificates from preinstalled roots: at most 398 days)"
        } else {
            severity = .pass
            client = "\(atsClient) accepts it"
        }
        return AuditFinding(id: "cert.validity", severity: severity, title: "validity of at most 398 days", observed: "\(days) days",
                            evidence: evidence, client: client, rule: days > 825 ? AuditRuleSources.iOS13Certificates : AuditRuleSources.validity398)
    }

    static func expiry(_ e: AuditEvidence) -> AuditFinding {
        let now = Timestamp(microsecondsSince1970: Int64(e.now.timeIntervalSince1970 * 1_000_000))
        var expired: [String] = []
        var soon: [String] = []
        var evidence: [String] = []
        for certificate in e.chain {
            guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter else { continue }
            evidence.append("\(certificate.subject): \(notBefore) → \(notAfter)")
            if now < notBefore || notAfter < now { expired.append(certificate.subject) }
            else if notAfter < now.adding(microseconds: 30 * 86_400 * 1_000_000) { soon.append(certificate.subject) }
        }
        let severity: AuditFinding.Severity = !expired.isEmpty ? .fail : !soon.isEmpty ? .warn : .pass
        let observed = !expired.isEmpty ? "outside its validity: " + expired.joined(separator: "; ")
            : !soon.isEmpty ? "expires within 30 days: " + soon.joined(separator: "; ") : "every served certificate is valid for 30 days or more"
        return AuditFinding(id: "cert.expiry", severity: severity, title: "every served certificate within its validity", observed: observed,
                            evidence: evidence, client: severity == .fail ? "every client refuses an expired certificate" : "clients accept the dates")
    }

    static func ct(_ e: AuditEvidence, _ leaf: LeafCertificate) -> AuditFinding {
        let days = leaf.validityDays ?? 0
        let required = days <= 180 ? 2 : 3
        let count = leaf.embeddedSCTs
        let observed = "\(count.map(String.init) ?? "an unreadable list of") embedded SCT(s); Apple's policy asks \(required) for \(days) days"
        let severity: AuditFinding.Severity
        let client: String
        if e.privateTrust {
            severity = .info
            client = "Apple's CT policy applies to publicly trusted certificates only: not to this CA"
        } else if let count, count >= required {
            severity = .pass
            client = "\(atsClient) finds enough SCTs"
        } else {
            severity = .warn
            client = "\(atsClient) refuses a publicly trusted certificate without enough SCTs (SCTs sent in the TLS extension or OCSP are not read by this audit)"
        }
        return AuditFinding(id: "cert.ct", severity: severity, title: "embedded SCTs as Apple's CT policy asks", observed: observed,
                            client: client, rule: AuditRuleSources.certificateTransparency)
    }

    // MARK: HTTP

    static func hsts(_ e: AuditEvidence) -> AuditFinding {
        guard let response = e.scan.preferred, let status = response.status else {
            return AuditFinding(id: "hsts", severity: .warn, title: "Strict-Transport-Security sent",
                                observed: "no HTTP response: \(e.scan.preferred?.summary ?? "not tried")", client: "", rule: AuditRuleSources.hsts)
        }
        guard let value = response.header("Strict-Transport-Security") else {
            return AuditFinding(id: "hsts", severity: .warn, title: "Strict-Transport-Security sent", observed: "no Strict-Transport-Security header",
                                evidence: ["HTTP \(status), no Strict-Transport-Security"],
                                client: "a client that honours HSTS (browsers, web views) may be downgraded to http on its first visit", rule: AuditRuleSources.hsts)
        }
        let directives = value.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let maxAge = directives.first { $0.hasPrefix("max-age=") }.flatMap { Int64($0.dropFirst(8).trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
        let subdomains = directives.contains("includesubdomains")
        let severity: AuditFinding.Severity = (maxAge ?? 0) > 0 ? .pass : .warn
        return AuditFinding(id: "hsts", severity: severity, title: "Strict-Transport-Security sent",
                            observed: "max-age=\(maxAge.map(String.init) ?? "missing")\(subdomains ? ", includeSubDomains" : "")",
                            evidence: ["HTTP \(status), Strict-Transport-Security: \(value)"],
                            client: severity == .pass ? "clients that honour HSTS stay on https" : "max-age 0 or missing: clients forget the policy",
                            rule: AuditRuleSources.hsts)
    }

    private static func iso(_ date: Date) -> String {
        Timestamp(microsecondsSince1970: Int64(date.timeIntervalSince1970 * 1_000_000)).description
    }
}
