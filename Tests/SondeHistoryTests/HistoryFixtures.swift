import Foundation
import SondeCore
@testable import SondeHistory

/// Run folders with a report.json made here (the shape `sonde` writes), for the store's tests.
enum HistoryFixtures {
    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "sonde-history-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A distribution whose every aggregation is about `p50`/`p95`.
    static func distribution(p50: Double, p95: Double, count: Int = 10) -> DistributionSummary {
        DistributionSummary(count: count, min: p50 / 2, p50: p50, p90: p95 * 0.9, p95: p95, p99: p95 * 1.1, max: p95 * 1.2, mean: p50)
    }

    static func summary(p50: Double, p95: Double, tasks: Int = 10, failed: Int = 0) -> ProbeSummary {
        var summary = ProbeSummary()
        summary.tasks = tasks
        summary.failedTasks = failed
        summary.transactions = tasks
        summary.reusedTransactions = tasks - 1
        summary.protocols = ["h2": tasks]
        summary.all = ["total": distribution(p50: p50, p95: p95), "wait": distribution(p50: p50 / 2, p95: p95 / 2)]
        summary.cold = ["total": distribution(p50: p50 * 2, p95: p95 * 2, count: 1)]
        summary.warm = ["total": distribution(p50: p50, p95: p95, count: tasks - 1)]
        return summary
    }

    /// Writes `<directory>/<id>/report.json` and returns the folder. Without `checks`, a plain probe
    /// run of `url`; with them, a `sonde run` whose checks have these p95s.
    @discardableResult
    static func writeRun(in directory: String, id: String, minutesAgo: Int, p95: Double = 100, failed: Int = 0,
                         checks: [(name: String, p95: Double)]? = nil, url: String = "http://127.0.0.1:1/api?token=REDACTED",
                         thresholds: [ThresholdResult] = [], trials: [Bool] = []) throws -> String {
        let started = Timestamp.now().adding(microseconds: -Int64(minutesAgo) * 60_000_000)
        let finished = started.adding(microseconds: 1_000_000)
        let run = RunInfo(id: id, command: checks == nil ? "probe" : "run", arguments: [], startedAt: started, finishedAt: finished,
                          status: failed > 0 ? .failed : .passed, insecure: false, redacted: true)
        var document = ReportDocument(tool: ToolInfo(libcurl: "8.0.0", features: []), run: run, probes: [], summary: summary(p50: p95 / 2, p95: p95, failed: failed))
        if let checks {
            document.checks = checks.map { check in
                var own = ThresholdResult(expression: "total.p95<1s", observed: check.p95, passed: check.p95 < 1000, message: "total.p95 was \(check.p95) ms")
                own.check = check.name
                return CheckReport(name: check.name, kind: "probe", status: .passed, startedAt: started, finishedAt: finished, error: nil,
                                   thresholds: [own], summary: summary(p50: check.p95 / 2, p95: check.p95))
            }
        } else {
            document.probes = [ProbeTask(url: url, iteration: 0, taskInterval: TaskInterval(start: started, durationMs: 1), redirectCount: 0,
                                         error: nil, transactionMetrics: [])]
        }
        document.thresholds = thresholds
        if !trials.isEmpty {
            document.resumeTrials = trials.enumerated().map { index, intact in
                ResumeTrial(trial: index, url: url, direction: "download", protocol: "range", length: 10, interruptions: [], retries: [],
                            bytesTransferred: 10, bytesWasted: 0, sha256: intact ? "a" : "b", expectedSha256: "a", expectedFrom: nil,
                            durationMs: 1, progress: [], error: nil)
            }
        }
        let folder = directory + "/" + id
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try JSONEncoder().encode(document).write(to: URL(fileURLWithPath: folder + "/report.json"))
        return folder
    }
}
