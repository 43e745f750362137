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
        #expect(AuditRules.matches(pattern: "*.example.com", host: "api.example.com"))
        #expect(!AuditRules.matches(pattern: "*.example.com", host: "a.b.example.com"))
        #expect(!AuditRules.matches(pattern: "*.example.com", host: "example.com"))
        #expect(AuditRules.matches(pattern: "localhost", host: "localhost"))
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
        #expect(AuditFinding.Severity.pass < .info && AuditFinding.Severity.info < .warn && AuditFinding.Severity.warn < .fail)
        #expect(AuditFinding.blank.fieldRangeProblem == nil)
    }

    @Test func aURLThatIsNotHTTPSOrHasABadPortIsRefusedBeforeAnythingIsSent() {
        #expect(throws: AuditURLError.self) { try Auditor.endpoint(of: "http://127.0.0.1/", options: AuditOptions()) }
        #expect(throws: AuditURLError.self) { try Auditor.endpoint(of: "https://127.0.0.1:70000/", options: AuditOptions()) }
        #expect((try? Auditor.endpoint(of: "https://[::1]:8443/x", options: AuditOptions()))?.host == "::1")
        #expect((try? Auditor.endpoint(of: "https://example.com/", options: AuditOptions()))?.port == 443)
    }
}
