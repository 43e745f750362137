import Foundation
import SondeCore
import SondeHistory
import SondeOTLP
import SondeReport
import SondeRun
import SondeSuite

/// One scheduled run of a check: a one-check run folder (`CheckDriver`, quiet), ended by its
/// `run-timeout` (`StopSwitch`), its series kept for `/metrics`, added to the history, old run
/// folders pruned. Serve calls the run library directly: no command-line option is parsed.
public struct ScheduledRunner: Sendable {
    /// The settings every scheduled run starts from (output folder, redaction).
    let settings: RunSettings
    let config: CurrentConfig
    /// Where every run is added (nil: none could be opened).
    let history: HistoryStore?
    /// Why no run can be added to the history (it could not be opened, or only to be read); nil
    /// when runs are added. Each run not added counts as a write error.
    let historyUnwritable: String?
    /// serve's log (a line on stdout).
    let log: @Sendable (String) -> Void
    /// Whether the last OTLP export failed: a failure is said once, and its end once.
    private let exportFailing = ExportFailureGate()
    private let healthFailing = ExportFailureGate()
    private let healthExporting = ExportInFlight()
    /// Old run folders are pruned at most once a minute (`keep`), not after every run.
    private let pruneGate = IntervalGate()

    public init(settings: RunSettings, config: CurrentConfig, history: HistoryStore?, historyUnwritable: String? = nil,
                log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.config = config
        self.history = history
        self.historyUnwritable = history == nil ? historyUnwritable ?? "no history could be opened" : historyUnwritable
        self.log = log
    }

    public func run(_ scheduled: ScheduledCheck) async -> CheckRunRecord {
        let name = scheduled.check.name
        let started = Date().timeIntervalSince1970
        var settings = self.settings
        settings.traceContext = OTLPTraceContext.random()
        // Serve exports each run itself (`export`), counting what fails.
        settings.otlp = nil
        // Values from the environment are secrets wherever a name does not already say so.
        settings.extraRedactions += config.value.loaded.namesCarryingEnvironment
        let planned: PlannedCheck
        do throws(SpecProblem) { planned = try PlannedCheck(scheduled.check, settings: settings) } catch {
            printError("sonde serve: check \(name): \(error.description)")
            return CheckRunRecord(check: name, result: "error", startedAt: started, finishedAt: Date().timeIntervalSince1970, families: nil, folder: nil)
        }
        let stop = StopSwitch()
        let timer = Task {
            try await Task.sleep(nanoseconds: UInt64(scheduled.runTimeout * 1e9))
            stop.pull()
        }
        let ended = await CheckDriver(command: "serve", arguments: ["--check", name], settings: settings, capture: nil, parallel: 1,
                                      quiet: true, stop: stop).runReporting([planned])
        timer.cancel()
        let finishedAt = Date().timeIntervalSince1970
        // The report's status (`timeout` when the switch ended it); without a report, the switch says.
        let result = ended.finished?.run.status.rawValue ?? (stop.isPulled ? RunStatus.timeout.rawValue : RunStatus.error.rawValue)
        var families = ended.finished.map {
            PrometheusWriter.families(run: $0.run, summary: $0.summary, thresholds: $0.thresholds, soaks: $0.soaks, resume: $0.resume,
                                      checks: $0.checks, describingRun: false, sections: $0.sections, renderers: settings.sectionRenderers)
        }
        // The series of the check kinds' own sections (an sse check's `sonde_sse_*`), through their renderers.
        if let finished = ended.finished, !finished.sections.isEmpty { families?.add(settings.sectionRenderers.prometheus(finished.sections)) }
        // The phase histograms of the run's transactions, read back from its journal.
        if let folder = ended.folder, let finished = ended.finished, finished.summary.transactions > 0 {
            do throws(TaskError) {
                families?.add(try PhaseHistograms.of(runFolder: folder).families)
            } catch {
                printError("sonde serve: check \(name): no phase histograms: \(error.message)")
            }
        }
        var writeError = ended.folder != nil && ended.finished == nil ? "the report of check \(name) could not be written (see the log)" : nil
        if let folder = ended.folder, ended.finished != nil {
            if let historyUnwritable {
                printError("sonde serve: check \(name): the run was not added to the history: \(historyUnwritable)")
                writeError = "the history could not be written: \(historyUnwritable)"
            } else if let history {
                do throws(TaskError) { try history.record(runFolder: folder, vantage: config.value.vantage) } catch {
                    printError("sonde serve: check \(name): the run was not added to the history: \(error.message)")
                    writeError = "the history could not be written: \(error.message)"
                }
            }
        }
        if let days = config.value.keepDays, pruneGate.claim(every: 60) {
            for removed in RunFolderPruner.prune(outputDirectory: settings.outputDirectory, olderThanDays: days) {
                log("sonde serve: keep: removed \(removed) (older than \(days) days)")
            }
        }
        var exportErrors = 0
        if let otlp = config.value.otlp, let folder = ended.folder, let finished = ended.finished {
            exportErrors = await export(folder: folder, run: finished.run, settings: otlp, context: settings.traceContext, check: name)
        }
        log("sonde serve: check \(name): \(result) in \(String(format: "%.2f", finishedAt - started)) s" + (ended.folder.map { " (\($0))" } ?? ""))
        var record = CheckRunRecord(check: name, result: result, startedAt: started, finishedAt: finishedAt, families: families,
                                    folder: ended.folder, writeError: writeError)
        record.exportErrors = exportErrors
        // What the run freed goes back to the system now, not when this thread next allocates as much.
        MallocRetention.trim()
        return record
    }

    /// Sends serve's own health (`OTLPServeHealth`, read by `health` when it is sent) on a thread
    /// of its own, one at a time: one asked for while another is under way is sent once after it,
    /// with the figures of then. A failure is logged once until an export goes through again.
    public func exportHealth(_ health: @escaping @Sendable () -> OTLPServeHealth, settings: OTLPSettings) {
        guard healthExporting.begin() else { return }
        let log = self.log, gate = healthFailing, busy = healthExporting
        let thread = Thread {
            // Bounded: each pass is one bounded export, and a further pass only when a run ended meanwhile.
            repeat {
                let failure = health().export(settings: settings)
                let wasFailing = gate.update(failing: failure != nil)
                if let failure, !wasFailing {
                    log("sonde serve: the OTLP export of serve's own metrics failed (said once until it works again): \(failure)")
                }
            } while busy.end()
        }
        thread.name = "sonde-otlp-health"
        thread.start()
    }

    /// Exports a finished run on a thread of its own (the export blocks for at most its bounded
    /// retries); returns how many signals failed. The first failure is logged, later ones only
    /// counted (`sonde_serve_export_errors_total`) until an export goes through again.
    private func export(folder: String, run: RunInfo, settings: OTLPSettings, context: OTLPTraceContext, check: String) async -> Int {
        let vantage = config.value.vantage
        let soakParts = self.settings.sectionRenderers.soakParts
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<OTLPExporter.Outcome, Never>) in
            let thread = Thread {
                continuation.resume(returning: OTLPExporter.export(runFolder: folder, run: run, settings: settings, context: context, vantage: vantage,
                                                                        soakParts: soakParts))
            }
            thread.name = "sonde-otlp"
            thread.start()
        }
        let failing = !outcome.failures.isEmpty
        let wasFailing = exportFailing.update(failing: failing)
        if failing && !wasFailing {
            log("sonde serve: check \(check): the OTLP export failed (counted in sonde_serve_export_errors_total; said once until it works again): "
                + outcome.failures.joined(separator: "; "))
        } else if !failing && wasFailing {
            log("sonde serve: the OTLP export works again")
        }
        return outcome.failures.count
    }
}
