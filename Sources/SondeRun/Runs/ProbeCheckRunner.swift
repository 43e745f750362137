import CSignalFlags
import Foundation
import SondeCapture
import SondeCore
import SondeSuite
import SondeHTTP
import SondeOTLP
import SondeReport

/// URLs that share one set of probe options, each with the name its results go by (nil: the
/// default, `RequestName`). Invariant: `names` is as long as `urls`.
public struct ProbeGroup {
    public private(set) var urls: [String]
    public private(set) var names: [String?]
    public var options: ProbeOptions

    public init(urls: [String], options: ProbeOptions) {
        self.urls = urls
        names = Array(repeating: nil, count: urls.count)
        self.options = options
    }

    public init(requests: [ProbeRequest], options: ProbeOptions) {
        urls = requests.map(\.url)
        names = requests.map(\.name)
        self.options = options
    }
}

/// Runs probe groups inside a run: the engine on a dedicated thread, the recorder (on its own
/// thread) and the terminal view fed as tasks complete.
public struct ProbeCheckRunner: CheckRunner {
    private(set) var groups: [ProbeGroup]
    /// Warnings the run's report carries besides the engine's (e.g. `--keylog` on).
    public var extraWarnings: [String] = []
    private var runners: [(runner: ProbeRunner, group: ProbeGroup)] = []
    /// The check's Alt-Svc cache, shared by its runners; nil when every group turned Alt-Svc off
    /// or libcurl has no HTTP/3.
    private var altSvc: AltSvcCache?
    /// Tasks shown in full on the terminal before the view switches to a progress count.
    static let detailedTasks = 30

    public init(groups: [ProbeGroup]) { self.groups = groups }

    public var kind: any CheckKind.Type { ProbeKind.self }

    /// Every request carries `traceparent` with the run's root span as its parent.
    public mutating func trace(_ context: OTLPTraceContext) {
        addRequestHeader(HeaderField(name: "traceparent", value: context.traceparent))
    }

    /// Adds `header` to every group's requests (after the user's own headers).
    mutating func addRequestHeader(_ header: HeaderField) {
        for index in groups.indices { groups[index].options.headers.append(header) }
    }

    /// Builds the engines (a usage error when libcurl refuses an option); connections bind to
    /// `localPorts` when a capture names them.
    public mutating func prepare(redactor: Redactor, localPorts: ClosedRange<Int>?) throws(TaskError) {
        if let localPorts { for index in groups.indices { groups[index].options.localPorts = localPorts } }
        let connections = ConnectionRegistry()
        altSvc = nil
        if groups.contains(where: \.options.altSvc) && CurlLibrary.supportsHTTP3 {
            let file = groups.lazy.compactMap(\.options.altSvcFile).first
            do throws(TaskError) { altSvc = try AltSvcCache(persistentFile: file) } catch {
                // Without --alt-svc FILE, a missing temporary folder costs Alt-Svc, not the run.
                if file != nil { throw error }
                extraWarnings.append("Alt-Svc was off for this run: \(error.message)")
            }
        }
        runners = []
        for group in groups {
            runners.append((try ProbeRunner(options: group.options, redactor: redactor, registry: connections, altSvc: altSvc), group))
        }
    }

    public var warnings: [String] { Array(Set(runners.flatMap { $0.0.warnings })).sorted() + extraWarnings }

    public var insecure: Bool { groups.contains { $0.options.insecure } }

    public var targets: (urls: [String], resolve: [String]) { (groups.flatMap(\.urls), groups.flatMap(\.options.resolve)) }

    public var endpoints: [(address: String, port: Int)] { groups.flatMap { CaptureEndpoints.resolve(urls: $0.urls, resolve: $0.options.resolve) } }

    public var recordsHAR: Bool { true }

    public var interruptedNote: String { "the report holds the tasks that finished" }

    public func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome {
        let recorder = lifecycle.recorder
        let json = !lifecycle.terminal  // nothing for the terminal (--json, serve)
        let renderer = RunSettings.terminalRenderer
        let view = lifecycle.progressView(context)
        let progressOnTTY = view.isTerminal
        let check = context.name, prefix = context.linePrefix
        let totalTasks = groups.reduce(0) { $0 + $1.urls.count * max(1, $1.options.count) }
        let figures = LiveFigures()
        let status = StatusLines(view, prefix: prefix) { elapsed in
            StatusLines.elapsed(elapsed) + figures.read { Self.statusLine($0, total: totalTasks, elapsed: elapsed) }
        }
        let runners = self.runners
        let altSvc = self.altSvc
        let failedBefore = recorder.failedTasks
        let recording = RecorderThread(recorder: recorder)
        let stop = lifecycle.stop
        let link = context.link
        let linkName = link?.name
        let failure: TaskError? = await runOnDedicatedThread(named: "sonde-engine") {
            var done = 0
            var failure: TaskError? = nil
            // Every socket, resolver thread and QUIC datagram of the engine from here on crosses the link.
            if let link {
                do throws(TaskError) { try link.enter() } catch {
                    do throws(TaskError) { try recording.finish() } catch {}
                    return error
                }
            }
            defer { link?.leave() }
            var lastProgress = monotonicMicroseconds()
            for (runner, group) in runners {
                var interrupted = false
                do throws(TaskError) {
                    interrupted = try runner.run(
                        urls: group.urls, names: group.names,
                        shouldStop: { stop.shouldEnd || failure != nil },
                        onTask: { ended in
                            // A task the run's own time limit cut short timed out (a signal's stay `interrupted`).
                            var task = ended
                            if stop.isPulled, task.error?.code == .interrupted {
                                task.error = TaskError(code: .timedOut, message: "the run-timeout ended the run before this task finished")
                            }
                            if let link, let error = task.error { task.error = link.explain(error) }
                            // Only a suite's check (and a link) is stamped on its tasks: a plain probe hands them on as they are.
                            do throws(TaskError) {
                                if check != nil || linkName != nil {
                                    var stamped = task
                                    stamped.check = check
                                    stamped.link = linkName
                                    try recording.submit(stamped)
                                } else {
                                    try recording.submit(task)
                                }
                            } catch { failure = error }
                            done += 1
                            figures.update { figures in
                                figures.done += 1
                                if task.error != nil { figures.failed += 1 }
                                for transaction in task.transactionMetrics { figures.bytes += transaction.countOfResponseBodyBytesReceived }
                                figures.latency.record(milliseconds: task.taskInterval.durationMs)
                            }
                            guard !json else { return }
                            if done <= Self.detailedTasks {
                                printLine(prefix + renderer.render(task: task))
                            } else if done == Self.detailedTasks + 1 {
                                printLine(prefix + "… \(totalTasks - Self.detailedTasks) more tasks: see the summary below and the report")
                            }
                            if progressOnTTY, done > Self.detailedTasks, monotonicMicroseconds() - lastProgress > 250_000 {
                                lastProgress = monotonicMicroseconds()
                                StandardStreams.writeError(Data("\r\(done)/\(totalTasks) tasks".utf8))
                            }
                        })
                } catch {
                    failure = error
                }
                if interrupted || failure != nil { break }
            }
            if progressOnTTY && done > Self.detailedTasks && !json { StandardStreams.writeError(Data("\r\u{1B}[K".utf8)) }
            do throws(TaskError) { try altSvc?.finish() } catch { if failure == nil { failure = error } }
            do throws(TaskError) { try recording.finish() } catch { if failure == nil { failure = error } }
            return failure
        }
        await status.stop()
        return CheckOutcome(error: failure, failedWork: recorder.failedTasks > failedBefore)
    }

    /// "probe: 12/100 tasks · 1 failed · p50 302 ms · 3.3 tasks/s · 1.2 MiB in".
    static func statusLine(_ figures: LiveFigures.Values, total: Int, elapsed: Double) -> String {
        var line = "probe: \(figures.done)/\(total) tasks · \(figures.failed) failed"
        if let latency = figures.latency.summary { line += " · p50 \(formatMs(latency.p50)) ms" }
        if elapsed > 0 { line += " · " + String(format: "%.1f", Double(figures.done) / elapsed) + " tasks/s" }
        return line + " · " + formatBytes(figures.bytes) + " in"
    }

    public func render(_ finished: RunOutcome, _ renderer: TerminalRenderer) {
        printLine(renderer.render(summary: finished.summary))
        if let comparison = finished.baseline { printLine(renderer.render(baseline: comparison)) }
    }
}

extension ProbeKind: RunnableKind {
    public static func runner(for spec: ProbeSpec, settings: RunSettings) throws(SpecProblem) -> any CheckRunner {
        ProbeCheckRunner(groups: [ProbeGroup(requests: spec.requests, options: try spec.makeOptions(redactor: settings.redactor))])
    }
}
