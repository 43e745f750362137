import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// `sonde audit`'s scanner, HTTP probes and rules against the nginx corpus (scripts/audit-corpus.sh):
/// every planted flaw is found, the clean servers have no `fail`, and each host is audited in bounded
/// time.
@Suite(.serialized) struct AuditCorpusTests {
    /// The finding each flawed TLS server must raise, and the severity at least.
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

    /// The findings each HTTP server must raise, at exactly these severities; every other finding
    /// of an HTTP server is `pass` or `info` (the flaw is found, and nothing else is blamed).
    static let httpPlanted: [String: [String: AuditFinding.Severity]] = [
        "http-clean": [:],
        "http-gzip-off": ["http.compression": .warn],
        "http-no-vary": ["http.compression": .warn],
        "http-no-validator": ["http.caching": .warn],
        "http-no-304": ["http.caching": .warn],
        // HTTP/1.1 only as well: nginx sends Connection: close with keepalive_timeout 0 on HTTP/1.1.
        "http-close": ["http.keep-alive": .warn, "http.h2": .warn],
        "http-h1": ["http.h2": .warn],
        // Without a libcurl with HTTP/3 the alternative is not tried (info).
        "http-alt-svc-dead": AuditOptions.canTryHTTP3 ? ["h3.works": .warn] : [:],
        "http-secrets": ["url.secrets": .warn],
        "http-downgrade": ["http.redirects": .fail],
        "http-cleartext": ["http.cleartext": .fail],
        "http-redirect": ["http.cleartext": .warn],
    ]

    /// The findings the clean HTTP server (and, for these ids, every HTTP server not planted with
    /// them) must pass.
    static let cleanPasses = ["http.compression", "http.caching", "http.keep-alive", "http.h2", "http.redirects", "url.secrets", "http.cleartext"]

    static func audit(_ server: AuditCorpus.Server, _ corpus: AuditCorpus) -> AuditTarget {
        Auditor(options: AuditOptions(caFile: corpus.caFile)).audit(server.url)
    }

    static func lines(_ target: AuditTarget) -> [String] {
        target.findings.map { "\($0.severity.rawValue) \($0.id): \($0.observed)" }
    }

    @Test func everyPlantedFlawIsFoundAndTheCleanServerHasNoFail() throws {
        let corpus = try AuditCorpus.shared.get()
        #expect(corpus.servers(in: "tls").count == 9)
        for server in corpus.servers(in: "tls") {
            let target = Self.audit(server, corpus)
            #expect(target.error == nil, "\(server.name): \(target.error ?? "")")
            let lines = Self.lines(target)
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

    /// Each HTTP server's planted finding at its severity, nothing else above `info`, and the
    /// clean HTTP server passing every HTTP finding that can pass.
    @Test func everyPlantedHTTPFlawIsFoundAndNothingElseIsBlamed() throws {
        let corpus = try AuditCorpus.shared.get()
        let servers = corpus.servers(in: "http")
        #expect(Set(servers.map(\.name)) == Set(Self.httpPlanted.keys))
        for server in servers {
            let target = Self.audit(server, corpus)
            let lines = Self.lines(target)
            print("== \(server.name) (\(Int(target.durationMs)) ms)\n" + lines.joined(separator: "\n"))
            #expect(target.error == nil, "\(server.name): \(target.error ?? "")")
            let planted = Self.httpPlanted[server.name] ?? [:]
            for (id, severity) in planted {
                let finding = target.findings.first { $0.id == id }
                #expect(finding?.severity == severity, "\(server.name): \(id) is \(finding?.severity.rawValue ?? "missing"), expected \(severity.rawValue): \(lines)")
                #expect(finding.map { !$0.evidence.isEmpty && !$0.client.isEmpty && $0.rule != nil } == true, "\(server.name): \(id) lacks evidence, client or rule")
            }
            for finding in target.findings where planted[finding.id] == nil {
                #expect(finding.severity <= .info, "\(server.name): \(finding.id) is \(finding.severity.rawValue): \(finding.observed)")
            }
            for id in Self.cleanPasses where planted[id] == nil && server.name == "http-clean" {
                #expect(target.findings.first { $0.id == id }?.severity == .pass, "http-clean: \(id) does not pass: \(lines)")
            }
        }
    }

    /// What the evidence says, beyond the severities: the encoding and Vary, the 304, the
    /// Connection: close, the secret's name and never its value.
    @Test func theEvidenceShowsTheLinesAndHidesTheSecret() throws {
        let corpus = try AuditCorpus.shared.get()
        func finding(_ name: String, _ id: String) throws -> AuditFinding {
            let server = try #require(corpus.server(name))
            return try #require(Self.audit(server, corpus).findings.first { $0.id == id }, "\(name): no \(id)")
        }
        let compressed = try finding("http-clean", "http.compression")
        #expect(compressed.observed.hasPrefix("gzip: ") && compressed.observed.contains("Vary: Accept-Encoding"), "\(compressed.observed)")
        #expect(compressed.evidence.contains { $0.contains("Accept-Encoding: gzip, deflate, br") }, "\(compressed.evidence)")
        let revalidated = try finding("http-clean", "http.caching")
        #expect(revalidated.evidence.contains { $0.contains("If-None-Match") } && revalidated.evidence.contains { $0.hasPrefix("← 304") },
                "\(revalidated.evidence)")
        let closed = try finding("http-close", "http.keep-alive")
        #expect(closed.observed.contains("Connection: close"), "\(closed.observed)")
        let secrets = try finding("http-secrets", "url.secrets")
        #expect(secrets.observed.contains("parameter access_token"), "\(secrets.observed)")
        let everything = ([secrets.observed] + secrets.evidence).joined(separator: "\n")
        #expect(!everything.contains("corpus-secret-token"), "the token's value is in the finding: \(everything)")
        let redirected = try finding("http-redirect", "hsts")
        #expect(redirected.severity == .pass, "the https URL an http one leads to is TLS-checked: \(redirected.observed)")
    }
}
