import Foundation
import SondeCore
import Testing
@testable import SondeReport

/// The HTML report's layout at a 1,400 px page (issue 27 #16), on the generated markup: long
/// evidence wraps inside a scrolling box, wide tables wrap their headers and text columns, a
/// short transaction's bar stays readable beside a long one, an idle-timeout discovery is told
/// in its own terms. (Screenshots in headless Chromium are the visual check; see the report.)
@Suite struct HTMLLayoutTests {
    let start = Timestamp(microsecondsSince1970: 1_800_000_000_000_000)

    /// The `<td …>` cell (or other element) that holds `text`, from its opening tag.
    private func element(holding text: String, in html: String, tag: String = "td") -> String? {
        guard let at = html.range(of: text) else { return nil }
        guard let open = html.range(of: "<\(tag)", options: .backwards, range: html.startIndex..<at.lowerBound) else { return nil }
        return String(html[open.lowerBound..<at.upperBound])
    }

    /// The markup from the last `<div class="scroll">` before `text` to `text`: nil when `text` is
    /// not inside one (a `</div>` closes it first).
    private func scrollBox(around text: String, in html: String) -> String? {
        guard let at = html.range(of: text),
              let box = html.range(of: "<div class=\"scroll\">", options: .backwards, range: html.startIndex..<at.lowerBound) else { return nil }
        let between = String(html[box.lowerBound..<at.lowerBound])
        return between.contains("</div>") ? nil : between
    }

    @Test func theResumeVerdictsEvidenceWrapsInsideAScrollingBox() throws {
        let evidence = "HEAD 200, Accept-Ranges: bytes, ETag: \"" + String(repeating: "abcdef0123456789", count: 12) + "\", Content-Length: 1048576"
        let verdict = ResumeVerdict(url: "http://h/file", checks: [
            ResumeCheck(name: "accepts-ranges", passed: true, required: true, evidence: evidence),
        ], urlSession: "resume with If-Range")
        let digest = String(repeating: "1e9787f6a3c8ca78", count: 4)
        let trial = ResumeTrial(trial: 1, url: "http://h/file", direction: "download", protocol: "http/1.1", length: 100,
                                interruptions: [], retries: [], bytesTransferred: 100, bytesWasted: 0, sha256: digest,
                                expectedSha256: nil, expectedFrom: nil, durationMs: 10, progress: [[0, 0], [10, 100]],
                                error: TaskError(code: .corruptTransfer, message: "the resumed file is corrupt: SHA-256 \(digest)"))
        let html = ResumeSection.render(ResumeResults(trials: [trial], verdicts: [verdict]))
        let cell = try #require(element(holding: htmlEscape(evidence), in: html))
        #expect(cell.hasPrefix("<td class=\"text evidence\">"), "\(cell.prefix(60))")
        #expect(scrollBox(around: htmlEscape(evidence), in: html) != nil, "the evidence is inside a .scroll box")
        // Wraps (white-space normal, long tokens broken) and is read left to right.
        let css = HTMLReportRenderer.stylesheet
        #expect(css.contains("td.text{text-align:left;white-space:normal}"))
        #expect(css.contains("td.evidence{font-family:ui-monospace,monospace;overflow-wrap:anywhere"))
        // A trial's error (two 64-digit digests) wraps in its cell, and the trial table scrolls on its own.
        let result = try #require(element(holding: "the resumed file is corrupt", in: html))
        #expect(result.hasPrefix("<td class=\"fail wrap\">"), "\(result.prefix(40))")
        #expect(scrollBox(around: "the resumed file is corrupt", in: html) != nil)
        #expect(css.contains("td.wrap{text-align:left;white-space:normal;overflow-wrap:anywhere"))
    }

    /// Every bar is its share of the run (issue 39 #22: a 4rem floor drew 116 ms and 156 ms alike),
    /// at least 2 px wide, its phases in proportion of itself.
    @Test func everyBarIsToScaleWithATwoPixelFloor() throws {
        func task(_ url: String, at offsetMs: Int64, dns: Double, connect: Double, wait: Double, total: Double) -> ProbeTask {
            let t = TransactionMetrics(request: RequestRecord(method: "GET", url: url, headers: []),
                                       response: ResponseRecord(statusCode: 200, headers: []),
                                       fetchStartDate: start.adding(microseconds: offsetMs * 1000), networkProtocolName: "http/1.1",
                                       phases: Phases(dns: dns, connect: connect, send: 0, wait: wait, receive: 0, total: total))
            return ProbeTask(url: url, iteration: 0, taskInterval: TaskInterval(start: start, durationMs: total), redirectCount: 0,
                             error: nil, transactionMetrics: [t])
        }
        // One 10 s transaction; a 5 ms one: at the run's scale 0.05 % wide (under a pixel).
        let html = HTMLReportRenderer.waterfall([task("http://h/slow", at: 0, dns: 1, connect: 1, wait: 9_998, total: 10_000),
                                                 task("http://h/fast", at: 9_990, dns: 1, connect: 1, wait: 3, total: 5)])
        let row = try #require(html.components(separatedBy: "<tr>").first { $0.contains("http://h/fast") })
        // 5 ms of a 9,995 ms run: 0.05 % of the timeline, drawn at least 2 px wide, at its time.
        #expect(row.contains("margin-left:min(99.9%,calc(100% - 2px));width:0.05%;min-width:2px\" title=\"5.00 ms\""), "\(row)")
        #expect(!html.contains("class=\"own\""))
        // Segments are proportions of the bar itself: dns 1 of 5 ms, wait 3 of 5 ms.
        #expect(row.contains("width:20.0%;background:#14b8a6\" title=\"dns 1"), "\(row)")
        #expect(row.contains("width:60.0%;background:#22c55e\" title=\"wait 3"), "\(row)")
        let slow = try #require(html.components(separatedBy: "<tr>").first { $0.contains("http://h/slow") })
        #expect(slow.contains("width:100.0%;min-width:2px"), "\(slow)")
    }

    /// An IP-only certificate (Caddy's internal CA for an IP site): empty subject, names in the SAN.
    @Test func anIPOnlyCertificateShowsItsIPAlternativeNames() throws {
        let certificate = PeerCertificate(subject: "", issuer: "CN = Caddy Local Authority - ECC Intermediate", serialNumber: "01",
                                          dnsNames: [], ipAddresses: ["127.0.0.1", "::1"])
        let t = TransactionMetrics(request: RequestRecord(method: "GET", url: "https://127.0.0.1/", headers: []),
                                   response: ResponseRecord(statusCode: 200, headers: []), fetchStartDate: start,
                                   networkProtocolName: "h2", peerCertificates: [certificate],
                                   phases: Phases(dns: 0, connect: 1, send: 0, wait: 1, receive: 0, total: 2))
        let task = ProbeTask(url: "https://127.0.0.1/", iteration: 0, taskInterval: TaskInterval(start: start, durationMs: 2),
                             redirectCount: 0, error: nil, transactionMetrics: [t])
        var builder = ProbeSummaryBuilder()
        builder.add(task)
        let run = RunInfo(id: "r", command: "probe", arguments: [], startedAt: start, status: .passed, insecure: false, redacted: true, warnings: [])
        let html = HTMLReportRenderer.render(tool: ToolInfo(libcurl: "8", features: []), run: run, summary: builder.result, sample: [task])
        #expect(html.contains("<tr><td class=\"text\"><span class=\"muted\">(empty)</span></td><td class=\"text\">IP 127.0.0.1, IP ::1</td>"), "\(html)")
        let named = PeerCertificate(subject: "O = sonde, CN = localhost", issuer: "O = sonde", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        #expect(HTMLReportRenderer.alternativeNames(named) == "DNS localhost, IP 127.0.0.1")
        #expect(HTMLReportRenderer.alternativeNames(PeerCertificate(subject: "CN = x", issuer: "CN = y")) == "–")
    }

    @Test func anIdleTimeoutDiscoveryIsToldWithTheTimeItRan() throws {
        let config = SoakConfig(durationS: 20, connections: 8, rampS: 0, pingIntervalS: 25, pongTimeoutS: 2, messageRate: 0, messageSize: 64,
                                subprotocols: [], headers: [], backoff: BackoffPolicy(initialMs: 100, maxMs: 1000, multiplier: 2, jitter: .full),
                                stableAfterS: 5, maxAttempts: nil, connectTimeoutS: 2, insecure: false)
        var builder = SoakReportBuilder(url: "ws://h/echo", config: config, startedAt: start)
        var survivor = SoakAttempt(connection: 0, attempt: 1, startedAt: start, backoffMs: nil, backoffFailure: nil)
        survivor.openedAt = start.adding(microseconds: 1000)
        survivor.closedAt = start.adding(microseconds: 1_100_000)
        survivor.cause = .probeFinished
        survivor.closeCode = 1000
        survivor.closedBy = "client"
        builder.add(survivor)
        var cut = SoakAttempt(connection: 1, attempt: 1, startedAt: start, backoffMs: nil, backoffFailure: nil)
        cut.openedAt = start.adding(microseconds: 1000)
        cut.closedAt = start.adding(microseconds: 3_000_000)
        cut.cause = .eof
        builder.add(cut)
        builder.set(idleTimeout: IdleTimeoutFindings(maxIdleS: 5, longestSurvivedS: 1, shortestCutS: 3, cutBy: "eof", probes: [
            .init(plannedS: 1, survived: true, cutAfterS: nil, cause: nil, closeCode: nil),
            .init(plannedS: 5, survived: false, cutAfterS: 3, cause: "eof", closeCode: nil),
        ]))
        let report = builder.result(finishedAt: start.adding(microseconds: 5_300_000))
        let html = SoakSection.render([report])
        #expect(html.contains("Idle-timeout discovery <code>"))
        #expect(html.contains("2 silent connections (silences of 1.00 s to 5.00 s"), "\(html)")
        #expect(html.contains("the discovery ran 5.30 s."), "\(html)")
        #expect(!html.contains("for 20"), "the unused soak duration")
        #expect(!html.contains("Pings every"), "a discovery has no keepalive pings")
        // The surviving probe's planned close is not painted as a failure; the cut one is.
        #expect(html.contains("<td class=\"text\">probeFinished</td>"), "\(html)")
        #expect(html.contains("<td class=\"text fail\">eof</td>"))
    }
}
