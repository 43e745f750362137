import CurlShim
import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// The pieces of the audit that need no server: the catalog, the SCT count, name matching, the
/// classification of libcurl results and the finding model's JSON.
struct AuditRulesTests {
    @Test func theCatalogHoldsApplesElevenATSSuitesAndNoDuplicates() {
        let all = CipherSuiteCatalog.tls13 + CipherSuiteCatalog.legacy
        #expect(CipherSuiteCatalog.legacy.filter(\.atsListed).count == 11)
        #expect(CipherSuiteCatalog.legacy.filter(\.atsListed).allSatisfy { $0.keyExchange == .ecdhe && $0.iana.contains("_AES_") })
        #expect(Set(all.map(\.code)).count == all.count)
        #expect(Set(all.map(\.openSSL)).count == all.count)
        #expect(CipherSuiteCatalog.named("ECDHE-RSA-AES128-GCM-SHA256")?.testsslCode == "xc02f")
        #expect(CipherSuiteCatalog.named("AES128-SHA")?.testsslCode == "x2f")
        #expect(CipherSuiteCatalog.suites(for: .tls1_0).allSatisfy { $0.minimum == .tls1_0 })
        #expect(CipherSuiteCatalog.suites(for: .tls1_2).count == CipherSuiteCatalog.legacy.count)
        #expect(CipherSuiteCatalog.named("AES128-GCM-SHA256")?.forwardSecret == false)
    }

    @Test func theEmbeddedSCTListIsCountedAndAMalformedOneIsRefused() {
        // OCTET STRING { list length 8, SCT of 2 bytes, SCT of 2 bytes }
        let two: [UInt8] = [0x04, 0x0A, 0x00, 0x08, 0x00, 0x02, 0xAA, 0xBB, 0x00, 0x02, 0xCC, 0xDD]
        #expect(LeafCertificate.countSCTs(extensionValue: two) == 2)
        let overlong: [UInt8] = [0x04, 0x0A, 0x00, 0x08, 0x00, 0x09, 0xAA, 0xBB, 0x00, 0x02, 0xCC, 0xDD]
        #expect(LeafCertificate.countSCTs(extensionValue: overlong) == nil)
        let badTotal: [UInt8] = [0x04, 0x04, 0x00, 0x09, 0x00, 0x00]
        #expect(LeafCertificate.countSCTs(extensionValue: badTotal) == nil)
        #expect(LeafCertificate.countSCTs(extensionValue: [0x05, 0x00]) == nil)
    }

    @Test func wildcardsMatchOneLeftMostLabelOnly() {
        #expect(CertificateRules.matches(pattern: "*.example.com", host: "api.example.com"))
        #expect(!CertificateRules.matches(pattern: "*.example.com", host: "a.b.example.com"))
        #expect(!CertificateRules.matches(pattern: "*.example.com", host: "example.com"))
        #expect(CertificateRules.matches(pattern: "localhost", host: "localhost"))
    }

    @Test func aLocalRefusalIsTheClientsAndAnAlertTheServers() {
        #expect(TLSHandshake.classify(CURLE_SSL_CONNECT_ERROR, detail: "OpenSSL/3.6.5: error:0A0000B5:SSL routines::no ciphers available") == .clientCannot)
        #expect(TLSHandshake.classify(CURLE_SSL_CONNECT_ERROR, detail: "OpenSSL/3.6.5: error:0A000410:SSL routines::ssl/tls alert handshake failure") == .refused)
    }

    @Test func aFindingRoundTripsThroughItsJSONAndTheSeveritiesAreOrdered() throws {
        let finding = AuditFinding(id: "cert.key-size", severity: .fail, title: "RSA ≥ 2048", observed: "RSA 1024 bits", evidence: ["a", "b"],
                                   client: "refused", rule: "https://support.apple.com/103769")
        var output = JSONOutput()
        finding.writeJSON(to: &output)
        let decoded = try JSONDecoder().decode(AuditFinding.self, from: Data(output.bytes))
        #expect(decoded == finding)
        let fixed = AuditFixes.adding(to: finding)
        #expect(fixed.fix?.contains("RSA key of 2048 bits") == true)
        output = JSONOutput()
        fixed.writeJSON(to: &output)
        #expect(try JSONDecoder().decode(AuditFinding.self, from: Data(output.bytes)) == fixed)
        #expect(AuditFixes.adding(to: AuditFinding(id: "hsts", severity: .pass, title: "", observed: "", client: "")).fix == nil)
        #expect(AuditFinding.Severity.pass < .info && AuditFinding.Severity.info < .warn && AuditFinding.Severity.warn < .fail)
        #expect(AuditFinding.blank.fieldRangeProblem == nil)
    }

    @Test func aURLThatIsNotHTTPSOrHasABadPortIsRefusedBeforeAnythingIsSent() {
        #expect(throws: AuditURLError.self) { try Auditor.endpoint(of: "http://127.0.0.1/", options: AuditOptions()) }
        #expect(throws: AuditURLError.self) { try Auditor.endpoint(of: "https://127.0.0.1:70000/", options: AuditOptions()) }
        #expect((try? Auditor.endpoint(of: "https://[::1]:8443/x", options: AuditOptions()))?.host == "::1")
        #expect((try? Auditor.endpoint(of: "https://example.com/", options: AuditOptions()))?.port == 443)
    }

    /// Every finding that can warn or fail says how to fix it.
    @Test func everyFindingIDHasAFixLine() {
        let informational: Set<String> = ["tls.key-exchange", "h3.advertised"]
        for id in AuditRules.ids where !informational.contains(id) {
            #expect(AuditFixes.lines[id] != nil, "no fix line for \(id)")
        }
        #expect(Set(AuditFixes.lines.keys).isSubset(of: Set(AuditRules.ids)))
    }

    /// HSTS: a max-age under 180 days (testssl.sh's HSTS_MIN) warns as a missing one does.
    @Test func hstsNeedsAMaxAgeOf180Days() {
        func judged(_ value: String?) -> AuditFinding {
            let response = HandshakeOutcome(kind: .completed, curlCode: 0, detail: "", peer: nil, certificates: [], verifyResult: 0, milliseconds: 1,
                                            status: 200, headers: value.map { [HeaderField(name: "Strict-Transport-Security", value: $0)] } ?? [])
            let scan = TLSScanResult(endpoint: TLSEndpoint(host: "a.example", port: 443), error: nil, offers: [], preferred: response, verification: nil,
                                     stapling: nil, versionOutcomes: [:], acceptedSuites: [:], durationMs: 0, handshakes: 1)
            return AuditRules.hsts(AuditEvidence(host: "a.example", scan: scan, sites: [], now: Date(), privateTrust: false))
        }
        #expect(judged("max-age=300").severity == .warn && judged("max-age=300").observed == "max-age=300: 300 s, under 180 days")
        #expect(judged("max-age=15551999").severity == .warn)
        #expect(judged("max-age=15552000; includeSubDomains").severity == .pass)
        #expect(judged("max-age=\"31536000\"").observed == "max-age=31536000 (365 days)")
        #expect(judged("max-age=0").severity == .warn && judged(nil).severity == .warn)
        #expect(judged("max-age=99999999999999999999999").severity == .pass, "an absurd max-age is read, not trapped on")
    }
}
