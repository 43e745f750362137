import CurlShim
import Foundation
import SondeCore
import SondeHTTP
import SondeReport
import SondeWebSocket

/// Runs one soak into a run folder: the engine on NIO's event loops, its events journalled as
/// they come (`SoakJournalSink`, flushed every second), a status line on a TTY, the reports at
/// the end, also after Ctrl-C or SIGTERM (every connection is closed with 1000 first).
struct SoakSession {
    let arguments: [String]
    let report: ReportOptions
    /// `--capture`, nil without; the options' `localPorts` is the block the filter names.
    var capture: CaptureSession.Mode? = nil
    /// The URL as given, for the capture's endpoints.
    var captureURL: String? = nil

    /// - Parameter discoverIdleTimeout: run the idle-timeout discovery up to this silence (s) instead of a soak.
    func run(options: SoakOptions, displayURL: String, discoverIdleTimeout: Double? = nil) async -> ExitStatus {
        let redactor = report.redactor
        let baseline: JournalScan.Result?
        do { baseline = try report.loadBaseline() } catch {
            printError("sonde: \(error.message)")
            return .usage
        }
        let started = Timestamp.now()
        var warnings: [String] = []
        if discoverIdleTimeout == nil && options.config.pingIntervalS > 0 && options.config.pingIntervalS >= options.config.durationS {
            warnings.append("The ping interval (\(options.config.pingIntervalS) s) is not shorter than the duration: no ping will be sent.")
        }
        let runInfo = RunInfo(id: RunInfo.makeID(command: "soak", at: started), command: "soak",
                              arguments: redactor.redact(arguments: arguments), startedAt: started, status: .error,
                              insecure: options.config.insecure, redacted: redactor.isEnabled, warnings: warnings,
                              capture: capture?.rawValue)
        let tool = CurlLibrary.toolInfo
        let recorder: ProbeRunRecorder
        do { recorder = try report.openRecorder(run: runInfo, tool: tool) } catch {
            printError("sonde: \(error.message)")
            return .usage
        }
        let sink = SoakJournalSink(recorder: recorder)
        let engine: SoakEngine
        do {
            engine = try SoakEngine(options: options, sink: sink, redactor: redactor)
            try recorder.record(soakStart: displayURL, config: options.config, startedAt: engine.clock.startedAt)
        } catch {
            printError("sonde soak: \(error.message)")
            return .usage
        }
        var liveCapture: CaptureSession? = nil
        if let mode = capture, let ports = options.localPorts?.ports {
            let endpoints = CaptureSession.endpoints(urls: [captureURL ?? ""], resolve: [])
            guard let started = CaptureSession.start(mode: mode, endpoints: endpoints, localPorts: ports, recorder: recorder, json: report.json)
            else { return .usage }
            liveCapture = started
        }
        let json = report.json
        if !json {
            for warning in warnings { printError("warning: \(warning)") }
            if let maxIdle = discoverIdleTimeout {
                print("idle-timeout discovery \(displayURL): \(options.config.connections) silent connections up to "
                    + "\(formatDuration(maxIdle)) (takes about that long); report in \(recorder.folder.path)")
            } else {
                print("soak \(displayURL): \(options.config.connections) connection\(options.config.connections == 1 ? "" : "s") "
                    + "for \(formatDuration(options.config.durationS)); report in \(recorder.folder.path)")
            }
        }
        sonde_install_interrupt_handlers()
        defer { sonde_reset_interrupt_handlers() }

        // Flush the samples every second and keep the status line fresh while the engine runs.
        let statusOnTTY = isatty(STDERR_FILENO) == 1 && !json
        let connections = options.config.connections
        let duration = options.config.durationS
        let clock = engine.clock
        let ticker = Task {
            var tick = 0
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 250_000_000)
                tick += 1
                if tick % 4 == 0 { sink.flush() }
                if statusOnTTY {
                    let elapsed = Double(clock.micros()) / 1e6
                    let line = "\r\u{1B}[K[\(formatDuration(min(elapsed, duration)))/\(formatDuration(duration))] "
                        + sink.status(connections: connections)
                    FileHandle.standardError.write(Data(line.utf8))
                }
            }
        }
        let shouldStop: @Sendable () -> Bool = { sonde_received_signal() != 0 || sink.recordingFailure != nil }
        var findings: IdleTimeoutFindings?
        if let maxIdle = discoverIdleTimeout {
            findings = await IdleTimeoutDiscovery(options: options, maxIdleS: maxIdle).run(engine: engine, shouldStop: shouldStop)
        } else {
            await engine.run(shouldStop: shouldStop)
        }
        ticker.cancel()
        _ = await ticker.result
        if statusOnTTY { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        sink.close()
        if let findings {
            do throws(TaskError) { try recorder.record(idleTimeout: findings) } catch { sink.fail(error) }
        }
        // The capture is stopped and journalled whatever else went wrong.
        let captureFailure = liveCapture?.finish(into: recorder, json: report.json)
        let failure = sink.recordingFailure ?? captureFailure

        let interrupted = sonde_received_signal() != 0
        // `finish` turns passed into failed when the soak failed (or a threshold did).
        let status: RunStatus = failure != nil ? .error : interrupted ? .interrupted : .passed
        guard let finished = report.finish(recorder, status: status, baseline: baseline) else { return .failure }
        if let failure { printError("sonde: \(failure.message)") }
        if json {
            printReportDocument(recorder.folder)
        } else {
            let renderer = ReportOptions.terminalRenderer
            for soak in finished.soaks { print(renderer.render(soak: soak)) }
            if !finished.thresholds.isEmpty { print(renderer.render(thresholds: finished.thresholds)) }
            printReportPaths(recorder.folder, har: false, prometheusPath: report.prometheusPath)
            if interrupted { print("interrupted: every connection was closed with 1000; the report holds the soak so far") }
        }
        return finished.exitStatus
    }
}

/// "90 s", "12.5 s", "10 m 5 s".
func formatDuration(_ seconds: Double) -> String {
    if seconds >= 60 {
        let whole = Int(seconds.rounded())
        return whole % 60 == 0 ? "\(whole / 60) m" : "\(whole / 60) m \(whole % 60) s"
    }
    return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
}
