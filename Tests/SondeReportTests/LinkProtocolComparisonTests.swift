import Foundation
import Testing
@testable import SondeCore
@testable import SondeReport

/// "p50 by link, URL and protocol" (issue 39, item 8): the protocols of a suite over links are
/// compared URL by URL, never pooled (a 1 KiB fetch and a 2 MiB one have no common median), and
/// each check's batch shows its wall time, which counts what tasks waited for a connection.
@Suite struct LinkProtocolComparisonTests {
    static let start = Timestamp(microsecondsSince1970: 1_800_000_000_000_000)

    /// A task over link `link` fetching `url` from `offsetMs` after the start for `totalMs`, one
    /// cold transaction over `proto` (failed: no response).
    static func task(_ url: String, proto: String, at offsetMs: Double, total totalMs: Double, failed: Bool = false, link: String? = "lte") -> ProbeTask {
        let t = TransactionMetrics(request: RequestRecord(method: "GET", url: url, headers: []),
                                   response: failed ? nil : ResponseRecord(statusCode: 200, headers: []),
                                   networkProtocolName: proto,
                                   phases: Phases(connect: 115, wait: 120, receive: max(0, totalMs - 235), total: totalMs))
        return ProbeTask(url: url, iteration: 0, taskInterval: TaskInterval(start: start.adding(microseconds: Int64(offsetMs * 1000)), durationMs: totalMs),
                         redirectCount: 0, error: failed ? TaskError(code: .timedOut, message: "timed out") : nil, transactionMetrics: [t], link: link)
    }

    static func check(_ name: String, _ tasks: [ProbeTask]) -> CheckReport {
        var builder = ProbeSummaryBuilder()
        for task in tasks { builder.add(task) }
        let link = LinkUse(conditions: LinkConditions(profile: "lossy-lte", spec: "lte,loss-down=1%", delayDownMs: 50, delayUpMs: 65, lossDownPercent: 1), seed: 1)
        return CheckReport(name: name, kind: "probe", status: .passed, startedAt: start, finishedAt: start, error: nil, thresholds: [],
                           summary: builder.result, link: link)
    }

    /// lossy h3: its 1 KiB fetches are quick, its 2 MiB fetches took 15.4 and 17.3 s; h1's took
    /// 1.6 and 1.8 s. Pooled, h3's median (the 1k fetches' side) looked better than h1's; per URL it does not.
    static let checks = [
        check("lossy-h1", [task("https://127.0.0.1:4001/1k.bin", proto: "http/1.1", at: 0, total: 360),
                           task("https://127.0.0.1:4001/1k.bin", proto: "http/1.1", at: 400, total: 350),
                           task("https://127.0.0.1:4001/blob", proto: "http/1.1", at: 800, total: 1600),
                           task("https://127.0.0.1:4001/blob", proto: "http/1.1", at: 2500, total: 1800)]),
        check("lossy-h3", [task("https://127.0.0.1:4002/1k.bin", proto: "h3", at: 0, total: 250),
                           task("https://127.0.0.1:4002/1k.bin", proto: "h3", at: 300, total: 240),
                           task("https://127.0.0.1:4002/blob", proto: "h3", at: 600, total: 15_400),
                           task("https://127.0.0.1:4002/blob", proto: "h3", at: 16_100, total: 17_300),
                           task("https://127.0.0.1:4002/blob", proto: "h3", at: 33_500, total: 30_000, failed: true)]),
    ]

    @Test func eachURLIsComparedOnItsOwn() throws {
        let comparison = try #require(LinkProtocolComparison(Self.checks))
        let total = try #require(comparison.phases.firstIndex(of: "total"))
        #expect(comparison.rows.map(\.resource) == ["/1k.bin", "/1k.bin", "/blob", "/blob"], "\(comparison.rows.map(\.resource))")
        let blob = comparison.rows.filter { $0.resource == "/blob" }
        let h1 = try #require(blob.first { $0.check == "lossy-h1" }), h3 = try #require(blob.first { $0.check == "lossy-h3" })
        // Each median is of its own URL's fetches (within the 1 % of the per-URL tables).
        let h1Total = try #require(h1.figures?.p50[total]), h3Total = try #require(h3.figures?.p50[total])
        #expect(abs(h1Total - 1600) <= 16 && abs(h3Total - 15_400) <= 154, "\(h1Total) \(h3Total)")
        #expect(h1.protocolName == "http/1.1" && h3.protocolName == "h3")
        #expect(h3.tasks == 3 && h3.failedTasks == 1)
        let batches = comparison.batches.map { "\($0.check) \($0.tasks) \($0.failedTasks) \($0.wallMs)" }
        #expect(batches == ["lossy-h1 4 0 4300.0", "lossy-h3 5 1 63500.0"], "\(batches)")
    }

    @Test func theTerminalAndTheHTMLShowURLsAndWallTimes() throws {
        let terminal = TerminalRenderer(useColor: false).render(checks: Self.checks)
        #expect(terminal.contains("p50 by link, URL and protocol"), "\(terminal)")
        let lines = terminal.split(separator: "\n").map(String.init)
        let blob = try #require(lines.firstIndex { $0 == "  /blob" }, "\(terminal)")
        // The last column is the total's median, of the URL's own fetches (within 1 %).
        func total(_ line: String) -> Double { Double(line.split(separator: " ").last ?? "") ?? -1 }
        #expect(lines[blob + 1].hasPrefix("    lossy-h1 http/1.1 cold ×2") && abs(total(lines[blob + 1]) - 1600) <= 16, "\(lines[blob + 1])")
        #expect(lines[blob + 2].hasPrefix("    lossy-h3 h3 cold ×2 (1 failed)") && abs(total(lines[blob + 2]) - 15_400) <= 154, "\(lines[blob + 2])")
        #expect(terminal.contains("  lossy-h1: 4.30 s, 4 tasks") && terminal.contains("  lossy-h3: 63.5 s, 5 tasks, 1 failed"), "\(terminal)")
        let html = ChecksSection.render(run: RunInfo(id: "r", command: "run", arguments: [], startedAt: Self.start, status: .passed,
                                                     insecure: false, redacted: true),
                                        checks: Self.checks, soaks: [], resume: ResumeResults(), sample: [])
        #expect(html.contains("Phases by link, URL and protocol") && html.contains("<th colspan=") && html.contains(">/blob</th>"))
        #expect(html.contains("Wall time of each check's fetches"))
        #expect(html.contains("<td>63.5</td>"), "the batch's wall time in seconds")
    }

    /// A URL none of whose fetches got a response still has its row (its failures).
    @Test func aURLThatAlwaysFailedKeepsItsRow() throws {
        let checks = [Self.check("h3", [Self.task("https://h:1/ok", proto: "h3", at: 0, total: 100),
                                        Self.task("https://h:1/never", proto: "h3", at: 0, total: 30_000, failed: true)])]
        let comparison = try #require(LinkProtocolComparison(checks))
        let never = try #require(comparison.rows.first { $0.resource == "/never" })
        #expect(never.figures == nil && never.tasks == 1 && never.failedTasks == 1)
        #expect(TerminalRenderer(useColor: false).render(checks: checks).contains("h3 h3: all 1 failed"))
    }

    /// The comparison reads the one per-request summary every report has (`byRequest`, issue 41):
    /// the first `maxRequests` names, on a link or not; a request the user named is compared by its name.
    @Test func theComparisonReadsThePerRequestFigures() throws {
        var builder = ProbeSummaryBuilder()
        builder.add(Self.task("http://h/a", proto: "h2", at: 0, total: 10, link: nil))
        #expect(builder.result.byRequest.map(\.name) == ["GET http://h/a"] && builder.result.requestsOmitted == nil)
        var linked = ProbeSummaryBuilder()
        for index in 0..<(ProbeSummary.maxRequests + 3) { linked.add(Self.task("http://h/\(index)", proto: "h2", at: 0, total: 10)) }
        #expect(linked.result.byRequest.count == ProbeSummary.maxRequests && linked.result.requestsOmitted == 3)
        var named = Self.task("https://127.0.0.1:4001/blob", proto: "http/1.1", at: 0, total: 1600)
        named.name = "large"
        let comparison = try #require(LinkProtocolComparison([Self.check("h1", [named, Self.task("https://127.0.0.1:4001/1k.bin", proto: "http/1.1", at: 5, total: 300)])]))
        #expect(comparison.rows.map(\.resource) == ["large", "/1k.bin"], "\(comparison.rows.map(\.resource))")
    }
}
