import Foundation
import Synchronization
import SondeCapture
import SondeCore
import SondeOTLP
import SondeReport
import SondeRun
import SondeSuite

/// Runs one stream check inside a run: `StreamEngine` on a thread of its own (libcurl's callbacks
/// run there), a line per connection, reconnect, burst and lost id on the terminal as they come,
/// a status line redrawn on a terminal, status lines every 5 s off one (`StatusLines`), the figures recorded at the end as an
/// item of report.json's `streams` (a `ReportSection`). Over an emulated link the engine's thread
/// enters the link's namespace first (libcurl's resolver threads, started from it, inherit it).
public struct StreamCheckRunner: CheckRunner {
    public private(set) var options: StreamOptions
    /// The URL as shown (redacted).
    let displayURL: String
    /// The figures of the last run, for `render`.
    private let result = StreamResultBox()

    public init(options: StreamOptions, displayURL: String) {
        self.options = options
        self.displayURL = displayURL
    }

    public var kind: any CheckKind.Type { SSEKind.self }

    /// The connections bind to `localPorts` (a capture's block).
    public mutating func prepare(redactor: Redactor, localPorts: ClosedRange<Int>?) {
        if let localPorts { options.transport.localPorts = localPorts }
    }

    /// Each request carries `traceparent` in the run's trace (one span id per check).
    public mutating func trace(_ context: OTLPTraceContext) {
        options.headers.append(HeaderField(name: "traceparent", value: SpanID.traceparent(trace: context.traceIDHex, span: SpanID.random())))
    }

    public var interruptedNote: String { "every stream was ended; the report holds the figures so far" }

    public var warnings: [String] {
        options.reconnect && options.maxEventsPerStream == nil && options.defaultRetryMs >= Int(options.durationS * 1000)
            ? ["The reconnection delay (\(options.defaultRetryMs) ms) is not shorter than the duration: no reconnect will happen unless the server's retry: is."]
            : []
    }

    public var insecure: Bool { options.transport.insecure }

    public var targets: (urls: [String], resolve: [String]) { ([options.url], options.transport.resolve) }

    public var endpoints: [(address: String, port: Int)] { CaptureEndpoints.resolve(urls: [options.url], resolve: options.transport.resolve) }

    public func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome {
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
        let link = context.link
        let outcome: Result<StreamReport, TaskError> = await runOnDedicatedThread(named: "sonde-stream") {
            if let link {
                do throws(TaskError) { try link.enter() } catch { return .failure(error) }
            }
            defer { link?.leave() }
            do throws(TaskError) {
                return .success(try engine.run(check: name, shouldStop: { stop.shouldEnd }) { note in
                    guard terminal else { return }
                    if redraw { StandardStreams.writeError(Data("\r\u{1B}[K".utf8)) }
                    printLine(prefix + StreamTerminalView.line(note))
                })
            } catch {
                return .failure(link?.explain(error) ?? error)
            }
        }
        await status.stop()
        ticker.cancel()
        _ = await ticker.result
        if redraw { StandardStreams.writeError(Data("\r\u{1B}[K".utf8)) }
        switch outcome {
        case .failure(let error):
            return CheckOutcome(error: error, setupFailed: true)
        case .success(var report):
            report.metrics = StreamMetrics.values(of: report.total)
            result.value.withLock { $0 = report }
            do throws(TaskError) { try lifecycle.recorder.record(section: "streams", item: report) } catch { return CheckOutcome(error: error) }
            return CheckOutcome(failedWork: !report.total.passed)
        }
    }

    public func render(_ finished: RunOutcome, _ renderer: TerminalRenderer) {
        guard let report = result.value.withLock({ $0 }) else { return }
        for line in StreamTerminalView.summary(report) { printLine(line) }
    }
}

/// The figures of a stream check's run, kept for `render` (a runner is a value; its run's result is shared).
final class StreamResultBox: Sendable {
    let value = Mutex<StreamReport?>(nil)
}
