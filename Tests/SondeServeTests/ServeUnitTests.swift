import Foundation
import SondeReport
import SondeSuite
@testable import SondeServe
import Synchronization
import Testing

@Suite struct ServeUnitTests {
    @Test func scrapeTimeoutAsBlackboxComputesIt() throws {
        #expect(try ScrapeTimeout.seconds(header: "10", moduleTimeout: 5).get() == 5)
        #expect(try ScrapeTimeout.seconds(header: "4", moduleTimeout: 5).get() == 3.5)
        #expect(try ScrapeTimeout.seconds(header: nil, moduleTimeout: nil).get() == 119.5)
        #expect(try ScrapeTimeout.seconds(header: "0.2", moduleTimeout: 5).get() == 5, "a negative difference takes the module's")
        // A client's header never makes a probe hold its place for a day: 120 s, or the module's longer timeout.
        #expect(try ScrapeTimeout.seconds(header: "86400", moduleTimeout: nil).get() == 119.5)
        #expect(try ScrapeTimeout.seconds(header: "86400", moduleTimeout: 300).get() == 299.5)
        // Limits asked below the floor are kept; those above what descriptors allow are lowered.
        #expect(ServeLimits(maxConnections: 1, maxProbes: 1, fileLimit: 1024).maxProbes == 1)
        #expect(ServeLimits(fileLimit: 1024).maxConnections == 448 && ServeLimits(fileLimit: 1024).maxProbes == 100)
        #expect(ServeLimits(fileLimit: 100).maxConnections == 4 && ServeLimits(fileLimit: 100).maxProbes == 4)
        // Half the connections per client address (a slowloris from one address leaves the other half).
        #expect(ServeLimits(fileLimit: 1024).maxConnectionsPerClient == 224 && ServeLimits(fileLimit: 100).maxConnectionsPerClient == 4)
        for bad in ["soon", "-1", "nan", "inf", "1e9"] {
            #expect(throws: ScrapeTimeout.Refused.self) { try ScrapeTimeout.seconds(header: bad, moduleTimeout: 5).get() }
        }
    }

    @Test func addressHashIsBlackboxs() {
        // blackbox_exporter 0.23 answered probe_ip_addr_hash 3.668918509e+09 for 127.0.0.1.
        #expect(BlackboxExposition.fnv32a([127, 0, 0, 1]) == 3_668_918_509)
        #expect(BlackboxExposition.tlsVersionText("TLSv1.3") == "TLS 1.3")
        #expect(BlackboxExposition.sameVersion("HTTP/2", "HTTP/2.0"))
        #expect(!BlackboxExposition.sameVersion("HTTP/1.1", "HTTP/2.0"))
    }

    @Test func aFailedProbeStillHasBlackboxsSeries() {
        var exposition = BlackboxExposition()
        exposition.prepareHTTP()
        exposition.set("probe_success", 0)
        let text = exposition.text
        for name in ["probe_http_status_code 0", "probe_http_duration_seconds{phase=\"resolve\"} 0", "probe_success 0"] {
            #expect(text.contains(name), "\(name)")
        }
        let names = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(names == names.sorted(), "sorted by name, as blackbox writes them")
    }

    static func check(_ name: String, every: Double) -> ScheduledCheck {
        ScheduledCheck(check: SuiteCheck(name: name, spec: ProbeSpec(urls: ["http://127.0.0.1/"])), every: every, runTimeout: 10)
    }

    @Test func theSchedulerNeverOverlapsACheckAndKeepsTheLimit() async throws {
        let counts = Mutex((running: [String: Int](), most: 0, overlapped: false, runs: [String: Int](), skipped: 0))
        let scheduler = CheckScheduler(run: { scheduled in
            let name = scheduled.check.name
            counts.withLock { counts in
                counts.running[name, default: 0] += 1
                if counts.running[name, default: 0] > 1 { counts.overlapped = true }
                counts.most = max(counts.most, counts.running.values.reduce(0, +))
            }
            // Longer than `every`: the next start is skipped, never queued beside this run.
            try? await Task.sleep(nanoseconds: 250_000_000)
            counts.withLock { $0.running[name, default: 0] -= 1 }
            let now = Date().timeIntervalSince1970
            return CheckRunRecord(check: name, result: "passed", startedAt: now - 0.25, finishedAt: now, families: nil, folder: nil)
        }, onResult: { record, skipped in
            counts.withLock {
                $0.runs[record.check, default: 0] += 1
                $0.skipped += skipped
            }
        }, executor: ThreadTaskExecutor())
        await scheduler.start([Self.check("a", every: 0.1), Self.check("b", every: 0.1), Self.check("c", every: 0.1)], parallel: 2)
        // Until the checks ran 4 times (bounded). The schedule runs on a thread of its own: the test
        // process's other suites hold the global pool's threads (blocking CLI tests; 0 runs in 60 s
        // was seen there), which serve's own process never does.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, counts.withLock({ $0.runs.values.reduce(0, +) < 4 }) {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        await scheduler.stop()
        let final = counts.withLock { $0 }
        #expect(!final.overlapped, "two runs of one check at once")
        #expect(final.most <= 2, "more runs at once than parallel: \(final.most)")
        #expect(final.runs.values.reduce(0, +) >= 4, "runs: \(final.runs)")
    }

    @Test func metricsCarryCheckAndVantageOnEverySeries() {
        let state = ServeState(vantage: "lab")
        state.configure(checks: ["api"], vantage: "lab")
        var families = PrometheusFamilies()
        families.add("probe_success", "gauge", "h", [([], 1)])
        families.add("sonde_check_success", "gauge", "h", [([("check", "api")], 1)])
        state.record(CheckRunRecord(check: "api", result: "passed", startedAt: 1, finishedAt: 2, families: families, folder: nil), skipped: 0)
        state.record(CheckRunRecord(check: "gone", result: "passed", startedAt: 1, finishedAt: 2, families: families, folder: nil), skipped: 0)
        let text = state.metricsText(inFlight: [])
        #expect(text.contains("probe_success{vantage=\"lab\",check=\"api\"} 1"))
        #expect(text.contains("sonde_check_success{vantage=\"lab\",check=\"api\"} 1"))
        #expect(text.contains("sonde_serve_runs_total{vantage=\"lab\",check=\"api\",result=\"passed\"} 1"))
        #expect(!text.contains("gone"), "a check the config does not name")
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.contains("vantage=\"lab\""), "\(line)")
        }
    }
}

@Suite struct RunFolderPrunerTests {
    @Test func removesOnlyOldServeFoldersNeverLinksOrOthers() throws {
        let root = NSTemporaryDirectory() + "sonde-prune-\(UUID().uuidString)"
        let outside = root + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        for name in ["20200101T000000Z-serve-aaaa", "20200101T000000Z-probe-bbbb", "20991231T000000Z-serve-cccc", "notes"] {
            try FileManager.default.createDirectory(atPath: root + "/" + name, withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/20200102T000000Z-serve-link", withDestinationPath: outside)
        let removed = RunFolderPruner.prune(outputDirectory: root, olderThanDays: 30)
        #expect(removed == ["20200101T000000Z-serve-aaaa"])
        let left = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
        #expect(left == ["20200101T000000Z-probe-bbbb", "20200102T000000Z-serve-link", "20991231T000000Z-serve-cccc", "notes"])
        #expect(FileManager.default.fileExists(atPath: outside), "a link's target is never touched")
    }

    /// The fixed-width parse gives the calendar's own answer (Foundation's, in UTC) and refuses
    /// what names no time.
    @Test func startTimesAreTheCalendars() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var generator = SystemRandomNumberGenerator()
        var stamps = ["19700101T000000Z", "20000229T120000Z", "20240229T235959Z", "21000301T000000Z", "99991231T235959Z"]
        for _ in 0..<2000 {
            let seconds = Double(Int64.random(in: 0...253_402_300_799, using: &generator))
            stamps.append(formatter.string(from: Date(timeIntervalSince1970: seconds)))
        }
        for stamp in stamps {
            let expected = try #require(formatter.date(from: stamp))
            #expect(RunFolderPruner.startSeconds(of: stamp + "-serve-x") == Int64(expected.timeIntervalSince1970), "\(stamp)")
            #expect(RunFolderPruner.startDate(of: stamp + "-serve-x") == expected)
        }
        for bad in ["20230229T000000Z-serve-x", "20231301T000000Z-serve-x", "20230100T000000Z-serve-x", "20230101T240000Z-serve-x",
                    "20230101T006000Z-serve-x", "19691231T235959Z-serve-x", "2023010AT000000Z-serve-x", "20230101 000000Z-serve-x",
                    "notes", "", "\u{FF12}023010T000000Z-serve-x"] {
            #expect(RunFolderPruner.startSeconds(of: bad) == nil, "\(bad)")
            #expect(RunFolderPruner.startDate(of: bad) == nil, "\(bad)")
        }
        // A valid time in a name that is no serve run folder's.
        for other in ["20230101T000000Z", "20230101T000000Z-probe-x"] {
            #expect(RunFolderPruner.startSeconds(of: other) != nil && RunFolderPruner.startDate(of: other) == nil, "\(other)")
        }
    }

    /// 5,000 folders of which 10 are due: the pass removes those 10 and stops parsing at the first
    /// name not due (names sort by their start), leaving the rest untouched.
    @Test func aPassRemovesWhatIsDueAmongManyFolders() throws {
        let root = NSTemporaryDirectory() + "sonde-prune-many-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var due: [String] = []
        for index in 0..<5000 {
            // The first 10 started 2 days ago, the rest within the last day.
            let started = now.addingTimeInterval(index < 10 ? -2 * 86_400 + Double(index) : -Double(index))
            let name = formatter.string(from: started) + "-serve-\(index)"
            if index < 10 { due.append(name) }
            try FileManager.default.createDirectory(atPath: root + "/" + name, withIntermediateDirectories: true)
        }
        let removed = RunFolderPruner.prune(outputDirectory: root, olderThanDays: 1, now: now)
        #expect(removed == due.sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).count == 4990)
    }

    @Test func theGateLetsOneCallerInPerPeriod() {
        let gate = IntervalGate()
        #expect(gate.claim(every: 3600))
        #expect(!gate.claim(every: 3600))
        let open = IntervalGate()
        #expect(open.claim(every: 0) && open.claim(every: 0))
        let noted = IntervalGate()
        noted.note()
        #expect(!noted.claim(every: 3600), "work just done waits a whole interval")
    }
}

/// A task executor with a thread of its own, jobs run in order: the scheduler test's tasks never
/// wait for the global pool's threads.
final class ThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init() {
        let thread = Thread { self.serve() }  // lives as long as the test process
        thread.name = "test-task-executor"
        thread.start()
    }

    func enqueue(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
