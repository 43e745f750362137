import Foundation
import GRDB
import SondeCore
@testable import SondeHistory
import Testing

@Suite struct HistoryStoreTests {
    @Test func recordsPlainRunsAsOneCheckAndReadsThemInOrder() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        let threshold = ThresholdResult(expression: "total.p95<150ms", observed: 120, passed: true, message: "total.p95 was 120 ms")
        for (index, p95) in [120.0, 80, 200].enumerated() {
            let folder = try HistoryFixtures.writeRun(in: directory, id: "run-\(index)", minutesAgo: 30 - index, p95: p95,
                                                      failed: index == 2 ? 5 : 0, thresholds: [threshold])
            let recorded = try store.record(runFolder: folder, vantage: index == 0 ? "eu-west" : nil)
            #expect(recorded.checks == ["probe http://127.0.0.1:1/api"], "the query is not part of the name")
            #expect(!recorded.replaced)
        }
        #expect(try store.checks() == ["probe http://127.0.0.1:1/api"])
        let runs = try store.runs()
        #expect(runs.map(\.run.id) == ["run-0", "run-1", "run-2"], "oldest first")
        #expect(runs.map(\.check.totalP95) == [120, 80, 200])
        #expect(runs[0].check.totalP50 == 60)
        #expect(runs[0].run.vantage == "eu-west" && runs[1].run.vantage == nil)
        #expect(runs[2].check.errorRate == 0.5 && runs[0].check.errorRate == 0)
        #expect(runs[2].check.status == "failed")
        #expect(runs[0].check.protocols == ["h2": 10])
        #expect(runs[0].check.pingP99 == nil && runs[0].check.intactRatio == nil, "no soak, no resume trial")
        #expect(runs[0].run.folder.hasPrefix("/") && runs[0].run.folder.hasSuffix("/run-0"))
        #expect(try store.runs(limit: 2).map(\.run.id) == ["run-1", "run-2"], "the newest two")
        let stored = try store.thresholds(runID: "run-1")
        #expect(stored.map(\.expression) == ["total.p95<150ms"] && stored[0].observed == 120 && stored[0].passed)
        #expect(try store.runs(check: "no such check").isEmpty)
        #expect(try store.integrityProblems().isEmpty)
        // Per phase, over all, cold and warm transactions (the fixture's all/total, all/wait, cold/total, warm/total).
        let phases = try store.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT population, phase, count, p95 FROM phase WHERE checkResultId = ? ORDER BY population, phase",
                             arguments: [runs[0].check.id])
        }
        #expect(phases.map { "\($0["population"] as String)/\($0["phase"] as String)" } == ["all/total", "all/wait", "cold/total", "warm/total"])
        #expect(phases.first?["p95"] as Double? == 120 && phases.last?["count"] as Int? == 9)
    }

    @Test func aSuiteRunHasARowPerCheckWithItsThresholds() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        let folder = try HistoryFixtures.writeRun(in: directory, id: "suite-1", minutesAgo: 5, checks: [("api", 40), ("web", 1500)])
        let recorded = try store.record(runFolder: folder)
        #expect(recorded.checks == ["api", "web"])
        #expect(try store.checks() == ["api", "web"])
        let api = try #require(try store.runs(check: "api").first)
        #expect(api.check.totalP95 == 40 && api.check.kind == "probe" && api.run.command == "run")
        let web = try #require(try store.runs(check: "web").first)
        #expect(web.check.totalP95 == 1500 && web.check.thresholdsFailed == 1)
        let thresholds = try store.thresholds(runID: "suite-1")
        #expect(thresholds.map(\.checkName) == ["api", "web"])
        #expect(thresholds.map(\.passed) == [true, false])
    }

    @Test func recordingARunAgainReplacesIt() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        let folder = try HistoryFixtures.writeRun(in: directory, id: "again", minutesAgo: 1, checks: [("api", 40)])
        #expect(try !store.record(runFolder: folder).replaced)
        #expect(try store.record(runFolder: folder).replaced)
        #expect(try store.runs().count == 1)
        #expect(try store.thresholds(runID: "again").count == 1, "the thresholds are not doubled")
        // Reopening migrates nothing twice and sees the same rows.
        #expect(try HistoryStore.open(path: directory + "/history.sqlite").runs().count == 1)
    }

    @Test func medianOfTheNewestRuns() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        for (index, p95) in [10.0, 20, 30, 40, 100].enumerated() {
            try store.record(runFolder: HistoryFixtures.writeRun(in: directory, id: "m\(index)", minutesAgo: 10 - index, checks: [("api", p95)]))
        }
        #expect(try store.median(check: "api", metric: .totalP95, last: 5) == 30)
        #expect(try store.median(check: "api", metric: .totalP95, last: 2) == 70, "the newest two: 40 and 100")
        #expect(try store.median(check: "api", metric: .totalP95, last: 100) == 30)
        #expect(try store.median(check: "api", metric: .totalP95, last: 0) == nil)
        #expect(try store.median(check: "api", metric: .pingP99, last: 5) == nil, "no soak figures")
        #expect(try store.median(check: "other", metric: .totalP95, last: 5) == nil)
    }

    @Test func resumeTrialsGiveTheIntactRatio() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        try store.record(runFolder: HistoryFixtures.writeRun(in: directory, id: "r", minutesAgo: 1, trials: [true, true, false, true]))
        let entry = try #require(try store.runs().first)
        #expect(entry.check.intactRatio == 0.75 && entry.check.resumeTrials == 4 && entry.check.resumeIntact == 3)
    }

    @Test func theNewestRunRegressesAgainstTheMedianBeforeIt() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        for index in 0..<22 {
            try store.record(runFolder: HistoryFixtures.writeRun(in: directory, id: "t\(index)", minutesAgo: 100 - index,
                                                                  checks: [("api", index == 21 ? 200 : 100), ("steady", index == 21 ? 110 : 100)]))
        }
        let trends = try store.trends()
        #expect(trends.map(\.name) == ["api", "steady"])
        #expect(trends[0].runs == 22 && trends[0].newest.run.id == "t21")
        #expect(trends[0].regressions == [.totalP50, .totalP95, .totalP99])
        #expect(trends[0].figures.first { $0.metric == .totalP95 }?.previousMedian == 100)
        #expect(trends[1].regressions.isEmpty, "10% worse is within the rule")
        // --since: only the newest 2 runs, too few before the newest to judge.
        let recent = try store.trends(check: "api", since: Timestamp.now().adding(microseconds: -80 * 60_000_000 - 30_000_000))
        #expect(recent.first?.runs == 2 && recent.first?.regressions == [])
    }

    @Test func aFileThatIsNotSQLiteIsAClearError() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let text = directory + "/notes.txt"
        try "hello, not a database\n".write(toFile: text, atomically: false, encoding: .utf8)
        let error = try #require(throws: TaskError.self) { try HistoryStore.open(path: text) }
        #expect(error.message.contains("is not a SQLite database"), "\(error.message)")
        #expect(try String(contentsOfFile: text, encoding: .utf8) == "hello, not a database\n", "left as it was")
        // SQLite's header followed by garbage.
        let damaged = directory + "/damaged.sqlite"
        try (Data("SQLite format 3\0".utf8) + Data(repeating: 0xAB, count: 4096)).write(to: URL(fileURLWithPath: damaged))
        let second = try #require(throws: TaskError.self) { try HistoryStore.open(path: damaged) }
        #expect(second.message.contains(damaged), "\(second.message)")
        // A folder.
        let folder = try #require(throws: TaskError.self) { try HistoryStore.open(path: directory) }
        #expect(folder.message.contains("not a regular file"), "\(folder.message)")
        // Not there, and not to be created.
        let absent = try #require(throws: TaskError.self) { try HistoryStore.open(path: directory + "/absent.sqlite", create: false) }
        #expect(absent.message.contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/absent.sqlite"))
    }

    @Test func aSymbolicLinkIsRefused() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let real = directory + "/real.sqlite"
        _ = try HistoryStore.open(path: real)
        let link = directory + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let error = try #require(throws: TaskError.self) { try HistoryStore.open(path: link) }
        #expect(error.message.contains("symbolic link"), "\(error.message)")
        // A dangling link is not written through either.
        let dangling = directory + "/dangling.sqlite"
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: directory + "/target.sqlite")
        #expect(throws: TaskError.self) { try HistoryStore.open(path: dangling) }
        #expect(!FileManager.default.fileExists(atPath: directory + "/target.sqlite"), "nothing created through the link")
        // Nor a link where SQLite's write-ahead log goes.
        let logged = directory + "/logged.sqlite"
        try FileManager.default.createSymbolicLink(atPath: logged + "-wal", withDestinationPath: directory + "/elsewhere")
        let wal = try #require(throws: TaskError.self) { try HistoryStore.open(path: logged) }
        #expect(wal.message.contains("-wal"), "\(wal.message)")
    }

    @Test func aMissingOrForeignReportIsAClearError() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        let empty = directory + "/empty-run"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let missing = try #require(throws: TaskError.self) { try store.record(runFolder: empty) }
        #expect(missing.message.contains("report.json"))
        try "{\"not\": \"a report\"}".write(toFile: empty + "/report.json", atomically: false, encoding: .utf8)
        let foreign = try #require(throws: TaskError.self) { try store.record(runFolder: empty) }
        #expect(foreign.message.contains("is not a sonde report"))
        #expect(try store.runs().isEmpty)
    }

    @Test func aBaselineIsTheMedianOfACheckNewestRuns() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        for (index, p95) in [1000.0, 10, 20, 30, 40].enumerated() {
            try store.record(runFolder: HistoryFixtures.writeRun(in: directory, id: "b\(index)", minutesAgo: 10 - index,
                                                                  checks: [("probe http://h:1/a", p95)]))
        }
        let baseline = try HistoryBaseline(parsing: "history:probe http://h:1/a:median:3")
        #expect(baseline.check == "probe http://h:1/a" && baseline.runs == 3, "colons in the check name")
        let (run, summary) = try baseline.load(from: store)
        #expect(run.id == "history:probe http://h:1/a:median:3")
        #expect(summary.all["total"]?.p95 == 30, "the median of 20, 30, 40; the old 1000 is not among the newest 3")
        #expect(summary.all["wait"]?.p95 == 15)
        #expect(summary.cold["total"]?.p95 == 60 && summary.warm["total"]?.count == 9)
        #expect(summary.tasks == 10)
        for bad in ["history:api:mean:3", "history:api:median:0", "history:api:median:1001", "history::median:3", "history:api:median", "api:median:3"] {
            #expect(throws: TaskError.self, "\(bad)") { try HistoryBaseline(parsing: bad) }
        }
        let unknown = try HistoryBaseline(parsing: "history:nothing:median:5")
        let error = try #require(throws: TaskError.self) { try unknown.load(from: store) }
        #expect(error.message.contains("has no run of the check"))
    }

    /// A database another program altered (text where numbers belong, absurd times) is read
    /// without a trap: a clear error or a page, never a crash.
    @Test func tamperedValuesNeverTrap() throws {
        let directory = HistoryFixtures.temporaryDirectory()
        let store = try HistoryStore.open(path: directory + "/history.sqlite")
        for index in 0..<4 {
            try store.record(runFolder: HistoryFixtures.writeRun(in: directory, id: "x\(index)", minutesAgo: 10 - index, checks: [("api", 50)]))
        }
        try store.queue.write { db in
            try db.execute(sql: "UPDATE checkResult SET startedAt = 9223372036854775807, totalP95 = 1e308 WHERE runId = 'x1'")
            try db.execute(sql: "UPDATE checkResult SET startedAt = -9223372036854775808, errorRate = 'lots' WHERE runId = 'x2'")
        }
        do {
            let page = try HistoryPage.render(store: store, pagePath: directory + "/index.html")
            #expect(!page.contains("nan") && !page.contains("inf"), "coordinates stay finite")
        } catch {
            #expect(error.message.contains("history"), "\(error.message)")
        }
        // Text where a time belongs reads as SQLite converts it (0), and the JSON still encodes.
        try store.queue.write { db in try db.execute(sql: "UPDATE checkResult SET startedAt = 'soon' WHERE runId = 'x3'") }
        let document = try HistoryJSON(store: store, check: nil, since: nil, last: 10).encoded()
        #expect(String(decoding: document, as: UTF8.self).contains("\"x3\""))
    }
}
