import Foundation
import SondeCore

/// What the rules judge: one target's scan (with its response headers) and the certificates of
/// every https host a client reaches (the scanned one first).
struct AuditEvidence: Sendable {
    var host: String
    var scan: TLSScanResult
    var sites: [CertificateSite]
    var now: Date
    /// The chains were verified against a CA file the user gave (`--cacert`): a private or
    /// user-installed root, to which Apple's 398-day and CT rules do not apply.
    var privateTrust: Bool
}

/// Apple's published rules (App Transport Security, the iOS 13 certificate requirements, the
/// 398-day limit, the CT policy) and the TLS-offered checks, turned into findings. Pure: the same
/// evidence gives the same findings (the clock is `evidence.now`).
enum AuditRules {
    /// Every finding id the audit makes, in report order: the TLS ones (this type's), the
    /// simulated clients' (`ClientRules`'), the certificate ones (`CertificateRules`'), HSTS, then `RedirectRules`' and `HTTPRules`', then
    /// the client-path ones (payload size, coalescing, Retry-After, IPv6).
    static var ids: [String] { tlsIDs + ClientRules.ids + CertificateRules.ids + ["hsts"] + RedirectRules.ids + HTTPRules.ids + Auditor.clientPathIDs }

    /// The ids of this type's TLS findings (`hsts` is this type's too, after the certificate ones).
    static let tlsIDs = ["tls.min-version", "tls.forward-secrecy", "tls.key-exchange", "tls.ocsp-stapling"]

    static func findings(_ evidence: AuditEvidence) -> [AuditFinding] {
        [minimumVersion(evidence), forwardSecrecy(evidence), keyExchange(evidence), ocspStapling(evidence)]
            + CertificateRules.findings(evidence.sites, privateTrust: evidence.privateTrust, now: evidence.now)
            + [hsts(evidence)]
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
        let all = TLSProtocolVersion.allCases.flatMap { version in (e.scan.acceptedSuites[version] ?? []).map { (version, $0) } }
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
            var seen = Set<String>()
            let names = withoutFS.map(\.1.iana).filter { seen.insert($0).inserted }
            observed = "\(Self.count(atsSuites.count, "ATS-acceptable suite")) and \(names.count) without forward secrecy: " + names.joined(separator: ", ")
            client = "\(atsClient) connects with an ATS suite; a client offering the others may get no forward secrecy"
        } else {
            severity = .pass
            observed = "\(Self.count(atsSuites.count, "ATS-acceptable suite")), every accepted suite forward secret"
            client = "\(atsClient) connects"
        }
        return AuditFinding(id: "tls.forward-secrecy", severity: severity, title: "a forward-secret suite ATS accepts (ECDHE with AES-GCM or AES-CBC from its list, or TLS 1.3), none without forward secrecy",
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

    // MARK: HTTP

    /// The least HSTS `max-age` that passes (s): 180 days, testssl.sh's `HSTS_MIN` (a shorter one
    /// is its MEDIUM "max-age too short"); Mozilla's Observatory asks six months (15 768 000 s).
    static let hstsMinimumSeconds: Int64 = 180 * 86_400

    static func hsts(_ e: AuditEvidence) -> AuditFinding {
        let title = "Strict-Transport-Security sent, max-age of 180 days or more"
        guard let response = e.scan.preferred, let status = response.status else {
            return AuditFinding(id: "hsts", severity: .warn, title: title,
                                observed: "no HTTP response: \(e.scan.preferred?.summary ?? "not tried")", client: "", rule: AuditRuleSources.hsts)
        }
        guard let value = response.header("Strict-Transport-Security") else {
            return AuditFinding(id: "hsts", severity: .warn, title: title, observed: "no Strict-Transport-Security header",
                                evidence: ["HTTP \(status), no Strict-Transport-Security"],
                                client: "a client that honours HSTS (browsers, web views) may be downgraded to http on its first visit", rule: AuditRuleSources.hsts)
        }
        let directives = value.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let maxAge = directives.first { $0.hasPrefix("max-age=") }.flatMap { Int64($0.dropFirst(8).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).prefix(18)) }
        let subdomains = directives.contains("includesubdomains")
        let evidence = ["HTTP \(status), Strict-Transport-Security: \(value)"]
        let shown = "max-age=\(maxAge.map(String.init) ?? "missing")\(subdomains ? ", includeSubDomains" : "")"
        guard let maxAge, maxAge > 0 else {
            return AuditFinding(id: "hsts", severity: .warn, title: title, observed: shown, evidence: evidence,
                                client: "max-age 0 or missing: clients forget the policy", rule: AuditRuleSources.hsts)
        }
        if maxAge < hstsMinimumSeconds {
            return AuditFinding(id: "hsts", severity: .warn, title: title,
                                observed: "\(shown): \(Self.duration(maxAge)), under 180 days", evidence: evidence,
                                client: "clients that honour HSTS forget the policy after \(Self.duration(maxAge)): the next first visit may go over http (testssl.sh: MEDIUM, \"max-age too short\"; Mozilla Observatory asks six months)",
                                rule: AuditRuleSources.hstsMaxAge)
        }
        return AuditFinding(id: "hsts", severity: .pass, title: title, observed: "\(shown) (\(Self.duration(maxAge)))", evidence: evidence,
                            client: "clients that honour HSTS stay on https", rule: AuditRuleSources.hsts)
    }

    /// "300 s", "1 day", "365 days".
    static func duration(_ seconds: Int64) -> String {
        guard seconds >= 86_400 else { return "\(seconds) s" }
        let days = seconds / 86_400
        return days == 1 ? "1 day" : "\(days) days"
    }

    /// "1 suite", "3 suites".
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}
