import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// `sonde audit`'s scanner and rules against the nginx corpus (scripts/audit-corpus.sh): every
/// planted flaw is found, the clean server has no `fail`, and each host is scanned in bounded time.
@Suite(.serialized) struct AuditCorpusTests {
    /// The finding each flawed server must raise, and the severity at least.
    static let planted: [String: (id: String, severity: AuditFinding.Severity)] = [
        "tls10": ("tls.min-version", .fail),
        "no-fs": ("tls.forward-secrecy", .fail),
        "rsa1024": ("cert.key-size", .fail),
        "sha1": ("cert.signature", .fail),
        "cn-only": ("cert.san", .fail),
        // A private root (--cacert): Apple's 398-day limit does not apply, the 825-day one does.
        "long-validity": ("cert.validity", .warn),
        "missing-intermediate": ("cert.chain", .fail),
        "hsts-off": ("hsts", .warn),
    ]

    static func audit(_ server: AuditCorpus.Server, _ corpus: AuditCorpus) -> AuditTarget {
        Auditor(options: AuditOptions(caFile: corpus.caFile)).audit(server.url)
    }

    @Test func everyPlantedFlawIsFoundAndTheCleanServerHasNoFail() throws {
        let corpus = try AuditCorpus.shared.get()
        #expect(corpus.servers.count == 9)
        for server in corpus.servers {
            let target = Self.audit(server, corpus)
            #expect(target.error == nil, "\(server.name): \(target.error ?? "")")
            let lines = target.findings.map { "\($0.severity.rawValue) \($0.id): \($0.observed)" }
            print("== \(server.name) (\(Int(target.durationMs)) ms)\n" + lines.joined(separator: "\n"))
            if server.name == "clean" {
                #expect(!target.findings.contains { $0.severity == .fail }, "clean: \(lines)")
                #expect(target.findings.count == AuditRules.ids.count)
                continue
            }
            guard let expected = Self.planted[server.name] else {
                Issue.record("no planted flaw listed for \(server.name)")
                continue
            }
            let finding = target.findings.first { $0.id == expected.id }
            #expect(finding != nil && finding!.severity >= expected.severity,
                    "\(server.name): \(expected.id) is \(finding?.severity.rawValue ?? "missing"), expected \(expected.severity.rawValue)+: \(lines)")
        }
    }
}
