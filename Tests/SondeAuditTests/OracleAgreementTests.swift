import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// sonde's TLS scan against testssl.sh 3.0.8 and sslscan on every server of the corpus: accepted
/// protocol versions and cipher suites agree in every case; chain completeness, OCSP stapling and
/// HSTS where the oracle reports them. The agreement table is printed and written to
/// `$SONDE_AUDIT_TABLE` (default: .build/audit-agreement.md).
@Suite(.serialized) struct OracleAgreementTests {
    struct Row: Sendable {
        var config: String
        var fact: String
        var sonde: String
        var testssl: String
        var sslscan: String
        var agrees: Bool
    }

    static func sondeView(_ target: AuditTarget) -> OracleView {
        var view = OracleView()
        for offer in target.offers where offer.accepted == true {
            view.versions.insert(offer.version)
            view.ciphers[offer.version] = Set(offer.ciphers.compactMap { CipherSuiteCatalog.named($0)?.testsslCode })
        }
        view.chainOK = target.findings.first { $0.id == "cert.chain" }.map { $0.severity == .pass }
        view.stapled = target.findings.first { $0.id == "tls.ocsp-stapling" }.map { $0.severity == .pass }
        view.hsts = target.findings.first { $0.id == "hsts" }.map { $0.severity == .pass }
        return view
    }

    static func text(_ set: Set<String>?) -> String { set.map { $0.isEmpty ? "—" : $0.sorted().joined(separator: " ") } ?? "n/a" }
    static func text(_ flag: Bool?) -> String { flag.map { $0 ? "yes" : "no" } ?? "n/a" }

    @Test func versionsSuitesChainStaplingAndHSTSAgreeWithTestsslAndSSLScan() throws {
        let corpus = try AuditCorpus.shared.get()
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/testssl"), "testssl.sh is missing: make deps-test installs it")
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/sslscan"), "sslscan is missing: make deps-test installs it")
        // The TLS group: the HTTP group serves the clean TLS configuration again.
        let servers = corpus.servers(in: "tls")
        let targets = servers.map { Auditor(options: AuditOptions(caFile: corpus.caFile)).audit($0.url) }
        let sslscan = servers.map { SSLScanOracle.view(port: $0.port) }
        // testssl.sh takes about a minute per server: three at a time.
        let directory = corpus.directory
        let caFile = corpus.caFile
        let testssl = ProbePool.map(servers, width: 3, deadline: monotonicMicroseconds() + 1_800_000_000) {
            TestsslOracle.view(port: $0.port, caFile: caFile, directory: directory)
        }
        var rows: [Row] = []
        for (index, server) in servers.enumerated() {
            let sonde = Self.sondeView(targets[index])
            guard let (tsView, tsOutput) = testssl[index] else { Issue.record("\(server.name): testssl did not run"); continue }
            let (ssView, _) = sslscan[index]
            let untested = Dictionary(uniqueKeysWithValues: targets[index].offers.map {
                ($0.version, Set($0.untested.compactMap { CipherSuiteCatalog.named($0)?.testsslCode }))
            })
            #expect(!tsView.versions.isEmpty || !sonde.versions.isEmpty, "\(server.name): testssl said nothing: \(tsOutput.suffix(1500))")
            rows.append(Row(config: server.name, fact: "versions", sonde: Self.text(sonde.versions), testssl: Self.text(tsView.versions),
                            sslscan: Self.text(ssView.versions), agrees: sonde.versions == tsView.versions && sonde.versions == ssView.versions))
            for version in ["TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"] {
                let mine = sonde.ciphers[version] ?? []
                let skip = untested[version] ?? []
                let theirs = (tsView.ciphers[version] ?? []).subtracting(skip)
                let scanned = (ssView.ciphers[version] ?? []).subtracting(skip)
                guard !mine.isEmpty || !theirs.isEmpty || !scanned.isEmpty else { continue }
                rows.append(Row(config: server.name, fact: "\(version) suites", sonde: Self.text(mine), testssl: Self.text(theirs),
                                sslscan: Self.text(scanned), agrees: mine == theirs && mine == scanned))
            }
            rows.append(Row(config: server.name, fact: "chain complete", sonde: Self.text(sonde.chainOK), testssl: Self.text(tsView.chainOK),
                            sslscan: "n/a", agrees: sonde.chainOK == tsView.chainOK))
            rows.append(Row(config: server.name, fact: "OCSP stapled", sonde: Self.text(sonde.stapled), testssl: Self.text(tsView.stapled),
                            sslscan: Self.text(ssView.stapled),
                            agrees: sonde.stapled == tsView.stapled && (ssView.stapled == nil || ssView.stapled == sonde.stapled)))
            // testssl.sh reads HTTP headers only when its own `openssl s_client` (the system's
            // OpenSSL 3, default security level) can talk to the server: on a TLS 1.0/1.1-only
            // server it says "Couldn't determine service, skipping all HTTP checks" and reports no
            // HSTS, which is no verdict to disagree with.
            rows.append(Row(config: server.name, fact: "HSTS", sonde: Self.text(sonde.hsts), testssl: Self.text(tsView.hsts), sslscan: "n/a",
                            agrees: tsView.hsts == nil || sonde.hsts == tsView.hsts))
            if server.name == "clean" {
                #expect(tsView.hsts != nil && tsView.stapled != nil && tsView.chainOK != nil, "testssl reported no HSTS/stapling/chain on the clean server")
            }
        }
        var table = "| config | fact | sonde | testssl.sh 3.0.8 | sslscan 2.0.7 | agree |\n| --- | --- | --- | --- | --- | --- |\n"
        for row in rows {
            table += "| \(row.config) | \(row.fact) | \(row.sonde) | \(row.testssl) | \(row.sslscan) | \(row.agrees ? "yes" : "**no**") |\n"
        }
        print(table)
        let path = ProcessInfo.processInfo.environment["SONDE_AUDIT_TABLE"] ?? (AuditCorpus.root + "/.build/audit-agreement.md")
        try? table.write(toFile: path, atomically: true, encoding: .utf8)
        for row in rows where !row.agrees {
            Issue.record("\(row.config) \(row.fact): sonde \(row.sonde), testssl \(row.testssl), sslscan \(row.sslscan)")
        }
    }
}
