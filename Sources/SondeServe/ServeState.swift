import Foundation
import SondeCore
import SondeOTLP
import SondeReport
import Synchronization

/// What `sonde serve` knows between scrapes: the latest run of every scheduled check, the
/// scheduler's counts, the config's reloads. `/metrics` renders it whole.
/// Threading: any thread (a mutex).
public final class ServeState: Sendable {
    private struct Figures {
        var latest: [String: CheckRunRecord] = [:]
        /// check → result → runs.
        var runs: [String: [String: Int]] = [:]
        var skipped: [String: Int] = [:]
        var writeErrors: [String: Int] = [:]
        var exportErrors: [String: Int] = [:]
        var lastWriteError: String?
        var checks: [String] = []
        var reloadSuccessful = true
        var reloadSuccessAt = Date().timeIntervalSince1970
        var reloadFailures = 0
        var probes: [String: Int] = [:]
        var generation = 0
    }

    private let figures = Mutex(Figures())
    /// The `vantage` label of every series (nil: none).
    public let vantage: Mutex<String?>
    public let startedAt = Date().timeIntervalSince1970

    public init(vantage: String?) { self.vantage = Mutex(vantage) }

    /// The config in force names these checks: the latest runs of others are dropped.
    public func configure(checks: [String], vantage: String?) {
        self.vantage.withLock { $0 = vantage }
        figures.withLock { figures in
            figures.checks = checks
            figures.latest = figures.latest.filter { checks.contains($0.key) }
        }
    }

    /// Raised by every run recorded and every reload: what `/` shows changes only with it.
    public var generation: Int { figures.withLock { $0.generation } }

    public func record(_ run: CheckRunRecord, skipped: Int) {
        figures.withLock { figures in
            figures.generation += 1
            guard figures.checks.contains(run.check) else { return }
            figures.latest[run.check] = run
            figures.runs[run.check, default: [:]][run.result, default: 0] += 1
            figures.skipped[run.check, default: 0] += skipped
            figures.exportErrors[run.check, default: 0] += run.exportErrors
            if let error = run.writeError {
                figures.writeErrors[run.check, default: 0] += 1
                figures.lastWriteError = error
            }
        }
    }

    public func reloaded(successfully: Bool) {
        figures.withLock { figures in
            figures.generation += 1
            figures.reloadSuccessful = successfully
            if successfully { figures.reloadSuccessAt = Date().timeIntervalSince1970 } else { figures.reloadFailures += 1 }
        }
    }

    /// A `/probe` answered, by module and result.
    public func probed(module: String, success: Bool) {
        figures.withLock { $0.probes["\(module)\u{0}\(success ? "success" : "failure")", default: 0] += 1 }
    }

    /// The latest run of each check, by name.
    public var latestRuns: [CheckRunRecord] {
        figures.withLock { figures in figures.checks.compactMap { figures.latest[$0] } }
    }

    /// serve's own health as `/metrics` gives it (`sonde_serve_*`), for the OTLP export.
    public func health() -> OTLPServeHealth {
        let (snapshot, vantage) = (figures.withLock { $0 }, self.vantage.withLock { $0 })
        let checks = snapshot.checks.map { name in
            let latest = snapshot.latest[name]
            return OTLPServeHealth.Check(name: name, runs: snapshot.runs[name] ?? [:], skipped: snapshot.skipped[name] ?? 0,
                                         writeErrors: snapshot.writeErrors[name] ?? 0, exportErrors: snapshot.exportErrors[name] ?? 0,
                                         lastDuration: latest.map { $0.finishedAt - $0.startedAt }, lastPassed: latest.map { $0.result == "passed" },
                                         lastLateness: latest?.lateness)
        }
        let probes = snapshot.probes.sorted { $0.key < $1.key }.map { key, count in
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            return (module: parts.first ?? "", result: parts.last ?? "", count: count)
        }
        return OTLPServeHealth(checks: checks, probes: probes, startedAt: startedAt, vantage: vantage)
    }

    /// `/metrics`: every check's latest run (its series with `check` on each, `vantage` first when
    /// set) and serve's own health.
    public func metricsText(inFlight: [String]) -> String {
        let (snapshot, vantage) = (figures.withLock { $0 }, self.vantage.withLock { $0 })
        var families = PrometheusFamilies()
        for name in snapshot.checks {
            guard let run = snapshot.latest[name], let series = run.families else { continue }
            families.add(series.labelled(("check", name)))
        }
        var own = PrometheusFamilies()
        var runs: [PrometheusFamilies.Sample] = []
        for name in snapshot.checks {
            for (result, count) in (snapshot.runs[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                runs.append(([("check", name), ("result", result)], Double(count)))
            }
        }
        own.add("sonde_serve_runs_total", "counter", "Scheduled runs by check and result (passed, failed, error, interrupted, timeout).", runs)
        own.add("sonde_serve_last_run_timestamp_seconds", "gauge", "When each check's latest run ended, Unix seconds.",
                snapshot.checks.compactMap { name in snapshot.latest[name].map { ([("check", name)], $0.finishedAt) } })
        own.add("sonde_serve_last_run_duration_seconds", "gauge", "How long each check's latest run took.",
                snapshot.checks.compactMap { name in snapshot.latest[name].map { ([("check", name)], $0.finishedAt - $0.startedAt) } })
        own.add("sonde_serve_last_run_success", "gauge", "Whether each check's latest run passed (1) or not (0).",
                snapshot.checks.compactMap { name in snapshot.latest[name].map { ([("check", name)], $0.result == "passed" ? 1 : 0) } })
        own.add("sonde_serve_schedule_lateness_seconds", "gauge", "How late the scheduler started each check's latest run.",
                snapshot.checks.compactMap { name in snapshot.latest[name].map { ([("check", name)], $0.lateness) } })
        own.add("sonde_serve_skipped_runs_total", "counter", "Starts a check missed because its previous run overran them.",
                snapshot.checks.map { ([("check", $0)], Double(snapshot.skipped[$0] ?? 0)) })
        own.add("sonde_serve_write_errors_total", "counter", "Runs whose report or history could not be written (a full disk).",
                snapshot.checks.map { ([("check", $0)], Double(snapshot.writeErrors[$0] ?? 0)) })
        own.add("sonde_serve_export_errors_total", "counter", "OTLP exports of scheduled runs that failed after their bounded retries (by signal).",
                snapshot.checks.map { ([("check", $0)], Double(snapshot.exportErrors[$0] ?? 0)) })
        own.add("sonde_serve_checks_in_flight", "gauge", "Scheduled runs under way.", [([], Double(inFlight.count))])
        own.add("sonde_serve_config_last_reload_successful", "gauge", "Whether the last configuration reload attempt was successful.",
                [([], snapshot.reloadSuccessful ? 1 : 0)])
        own.add("sonde_serve_config_last_reload_success_timestamp_seconds", "gauge", "Timestamp of the last successful configuration reload.",
                [([], snapshot.reloadSuccessAt)])
        own.add("sonde_serve_probes_total", "counter", "/probe requests answered, by module and result.",
                snapshot.probes.sorted { $0.key < $1.key }.map { key, count in
                    let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
                    return ([("module", parts.first ?? ""), ("result", parts.last ?? "")], Double(count))
                })
        own.add("sonde_serve_start_time_seconds", "gauge", "When this serve started, Unix seconds.", [([], startedAt)])
        own.add("sonde_serve_build_info", "gauge", "The sonde serving these series (always 1).", [([("version", SondeVersion.current)], 1)])
        families.add(own)
        return (vantage.map { families.labelled(("vantage", $0)) } ?? families).text
    }
}
