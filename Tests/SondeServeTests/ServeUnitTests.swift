import Foundation
import SondeReport
import SondeRun
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
