import SondeCore
import SondeReport

/// Exports a finished run to an OTLP collector: reads the run folder's journal once (the same
/// tasks report.json holds, so every value equals the report's), sends the run's metrics
/// (`OTLPMetricsBuilder`) and its spans in batches of at most `spansPerRequest`
/// (`OTLPTracesBuilder`), each through `OTLPSender` (bounded retries and time).
///
/// Export never changes the run: it starts after the run's files are written, it throws
/// nothing, and what failed comes back in the outcome for the caller to say and count (each
/// failure names its URL redacted: `Redactor.redact(url:)`, so a password in the endpoint is
/// never printed or logged).
///
/// Threading: blocks the calling thread (at most each signal's timeout per request, and the
/// trace batches stop at the first that fails); call it off Swift's cooperative pool.
public enum OTLPExporter {
    public static let spansPerRequest = 2000

    public struct Outcome: Sendable, Equatable {
        /// Why each signal that failed did, one sentence each ([]: all went through).
        public var failures: [String] = []
        /// Transactions in the metrics sent (`http.client.request.duration`'s count).
        public var transactions = 0
        /// Spans sent successfully.
        public var spans = 0
        /// Requests made, retries included.
        public var attempts = 0
    }

    /// Exports the run in `runFolder`.
    /// - Parameters:
    ///   - run: the run as its report holds it (`RunOutcome.run`: id, command, start, end, status).
    ///   - context: the run's trace (the one `--traceparent` sent).
    ///   - vantage: serve's `vantage:` (resource attribute `sonde.vantage`).
    ///   - soakParts: the extensions' parts of a soak, whose sums follow the soak's (`SoakPartRenderer.otlpSums`).
    public static func export(runFolder: String, run: RunInfo, settings: OTLPSettings, context: OTLPTraceContext, vantage: String?,
                              soakParts: [any SoakPartRenderer] = []) -> Outcome {
        var outcome = Outcome()
        let folder = RunFolder(existing: runFolder)
        var metrics = OTLPMetricsBuilder(knownMethods: settings.knownMethods)
        var traces = OTLPTracesBuilder(context: context, knownMethods: settings.knownMethods)
        let runID = run.id
        let command = run.command
        func resource(_ check: String?) -> OTLPResource {
            OTLPResource(service: settings.resource, vantage: vantage, check: check, runID: runID, command: command)
        }
        let traceSender = OTLPSender(target: settings.traces)
        var tracesFailed: String?
        let scanned: JournalScan.Result
        do throws(TaskError) {
            scanned = try JournalScan.forEachTask(folder: folder, soakParts: soakParts) { task in
                let resource = resource(task.check)
                metrics.add(task, resource: resource)
                guard tracesFailed == nil else { return }
                traces.add(task, resource: resource)
                let pending = traces.pendingSpans
                if pending >= spansPerRequest, let batch = traces.takeBatch() {
                    let sent = traceSender.send(batch)
                    outcome.attempts += sent.attempts
                    if let failure = sent.failure { tracesFailed = failure } else { outcome.spans += pending }
                }
            }
        } catch {
            outcome.failures.append("the run's journal could not be read: \(error.message)")
            return outcome
        }
        let runResource = resource(nil)
        for soak in scanned.soaks {
            metrics.addSoak(soak, parts: soakParts, resource: resource(soak.check))
        }
        for trial in scanned.resume.trials {
            metrics.addResumeTrial(trial, resource: resource(trial.check))
        }
        for values in ReportSection.declaredValues(in: scanned.sections) {
            metrics.addDeclared(values, resource: resource(values.check))
        }
        let start = OTLPTracesBuilder.nanos(run.startedAt)
        let end = run.finishedAt.map(OTLPTracesBuilder.nanos) ?? start
        if !metrics.isEmpty {
            let sent = OTLPSender(target: settings.metrics).send(metrics.request(startNanos: start, endNanos: end))
            outcome.attempts += sent.attempts
            if let failure = sent.failure {
                outcome.failures.append("metrics to \(settings.metrics.shownURL): \(failure)")
            } else {
                outcome.transactions = metrics.transactions
            }
        }
        if tracesFailed == nil {
            traces.addRun(run, resource: runResource)
            for soak in scanned.soaks {
                traces.addSoak(soak, resource: resource(soak.check))
            }
            for trial in scanned.resume.trials {
                traces.addResumeTrial(trial, runStart: run.startedAt,
                                      resource: resource(trial.check))
            }
            let pending = traces.pendingSpans
            if let batch = traces.takeBatch() {
                let sent = traceSender.send(batch)
                outcome.attempts += sent.attempts
                if let failure = sent.failure { tracesFailed = failure } else { outcome.spans += pending }
            }
        }
        if let tracesFailed { outcome.failures.append("traces to \(settings.traces.shownURL): \(tracesFailed)") }
        return outcome
    }
}
