import Foundation
import SondeCore
@testable import SondeHistory
import Testing

@Suite struct HistoryPageTests {
    @Test func thePageHasChartsLinksAndNoScript() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        for index in 0..<22 {
            try store.record(runFolder: HistoryFixtures.writeRun(in: directory + "/runs", id: "t\(index)", minutesAgo: 100 - index,
                                                                  checks: [("api", index == 21 ? 300 : 100), ("<b>\"web\"&", 50)]))
        }
        let page = try HistoryPage.render(store: store, pagePath: directory + "/pages/index.html")
        #expect(!page.lowercased().contains("<script"))
        #expect(page.range(of: #"\son[a-z]+\s*="#, options: [.regularExpression, .caseInsensitive]) == nil, "no event handler attributes")
        #expect(page.contains(#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">"#))
        #expect(page.contains("&lt;b&gt;&quot;web&quot;&amp;") && !page.contains("<b>\"web\""), "the check name is escaped")
        #expect(page.contains(#"href="../runs/t21/report.html""#), "links are relative to the page")
        // Sections in name order: "<b>…" sorts before "api".
        let regressed = page.contains(#"<section id="check-1" class="regressed"><h2>api "#)
        let steady = page.contains(#"<section id="check-0"><h2>&lt;b&gt;"#)
        #expect(regressed, "api regressed")
        #expect(steady, "web did not")
        #expect(page.components(separatedBy: "<svg").count - 1 >= 4, "two charts per check at least (times, error rate)")
        #expect(page.contains("Regressions are marked"))
    }

    @Test func linksAreRelativeAndEncoded() {
        #expect(HistoryPage.relativeLink(from: "/a/b", to: "/a/b/run 1/report.html") == "run%201/report.html")
        #expect(HistoryPage.relativeLink(from: "/a/b/pages", to: "/a/runs/x#1/report.html") == "../../runs/x%231/report.html")
        #expect(HistoryPage.relativeLink(from: "/", to: "/r/report.html") == "r/report.html")
    }

    /// The issue's target: with 100,000 runs, `sonde history` (the trends) and the index page in
    /// under 1 s. A debug build on a busy 2-core machine (tests run in parallel) takes several
    /// times longer: there the bound is 10 s (the release figure is in docs/history.md).
    @Test func aHundredThousandRunsReadAndRenderQuickly() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        let start = Timestamp.now().adding(microseconds: -100_000 * 60_000_000)
        // 100,000 runs, each with one check of five, generated inside SQLite (a debug build inserts records slowly).
        try store.queue.write { db in
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
                INSERT INTO run (id, command, status, startedAt, finishedAt, folder, toolVersion, insecure, redacted, recordedAt)
                SELECT printf('run-%06d', i), 'run', 'passed', ? + i * 60000000, ? + i * 60000000 + 1000000, ? || printf('/run-%06d', i),
                       '0.1.0', 0, 1, ? FROM n
                """, arguments: [start.microsecondsSince1970, start.microsecondsSince1970, directory, start.microsecondsSince1970])
            try db.execute(sql: """
                INSERT INTO checkResult (runId, name, kind, status, startedAt, tasks, failedTasks, transactions, reusedTransactions,
                                         protocols, totalP50, totalP95, errorRate, resumeTrials, resumeIntact, thresholdsFailed)
                SELECT id, json_extract(?, '$[' || (rowid % 5) || ']'), 'probe', CASE WHEN rowid % 97 = 0 THEN 'failed' ELSE 'passed' END,
                       startedAt, 10, rowid % 97 = 0, 10, 9, '{"h2":10}', 10 + rowid % 13, 40 + rowid % 29,
                       CASE WHEN rowid % 97 = 0 THEN 0.1 ELSE 0 END, 0, 0, 0 FROM run
                """, arguments: [#"["api","web","login","search","ws"]"#])
        }
        #expect(try store.runs(limit: 1).first?.run.id == "run-099999")
        let clock = ContinuousClock()
        var trends: [HistoryTrend] = []
        let trendTime = try clock.measure { trends = try store.trends() }
        #expect(trends.count == 5 && trends.allSatisfy { $0.runs == 20_000 })
        var page = ""
        let pageTime = try clock.measure { page = try HistoryPage.render(store: store, pagePath: directory + "/index.html") }
        #expect(page.utf8.count < 2_000_000, "the page is bounded: \(page.utf8.count) bytes")
        #expect(page.contains("20000 runs"))
        #if DEBUG
        let bound = Duration.seconds(10)
        #else
        let bound = Duration.seconds(1)
        #endif
        print("history of 100,000 runs: trends \(trendTime), page \(pageTime) (\(page.utf8.count) bytes)")
        #expect(trendTime < bound && pageTime < bound, "trends \(trendTime), page \(pageTime)")
    }
}
