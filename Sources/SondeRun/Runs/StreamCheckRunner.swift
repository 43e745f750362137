import Foundation
import Synchronization
import SondeCapture
import SondeCore
import SondeReport
import SondeSSE

/// Runs one stream check inside a run: `StreamEngine` on a thread of its own (libcurl's callbacks
/// run there), a line per connection, reconnect, burst and lost id on the terminal as they come,
/// a status line redrawn on a terminal, status lines every 5 s off one (`StatusLines`), the figures recorded at the end as an
/// item of report.json's `streams` (a `ReportSection`).
///
/// It offers `CheckRunner` the members the other runners do (prepare, trace, warnings, insecure,
/// targets, endpoints, run, render); until the check-kind registry lets it in, `sonde stream`
/// drives it through `runAlone`.
public struct StreamCheckRunner {
    public private(set) var options: StreamOptions
    /// The URL as shown (redacted).
    let displayURL: String
    /// The figures of the last run, for `render`.
    private let result = StreamResultBox()

    public init(options: StreamOptions, displayURL: String) {
        self.options = options
        self.displayURL = displayURL
    }

    /// The connections bind to `localPorts` (a capture's block).
    mutating func prepare(localPorts: ClosedRange<Int>?) {
        if let localPorts { options.transport.localPorts = localPorts }
    }

    /// Each request carries `traceparent` in trace `traceID` (one span id per run).
    mutating func trace(traceID: String) {
        options.headers.append(HeaderField(name: "traceparent", value: SpanID.traceparent(trace: traceID, span: SpanID.random())))
    }

    var warnings: [String] {
        options.reconnect && options.maxEventsPerStream == nil && options.defaultRetryMs >= Int(options.durationS * 1000)
            ? ["The reconnection delay (\(options.defaultRetryMs) ms) is not shorter than the duration: no reconnect will happen unless the server's retry: is."]
            : []
    }

    var insecure: Bool { options.transport.insecure }

    var targets: (urls: [String], resolve: [String]) { ([options.url], options.transport.resolve) }

    var endpoints: [(address: String, port: Int)] { CaptureEndpoints.resolve(urls: [options.url], resolve: options.transport.resolve) }

    func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome {
        let engine = StreamEngine(options: options, redactor: lifecycle.settings.redactor)
        let terminal = lifecycle.terminal
        let prefix = context.linePrefix
        if terminal {
            printLine(prefix + "stream \(displayURL): \(options.streams) stream\(options.streams == 1 ? "" : "s") for "
                + "\(formatDuration(options.durationS)); report in \(lifecycle.recorder.folder.path)")
        }
        let planned = options.durationS
        let view = lifecycle.progressView(context)
        let status = StatusLines(view, prefix: prefix) { elapsed in
            StatusLines.elapsed(elapsed, of: planned) + "stream: " + engine.status
        }
        // On a terminal the status is one line on stderr redrawn in place (as the soak's), cleared
        // before each line of the streams' own.
        let redraw = view.isTerminal
        let started = ContinuousClock.now
        let ticker = Task {
            while redraw && !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                let elapsed = (ContinuousClock.now - started).components.seconds
                StandardStreams.writeError(Data(("\r\u{1B}[K" + StatusLines.elapsed(Double(elapsed), of: planned) + engine.status).utf8))
            }
        }
        let stop = lifecycle.stop
        let name = context.name
        let outcome: Result<StreamReport, TaskError> = await runOnDedicatedThread(named: "sonde-stream") {
            do throws(TaskError) {
                return .success(try engine.run(check: name, shouldStop: { stop.shouldEnd }) { note in
                    guard terminal else { return }
                    if redraw { StandardStreams.writeError(Data("\r\u{1B}[K".utf8)) }
                    printLine(prefix + StreamTerminalView.line(note))
                })
            } catch {
                return .failure(error)
            }
        }
        await status.stop()
        ticker.cancel()
        _ = await ticker.result
        if redraw { StandardStreams.writeError(Data("\r\u{1B}[K".utf8)) }
        switch outcome {
        case .failure(let error):
            return CheckOutcome(error: error, setupFailed: true)
        case .success(let report):
            result.value.withLock { $0 = report }
            do throws(TaskError) { try lifecycle.recorder.record(section: "streams", item: report) } catch { return CheckOutcome(error: error) }
            return CheckOutcome(failedWork: !report.total.passed)
        }
    }

    func render(_ finished: RunOutcome, _ renderer: TerminalRenderer) {
        guard let report = result.value.withLock({ $0 }) else { return }
        for line in StreamTerminalView.summary(report) { printLine(line) }
    }

    /// Runs this check as a plain command's run (`sonde stream`), until `CheckDriver` takes it:
    /// the lifecycle opened, signals caught, the check run, the run finished by the one status rule.
    public func runAlone(command: String, arguments: [String], settings: RunSettings) async -> ExitStatus {
        var runner = self
        runner.prepare(localPorts: nil)
        if settings.traceparent { runner.trace(traceID: settings.traceContext.traceIDHex) }
        let subject = RunSubject(checks: [RunSubject.check(name: nil, kind: "stream", linkSpec: nil)], urls: [options.url])
        guard let lifecycle = RunLifecycle.open(command: command, arguments: arguments, settings: settings, insecure: runner.insecure,
                                                subject: subject, warnings: runner.warnings, capture: nil)
        else { return .usage }
        lifecycle.catchSignals()
        let outcome = await runner.run(in: lifecycle, CheckContext(name: nil))
        if outcome.setupFailed, let error = outcome.error { return lifecycle.abandon(error, prefix: "sonde \(command)") }
        return lifecycle.finish(error: outcome.error, failedWork: outcome.failedWork, har: false,
                                interruptedNote: "every stream was ended; the report holds the figures so far") { finished, renderer in
            runner.render(finished, renderer)
        }
    }
}

/// The figures of a stream check's run, kept for `render` (a runner is a value; its run's result is shared).
final class StreamResultBox: Sendable {
    let value = Mutex<StreamReport?>(nil)
}
