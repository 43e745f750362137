import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import SondeAudit
import SondeCore
@testable import SondeReport

/// Audited URLs recorded through a `RunRecorder` as items of the `audits` section, rendered by
/// `AuditSectionRenderer` (`sonde audit`, `audit` checks): report.json's `audits[]`, a JUnit case per
/// finding (failed at the audit's `failOn`), the HTML section with every string escaped, the
/// Prometheus series, the run's status; and `sonde report` (the journal rendered again) gives the
/// same audits.
@Suite struct AuditReportTests {
    static let hostile = "<script>alert(1)</script>&\"'"

    static func target(url: String, severities: [(String, AuditFinding.Severity)]) -> AuditTarget {
        var target = AuditTarget(url: url, host: "127.0.0.1", port: 443, durationMs: 42,
                                 offers: [AuditTLSOffer(version: "TLSv1.2", accepted: true, ciphers: ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"])])
        target.findings = severities.map { id, severity in
            AuditFinding(id: id, severity: severity, title: "title " + hostile, observed: "seen " + hostile,
                         evidence: ["HTTP/2 200 " + hostile], client: "client " + hostile, rule: "javascript:alert(1)")
        }
        target.requests = [AuditRequestCost(name: "get", request: "GET " + url,
                                            cold: AuditConnectionCost(protocolName: "h2", reused: false, totalMs: 120.04, setupMs: 80, waitMs: 30, wireBytes: 10),
                                            warm: AuditConnectionCost(protocolName: "h2", reused: true, totalMs: 31.5, setupMs: nil, waitMs: 30, wireBytes: 10))]
        return target
    }

    static let renderers = ReportSectionRenderers([AuditSectionRenderer()])

    /// The audits of an outcome's `audits` section.
    static func audits(_ outcome: RunOutcome) -> [AuditResult] {
        AuditSectionRenderer.results(outcome.sections.first { $0.name == "audits" }?.items ?? [])
    }

    /// report.json's `audits`, decoded.
    static func audits(inReport path: String) throws -> [AuditResult] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let array = try #require(object["audits"])
        return try JSONDecoder().decode([AuditResult].self, from: JSONSerialization.data(withJSONObject: array))
    }

    static func record(_ audits: [AuditResult], check: String? = nil) throws -> (directory: String, folder: RunFolder, outcome: RunOutcome) {
        let directory = NSTemporaryDirectory() + "sonde-audits-\(UUID().uuidString)"
        let folder = try RunFolder(outputDirectory: directory, runID: "run")
        let run = RunInfo(id: "run", command: "audit", arguments: [], startedAt: .now(), status: .error, insecure: false, redacted: true)
        let recorder = try RunRecorder(folder: folder, tool: ToolInfo(libcurl: "x", features: []), run: run, checkKinds: ["audit"],
                                       renderers: renderers)
        if let check { try recorder.beginCheck(name: check, kind: "audit", thresholds: []) }
        for var audit in audits {
            audit.check = check
            try recorder.record(section: AuditSectionRenderer.name, item: audit)
        }
        if check != nil { try recorder.endCheck(error: nil, interrupted: false) }
        let outcome = try recorder.finish(status: audits.allSatisfy(\.passed) ? .passed : .failed, prometheusPath: directory + "/audit.prom")
        return (directory, folder, outcome)
    }

    @Test func aFailingFindingFailsTheRunAndEveryFileShowsTheAudit() throws {
        let clean = AuditResult(failOn: .fail, target: Self.target(url: "https://a.example/", severities: [("hsts", .pass), ("http.h2", .warn)]))
        let flawed = AuditResult(failOn: .fail, target: Self.target(url: "https://b.example/" + Self.hostile,
                                                                      severities: [("cert.signature", .fail), ("hsts", .info)]))
        #expect(clean.passed && !flawed.passed)
        #expect(!AuditResult(failOn: .warn, target: clean.target).passed, "fail-on warn fails on a warn")
        let (directory, folder, outcome) = try Self.record([clean, flawed])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(outcome.run.status == .failed && outcome.exitStatus == .failure)
        #expect(Self.audits(outcome) == [clean, flawed])

        let reported = try Self.audits(inReport: folder.reportJSONPath)
        #expect(reported == [clean, flawed])
        #expect(reported.first?.target.requests.first?.warm?.reused == true)

        // JUnit: one case per finding; the fail is a <failure>, the warn is not (fail-on fail).
        let junit = try String(contentsOfFile: folder.junitPath, encoding: .utf8)
        let xml = try XMLDocument(data: Data(junit.utf8))
        let cases = try xml.nodes(forXPath: "//testcase[@classname='sonde.audit']")
        #expect(cases.count == 4)
        let failures = try xml.nodes(forXPath: "//testcase[@classname='sonde.audit'][failure]").compactMap { ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue }
        #expect(failures == ["https://b.example/" + Self.hostile + " cert.signature"], "\(failures)")
        let root = try #require(xml.rootElement())
        #expect(root.attribute(forName: "failures")?.stringValue == "1" && root.attribute(forName: "tests")?.stringValue == "4", "\(junit)")

        // HTML: the section, the costs, nothing unescaped, no javascript: link.
        let html = try String(contentsOfFile: folder.reportHTMLPath, encoding: .utf8)
        #expect(html.contains("<h2>Audit <code>https://a.example/</code></h2>"))
        #expect(html.contains("h2 new connection 120.0 ms (setup 80.0 ms, wait 30.0 ms)") && html.contains("h2 reused connection 31.5 ms"), "\(html)")
        #expect(!html.contains("<script>") && !html.contains("href=\"javascript:"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"))

        // Prometheus: a series per finding, valued by rank, and the audit's success.
        let prom = try String(contentsOfFile: directory + "/audit.prom", encoding: .utf8)
        #expect(prom.contains(#"sonde_audit_finding{url="https://a.example/",id="http.h2",severity="warn"} 2"#), "\(prom)")
        #expect(prom.contains(#"sonde_audit_success{url="https://a.example/"} 1"#))
        #expect(prom.contains(#"sonde_audit_request_seconds{url="https://a.example/",request="get",connection="warm"} 0.0315"#), "\(prom)")

        // `sonde report`: the journal gives the same audits and status.
        let again = try ReportFiles.render(folder: folder, renderers: Self.renderers)
        #expect(Self.audits(again) == [clean, flawed] && again.run.status == .failed)
    }

    /// In a suite, an audit check is judged by its own audits; its JUnit suite holds its cases.
    @Test func anAuditCheckIsJudgedByItsFindings() throws {
        let flawed = AuditResult(failOn: .fail, target: Self.target(url: "https://b.example/", severities: [("tls.min-version", .fail)]))
        let (directory, folder, outcome) = try Self.record([flawed], check: "tls")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(outcome.checks.map(\.status) == [.failed] && outcome.checks.first?.kind == "audit")
        #expect(Self.audits(outcome).first?.check == "tls")
        let junit = try String(contentsOfFile: folder.junitPath, encoding: .utf8)
        #expect(junit.contains(#"<testsuite name="tls" tests="1" failures="1""#), "\(junit)")
        let prom = try String(contentsOfFile: directory + "/audit.prom", encoding: .utf8)
        #expect(prom.contains(#"sonde_audit_finding{check="tls",url="https://b.example/",id="tls.min-version",severity="fail"} 3"#), "\(prom)")
    }
}

/// The audit as a generic report section: its journal line keeps the shape sonde wrote before
/// (`{"audit":…,"type":"audit"}`, the bytes an encoder of that line gives), `sonde report` reads
/// it back through the renderer into the same report.json items, and a line that does not read
/// as an audit is skipped and counted.
@Suite struct AuditSectionJournalTests {
    /// The journal line sonde wrote for an audited URL before the audit was a section.
    struct OldAuditLine: Encodable {
        let audit: AuditResult
        var type = "audit"
    }

    @Test func anAuditRoundTripsFromTheJournalToTheReport() throws {
        let passed = AuditResult(failOn: .fail, target: AuditReportTests.target(url: "https://a.example/x?token=<redacted>", severities: [("hsts", .pass)]))
        let failed = AuditResult(failOn: .warn, target: AuditReportTests.target(url: "https://b.example/", severities: [("http.h2", .warn)]))
        let (directory, folder, outcome) = try AuditReportTests.record([passed, failed])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(outcome.run.status == .failed)
        let encoder = ReportJSONWriter.makeEncoder()
        let journal = try String(contentsOfFile: folder.journalPath, encoding: .utf8).split(separator: "\n").map(String.init)
        let lines = journal.filter { $0.hasSuffix(#","type":"audit"}"#) }
        let expected = try [passed, failed].map { String(decoding: try encoder.encode(OldAuditLine(audit: $0)), as: UTF8.self) }
        #expect(lines == expected)
        #expect(!journal.contains { $0.contains(#""type":"section""#) })

        // report.json's `audits` is the items as an encoder of `[AuditResult]` writes them, where the key always was.
        let report = try String(contentsOfFile: folder.reportJSONPath, encoding: .utf8)
        let array = String(decoding: try encoder.encode([passed, failed]), as: UTF8.self)
        #expect(report.contains(#""resumeVerdicts":[],"audits":"# + array + #","captures":"#))

        // Rebuilt from the journal alone: the same items, the same bytes.
        let before = try Data(contentsOf: URL(fileURLWithPath: folder.reportJSONPath))
        let again = try ReportFiles.render(folder: folder, renderers: AuditReportTests.renderers)
        #expect(AuditReportTests.audits(again) == [passed, failed] && again.losses.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.reportJSONPath)) == before)

        // Without the audit's renderer its lines are of a kind the reader does not know: skipped, said.
        let bare = try JournalScan.read(folder: folder)
        #expect(bare.sections.isEmpty && bare.losses.unreadable == 2)
    }

    @Test func anAuditLineThatDoesNotReadIsSkippedAndCounted() throws {
        let result = AuditResult(failOn: .fail, target: AuditReportTests.target(url: "https://a.example/", severities: [("hsts", .pass)]))
        let (directory, folder, _) = try AuditReportTests.record([result])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var journal = try String(contentsOfFile: folder.journalPath, encoding: .utf8)
        let endLine = try #require(journal.split(separator: "\n").last)
        journal = journal.replacingOccurrences(of: endLine + "\n", with: #"{"audit":{"failOn":"never"},"type":"audit"}"# + "\n" + endLine + "\n")
        try journal.write(toFile: folder.journalPath, atomically: false, encoding: .utf8)
        let scan = try JournalScan.read(folder: folder, renderers: AuditReportTests.renderers)
        #expect(scan.losses.unreadable == 1)
        #expect(AuditSectionRenderer.results(scan.sections.first?.items ?? []) == [result])
    }
}

/// The `ipv6.app-review` table's URL cell: escaped, with line-break opportunities at the URL's parts only.
@Suite struct AuditSectionURLTests {
    @Test func aBreakableURLIsEscapedAndBreaksAtItsParts() {
        let html = AuditSection.breakable("https://h.example/a/b?x=<i>&y=\"1'")
        #expect(html == "https://<wbr>h.example/<wbr>a/<wbr>b?<wbr>x=<wbr>&lt;i&gt;&amp;<wbr>y=<wbr>&quot;1&#39;", "\(html)")
        #expect(html.replacingOccurrences(of: "<wbr>", with: "").contains("<") == false)
        #expect(AuditSection.breakable("http://h/") == "http://<wbr>h/")
    }
}
