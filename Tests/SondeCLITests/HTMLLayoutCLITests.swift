import Foundation
import Testing

/// The HTML report's layout at a 1,400 px window, measured in headless Chromium
/// (`Fixtures/measure_html.py`, through the DevTools protocol: the page itself runs no script),
/// issue 27 #16: nothing wider than the page (the page's own width, and every `.scroll` box's
/// content within the box). The waterfall's scale and the charts: `ChartScaleCLITests`.
@Suite(.serialized) struct HTMLLayoutCLITests {
    static let width = 1400

    /// The layout facts of `page` at `width` px.
    static func measure(_ page: String) throws -> [String: Any] {
        let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/measure_html.py",
                                                       page, String(width)], timeout: 120)
        #expect(result.status == 0, "Chromium (installed by make test) must run: \(result.stderr)")
        return try Harness.json(result.stdout)
    }

    /// The page is no wider than the window and no `.scroll` box holds content wider than itself.
    static func expectFits(_ facts: [String: Any], _ what: String) {
        let page = facts["pageScrollWidth"] as? Int ?? .max
        #expect(page <= width, "\(what): the page is \(page) px wide")
        let boxes = facts["boxes"] as? [[String: Any]] ?? []
        #expect(!boxes.isEmpty, "\(what): no .scroll box was measured")
        for box in boxes {
            let client = box["clientWidth"] as? Int ?? 0, scroll = box["scrollWidth"] as? Int ?? .max
            #expect(scroll <= client + 1, "\(what): '\(box["heading"] ?? "?")' holds \(scroll) px in \(client) px")
        }
    }

    private func folder(_ output: String) throws -> String {
        output + "/" + (try #require(try Harness.entries(of: output).first))
    }

    /// A lying-range server: the verdict's evidence (a dozen headers per check) and the trials'
    /// corruption messages (two SHA-256 digests) wrap inside the page.
    @Test func aResumeReportFitsTheWindow() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", target.http + "/bytes/2000000?mode=lyingRange", "--trials", "2", "--interrupt-at", "50%",
                                        "--output-dir", output], timeout: 120)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let facts = try Self.measure(try folder(output) + "/report.html")
        Self.expectFits(facts, "resume")
        let headings = (facts["boxes"] as? [[String: Any]] ?? []).compactMap { $0["heading"] as? String }
        #expect(headings.contains { $0.hasPrefix("Resumability") } && headings.contains("Resume trials"), "\(headings)")
    }

    /// Audits of the corpus (a redirect whose Location carries a token, a TLS 1.0 server's suite
    /// lists, the SHA-1 leaf): the findings' evidence, the suites and the request lines wrap inside
    /// the page.
    @Test func anAuditReportFitsTheWindow() throws {
        let corpus = try AuditCorpusProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["audit", "--cacert", corpus.caFile, "--output-dir", output,
                                        try corpus.url("http-secrets"), try corpus.url("tls10"), try corpus.url("sha1")], timeout: 120)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let facts = try Self.measure(try folder(output) + "/report.html")
        Self.expectFits(facts, "audit")
        let headings = (facts["boxes"] as? [[String: Any]] ?? []).compactMap { $0["heading"] as? String }
        #expect(headings.filter { $0.hasPrefix("Audit") }.count >= 3, "\(headings)")
    }

    /// The TCP (14 columns) and QUIC (12 columns) packet-evidence tables of two captures.
    @Test func thePacketEvidenceTablesFitTheWindow() throws {
        let corpus = Harness.root + "/Tests/SondeCaptureTests/Corpus/"
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["analyze", corpus + "tls-curl-loopback.pcap", corpus + "quic-h3-loopback.pcap", "--output-dir", output])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let facts = try Self.measure(try folder(output) + "/report.html")
        Self.expectFits(facts, "packet evidence")
        #expect((facts["boxes"] as? [[String: Any]])?.count == 2)
    }
}
