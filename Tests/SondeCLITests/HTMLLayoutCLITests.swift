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

    /// The `ipv6.app-review` table of the example API (`AppReviewCLITests`'s, seven URLs of 23 to 47
    /// characters, four with DNS answers): each URL reads on one or two lines and each DNS cell on
    /// at most two (before, the "why" column took the width and left them 80 px: a URL on 4 to 7
    /// lines), the cells' text is the report's URLs unchanged (escaped, the break opportunities
    /// adding no text), and the page still fits the window.
    @Test func theAppReviewTableGivesItsURLsAndDNSRoom() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let api = try AppReviewCLITests.startAPI(directory: directory)
        defer { Harness.stop(api.pid, signal: SIGTERM) }
        let output = directory + "/out"
        let result = try Harness.sonde(["audit", "--output-dir", output, "--cdn-hosts", "media.partner.test"] + AppReviewCLITests.resolve(api.port)
                                       + ["http://api.\(AppReviewCLITests.site):\(api.port)/v1/feed"], timeout: 120)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let folder = try folder(output)
        let urls = try AppReviewCLITests.review(folder).urls.compactMap { $0["url"] as? String }
        let facts = try Self.measure(folder + "/report.html")
        Self.expectFits(facts, "app review")
        let rows = facts["appReview"] as? [[String: Any]] ?? []
        #expect(rows.compactMap { $0["url"] as? String } == urls, "the table's URLs are the report's")
        #expect(rows.count == 7 && rows.filter { ($0["dns"] as? String)?.hasPrefix("A ") == true }.count == 4, "\(rows)")
        for row in rows {
            #expect((row["urlLines"] as? Int ?? 99) <= 2, "\(row["url"] ?? "?") on \(row["urlLines"] ?? "?") lines in \(row["urlWidth"] ?? "?") px")
            #expect((row["dnsLines"] as? Int ?? 99) <= 2, "\(row["dns"] ?? "?") on \(row["dnsLines"] ?? "?") lines in \(row["dnsWidth"] ?? "?") px")
        }
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
