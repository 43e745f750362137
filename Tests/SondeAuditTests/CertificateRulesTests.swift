import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// Every certificate's key and signature read from its DER (`ServedCertificate`), against
/// `openssl x509 -text` on certificates made here with openssl; the chain's path, order and
/// extras (`ServedChain`); ATS's key and signature policy; the certificate rules' wording.
struct CertificateRulesTests {
    /// A certificate made with openssl in a fresh folder: its PEM and openssl's own text of it.
    static func make(key: [String], digest: [String], subject: String = "/CN=t.example") throws -> (pem: String, text: String) {
        let folder = NSTemporaryDirectory() + "sonde-cert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = AuditCorpus.run("/usr/bin/openssl", ["genpkey"] + key + ["-out", folder + "/k.pem"], timeout: 60)
        #expect(made.status == 0, "\(made.output)")
        let signed = AuditCorpus.run("/usr/bin/openssl", ["req", "-x509", "-new", "-key", folder + "/k.pem", "-subj", subject, "-days", "30",
                                                          "-out", folder + "/c.pem"] + digest, timeout: 60)
        #expect(signed.status == 0, "\(signed.output)")
        let text = AuditCorpus.run("/usr/bin/openssl", ["x509", "-in", folder + "/c.pem", "-noout", "-text"], timeout: 60).output
        return (try String(contentsOfFile: folder + "/c.pem", encoding: .utf8), text)
    }

    static func served(_ pem: String, index: Int = 0) -> ServedCertificate {
        ServedCertificate(certinfo: ["Subject:CN = t.example", "Issuer:CN = t.example", "Cert:" + pem], index: index)
    }

    /// RSA 1024 with SHA-1, EC P-384 with SHA-384, Ed25519, RSA-PSS with SHA-256: the key and the
    /// signature as openssl names them.
    @Test func keysAndSignaturesAreReadAsOpenSSLReadsThem() throws {
        let cases: [(key: [String], sign: [String], expected: ServedCertificate.Key, signature: String, digest: String?, openssl: [String])] = [
            (["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"], ["-sha1"], .rsa(bits: 1024), "sha1WithRSAEncryption", "SHA1",
             ["Public-Key: (1024 bit)", "Signature Algorithm: sha1WithRSAEncryption"]),
            (["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], ["-sha384"], .ec(curve: "P-384", bits: 384), "ecdsa-with-SHA384", "SHA384",
             ["Public-Key: (384 bit)", "NIST CURVE: P-384", "Signature Algorithm: ecdsa-with-SHA384"]),
            (["-algorithm", "ED25519"], [], .ed25519, "ED25519", nil, ["Public Key Algorithm: ED25519", "Signature Algorithm: ED25519"]),
            (["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048"], ["-sha256"], .rsa(bits: 2048), "rsassaPss", "SHA256",
             ["Public-Key: (2048 bit)", "Signature Algorithm: rsassaPss", "Hash Algorithm: sha256"]),
        ]
        for item in cases {
            let (pem, text) = try Self.make(key: item.key, digest: item.sign)
            for line in item.openssl { #expect(text.contains(line), "openssl does not say '\(line)': \(text.prefix(1500))") }
            let certificate = Self.served(pem)
            #expect(certificate.key == item.expected, "\(item.key): \(String(describing: certificate.key))")
            #expect(certificate.signature?.name == item.signature && certificate.signature?.digest == item.digest,
                    "\(item.key): \(String(describing: certificate.signature))")
            #expect(certificate.selfIssued && certificate.subjectDER != nil)
        }
    }

    @Test func bytesThatAreNoCertificateGiveNoFacts() {
        let certificate = ServedCertificate(certinfo: ["Subject:", "Cert:-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"], index: 2)
        #expect(certificate.key == nil && certificate.signature == nil && certificate.subjectDER == nil)
        #expect(certificate.label.hasPrefix("#3 empty subject"), "\(certificate.label)")
        #expect(throws: (any Error).self) { try ServedCertificate.parse(der: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(throws: (any Error).self) { try ServedCertificate.parse(der: []) }
        #expect(ServedCertificate.significantBits([0x00, 0x80, 0x00]) == 16 && ServedCertificate.significantBits([0x01]) == 1)
        #expect(ServedCertificate.significantBits([]) == 0)
    }

    static func certificate(_ index: Int, _ subject: String, issuedBy issuer: String, key: ServedCertificate.Key = .rsa(bits: 2048),
                            digest: String = "SHA256") -> ServedCertificate {
        ServedCertificate(index: index, subject: "CN = \(subject)", issuer: "CN = \(issuer)", subjectDER: Array(subject.utf8), issuerDER: Array(issuer.utf8),
                          key: key, signature: ServedCertificate.Signature(name: digest.lowercased() + "WithRSAEncryption", digest: digest))
    }

    @Test func thePathOrderAndExtrasOfAChain() {
        let inOrder = ServedChain([Self.certificate(0, "leaf", issuedBy: "inter"), Self.certificate(1, "inter", issuedBy: "root")])
        #expect(inOrder.path == [0, 1] && inOrder.inOrder && inOrder.extras.isEmpty && !inOrder.rootSent)
        let misordered = ServedChain([Self.certificate(0, "leaf", issuedBy: "inter"), Self.certificate(1, "root", issuedBy: "root"),
                                      Self.certificate(2, "inter", issuedBy: "root")])
        #expect(misordered.path == [0, 2, 1] && !misordered.inOrder && misordered.extras.isEmpty && misordered.rootSent)
        let extra = ServedChain([Self.certificate(0, "leaf", issuedBy: "inter"), Self.certificate(1, "inter", issuedBy: "root"),
                                 Self.certificate(2, "stray", issuedBy: "stray")])
        #expect(extra.path == [0, 1] && extra.inOrder && extra.extras.map(\.index) == [2])
        // A loop of names (a issues b issues a) ends: each certificate is on the path once.
        let loop = ServedChain([Self.certificate(0, "a", issuedBy: "b"), Self.certificate(1, "b", issuedBy: "a")])
        #expect(loop.path == [0, 1])
        #expect(ServedChain([]).path.isEmpty)

        let site = CertificateSite(host: "t.example", port: 443, reached: "the URL audited", chain: misordered)
        let verdict = CertificateRules.chainOrder(site)
        #expect(verdict.severity == .warn && verdict.observed.contains("#1 → #3 → #2"), "\(verdict.observed)")
        let rooted = CertificateRules.chainOrder(CertificateSite(host: "t.example", port: 443, reached: "",
                                                                 chain: ServedChain(Array(misordered.certificates.prefix(1)) + [misordered.certificates[2].renumbered(1), misordered.certificates[1].renumbered(2)])))
        #expect(rooted.severity == .info && rooted.observed.contains("the root"), "\(rooted.observed)")
    }

    /// ATS's policy: RSA 2048 and ECC 256 at least, RSA and ECC only, SHA-256 or better; an
    /// intermediate is judged as the leaf is, a self-issued root's own signature is not.
    @Test func atsJudgesEveryCertificateOnThePath() {
        let ats = CertificatePolicy.ats
        #expect(ats.refusal(of: .rsa(bits: 2048)) == nil && ats.refusal(of: .rsa(bits: 2047)) != nil)
        #expect(ats.refusal(of: .ec(curve: "P-256", bits: 256)) == nil && ats.refusal(of: .ec(curve: "P-224", bits: 224)) != nil)
        #expect(ats.refusal(of: .ed25519)?.contains("neither an RSA nor an ECC key") == true)
        #expect(ats.refusal(of: ServedCertificate.Signature(name: "sha256WithRSAEncryption", digest: "SHA256")) == nil)
        #expect(ats.refusal(of: ServedCertificate.Signature(name: "ecdsa-with-SHA224", digest: "SHA224")) != nil)
        #expect(ats.refusal(of: ServedCertificate.Signature(name: "ED25519", digest: nil)) != nil)

        let chain = ServedChain([Self.certificate(0, "leaf", issuedBy: "inter"), Self.certificate(1, "inter", issuedBy: "root", key: .rsa(bits: 1024), digest: "SHA1"),
                                 Self.certificate(2, "root", issuedBy: "root", digest: "SHA1")])
        let site = CertificateSite(host: "t.example", port: 443, reached: "the URL audited", chain: chain)
        let keys = CertificateRules.keys(site, policy: ats)
        #expect(keys.severity == .fail && keys.observed == "#2 CN = inter (issuing CA): RSA 1024 bits is under 2048", "\(keys.observed)")
        #expect(keys.client.contains("CA certificate key too weak"))
        let signatures = CertificateRules.signatures(site, policy: ats)
        #expect(signatures.severity == .fail && signatures.observed.hasPrefix("#2 CN = inter (issuing CA)") && !signatures.observed.contains("#3"),
                "\(signatures.observed)")
        #expect(signatures.evidence.contains { $0.hasPrefix("#3 CN = root") && $0.contains("not judged") })
        // A stray certificate's weakness is not the chain's: no client uses it.
        let stray = ServedChain([Self.certificate(0, "leaf", issuedBy: "inter"), Self.certificate(1, "inter", issuedBy: "root"),
                                 Self.certificate(2, "stray", issuedBy: "other", key: .rsa(bits: 512))])
        #expect(CertificateRules.keys(CertificateSite(host: "t", port: 1, reached: "", chain: stray), policy: ats).severity == .pass)
    }

    /// The wording slips of issue 39 #5: no "IP )" for a SAN without addresses, no "expires within
    /// 30 days: ;" for an empty subject.
    @Test func theCertificateTextNamesWhatItSaw() throws {
        var leaf = try #require(LeafCertificate(certinfo: ["Subject:CN = a.example", "X509v3 Subject Alternative Name:DNS:a.example, DNS:b.example"]))
        leaf.dnsNames = ["a.example", "b.example"]
        let site = CertificateSite(host: "www.a.example", port: 443, reached: "redirect hop 1", chain: ServedChain([]), leaf: leaf)
        let san = CertificateRules.san(site)
        #expect(san.severity == .fail && san.observed == "www.a.example is not in the subjectAltName (DNS a.example, DNS b.example)", "\(san.observed)")

        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let soon = Timestamp(microsecondsSince1970: Int64(now.timeIntervalSince1970 + 86_400 * 5) * 1_000_000)
        var empty = ServedCertificate(index: 0, subject: "", issuer: "", subjectDER: nil, issuerDER: nil, key: nil, signature: nil,
                                      notBefore: Timestamp(microsecondsSince1970: 0), notAfter: soon)
        empty.alternativeNames = ["127.0.0.1"]
        let expiry = CertificateRules.expiry(CertificateSite(host: "127.0.0.1", port: 443, reached: "", chain: ServedChain([empty])), now: now)
        #expect(expiry.severity == .warn && expiry.observed == "expires within 30 days: #1 empty subject, SAN 127.0.0.1", "\(expiry.observed)")
    }

    /// With two sites, each line says which host it is of, and the worst verdict wins.
    @Test func severalHostsAreJudgedTogether() throws {
        var leaf = try #require(LeafCertificate(certinfo: ["Subject:CN = a.example", "X509v3 Subject Alternative Name:DNS:*.example"]))
        leaf.dnsNames = ["*.example"]
        let sites = [CertificateSite(host: "api.example", port: 443, reached: "the URL audited", chain: ServedChain([]), leaf: leaf),
                     CertificateSite(host: "www.api.example", port: 8443, reached: "redirect hop 1", chain: ServedChain([]), leaf: leaf)]
        let finding = CertificateRules.combine("cert.san", "t", sites, CertificateRules.san)
        #expect(finding.severity == .fail)
        #expect(finding.observed == "api.example:443 (the URL audited): api.example is in the subjectAltName; www.api.example:8443 (redirect hop 1): www.api.example is not in the subjectAltName (DNS *.example)",
                "\(finding.observed)")
        #expect(finding.evidence.allSatisfy { $0.hasPrefix("api.example:443: ") || $0.hasPrefix("www.api.example:8443: ") })
        let unreachable = CertificateSite(host: "b.example", port: 443, reached: "redirect hop 2", chain: ServedChain([]), error: "refused")
        #expect(CertificateRules.combine("cert.san", "t", [sites[0], unreachable], CertificateRules.san).severity == .fail)
    }
}

extension ServedCertificate {
    /// The same certificate at another place in the order sent.
    func renumbered(_ index: Int) -> ServedCertificate {
        var copy = self
        copy.index = index
        return copy
    }
}
