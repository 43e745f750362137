import CurlShim
import Foundation
import SondeCapture
import SondeCore
import SondeHTTP
import SondeReport

/// URLs that share one set of probe options.
struct ProbeGroup {
    var urls: [String]
    var options: ProbeOptions
}

/// Runs probe groups into one run folder: the engine on a dedicated thread, the recorder (on its
/// own thread) and the terminal view fed as tasks complete, the reports written at the end, also
/// after Ctrl-C.
struct ProbeSession {
    let command: String
    let arguments: [String]
    let report: ReportOptions
    /// `--capture`, nil without.
    var capture: CaptureSession.Mode? = nil
    /// Warnings the run's report carries besides the engine's (e.g. `--keylog` on).
    var extraWarnings: [String] = []
    /// Tasks shown in full on the terminal before the view switches to a progress count.
    static let detailedTasks = 30

    func run(groups: [ProbeGroup]) async -> ExitStatus {
        let redactor = report.redactor
        // A capture holds this run's connections only: they bind to a block of local ports that
        // the capture filter names.
        let localPorts = capture != nil ? LiveCapture.localPortBlock() : nil
        var groups = groups
        if let localPorts { for index in groups.indices { groups[index].options.localPorts = localPorts } }
        var runners: [(ProbeRunner, [String])] = []
        let connections = ConnectionRegistry()
        for group in groups {
            do {
                runners.append((try ProbeRunner(options: group.options, redactor: redactor, registry: connections), group.urls))
            } catch {
                printError("sonde: \(error.message)")
                return .usage
            }
        }
        let warnings = Array(Set(runners.flatMap { $0.0.warnings })).sorted() + extraWarnings
        guard let lifecycle = RunLifecycle.open(command: command, arguments: arguments, report: report,
                                                insecure: groups.contains { $0.options.insecure }, warnings: warnings, capture: capture)
        else { return .usage }
        let recorder = lifecycle.recorder
        let json = report.json
        let renderer = ReportOptions.terminalRenderer
        let progressOnTTY = isatty(STDERR_FILENO) == 1
        let totalTasks = groups.reduce(0) { $0 + $1.urls.count * max(1, $1.options.count) }
        lifecycle.catchSignals()
        let endpoints = groups.flatMap { CaptureEndpoints.resolve(urls: $0.urls, resolve: $0.options.resolve) }
        guard lifecycle.startCapture(mode: capture, endpoints: endpoints, localPorts: localPorts) else { return .usage }

        let recording = RecorderThread(recorder: recorder)
        let outcome: (interrupted: Bool, failure: TaskError?) = await runOnDedicatedThread(named: "sonde-engine") {
            var done = 0
            var failure: TaskError? = nil
            var interrupted = false
            var lastProgress = monotonicMicroseconds()
            for (runner, urls) in runners {
                do throws(TaskError) {
                    interrupted = try runner.run(
                        urls: urls,
                        shouldStop: { sonde_received_signal() != 0 || failure != nil },
                        onTask: { task in
                            do throws(TaskError) { try recording.submit(task) } catch { failure = error }
                            done += 1
                            guard !json else { return }
                            if done <= Self.detailedTasks {
                                print(renderer.render(task: task))
                            } else if done == Self.detailedTasks + 1 {
                                print("… \(totalTasks - Self.detailedTasks) more tasks: see the summary below and the report")
                            }
                            if progressOnTTY, done > Self.detailedTasks, monotonicMicroseconds() - lastProgress > 250_000 {
                                lastProgress = monotonicMicroseconds()
                                FileHandle.standardError.write(Data("\r\(done)/\(totalTasks) tasks".utf8))
                            }
                        })
                } catch {
                    failure = error
                }
                if interrupted || failure != nil { break }
            }
            if progressOnTTY && done > Self.detailedTasks && !json { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            do throws(TaskError) { try recording.finish() } catch { if failure == nil { failure = error } }
            return (interrupted, failure)
        }

        return lifecycle.finish(error: outcome.failure, failedWork: recorder.failedTasks > 0, har: true,
                                interruptedNote: "the report holds the tasks that finished") { finished, renderer in
            print(renderer.render(summary: finished.summary))
            if let comparison = finished.baseline { print(renderer.render(baseline: comparison)) }
        }
    }
}

/// A run folder path as users type it: trailing slashes dropped, `…/journal.jsonl` accepted.
func normalizedRunFolder(_ path: String) -> String {
    var path = path
    if path.hasSuffix("/journal.jsonl") { path = String(path.dropLast("/journal.jsonl".count)) }
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path
}

/// `--json`: the run's report.json on stdout.
func printReportDocument(_ folder: RunFolder) {
    if let data = FileManager.default.contents(atPath: folder.reportJSONPath) { FileHandle.standardOutput.write(data) }
}

/// The files a run wrote, as the terminal view ends (the HAR only when it holds transactions):
/// the HTML report last, on its own `report:` line, so that it is the output's last line.
func printReportPaths(_ folder: RunFolder, har: Bool, prometheusPath: String?) {
    let others = [folder.reportJSONPath] + (har ? [folder.reportHARPath] : []) + [folder.junitPath]
        + (prometheusPath.map { [$0] } ?? [])
    for (index, path) in others.enumerated() { print((index == 0 ? "files:  " : "        ") + path) }
    print("report: " + folder.reportHTMLPath)
}

/// Prints a message on stderr. Messages carry text from outside (a server's answer, a file's
/// contents), so control characters are shown as escapes (`TerminalText`); its own lines stay lines.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((TerminalText.sanitized(message, keepingNewlines: true) + "\n").utf8))
}

/// Runs blocking work (the libcurl event loop) on its own thread, off Swift's cooperative pool,
/// so that in-process servers (the embedded target) keep their threads. The thread is named
/// `name` (`Thread.startNamed`).
func runOnDedicatedThread<T>(named name: String, _ body: @escaping () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.startNamed(name, stackSize: 8 << 20) { continuation.resume(returning: body()) }
    }
}
