import CurlShim
import Foundation
import SondeCapture
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
        var warnings: [String] = []
        if discoverIdleTimeout == nil && options.config.pingIntervalS > 0 && options.config.pingIntervalS >= options.config.durationS {
            warnings.append("The ping interval (\(options.config.pingIntervalS) s) is not shorter than the duration: no ping will be sent.")
        }
        guard let lifecycle = RunLifecycle.open(command: "soak", arguments: arguments, report: report,
                                                insecure: options.config.insecure, warnings: warnings, capture: capture)
        else { return .usage }
        let recorder = lifecycle.recorder
        let sink = SoakJournalSink(recorder: recorder)
        let engine: SoakEngine
        do {
            engine = try SoakEngine(options: options, sink: sink, redactor: redactor)
            try recorder.record(soakStart: displayURL, config: options.config, startedAt: engine.clock.startedAt)
        } catch {
            return lifecycle.abandon(error, prefix: "sonde soak")
        }
        guard lifecycle.startCapture(mode: capture, endpoints: CaptureEndpoints.resolve(urls: [captureURL ?? ""], resolve: []),
                                     localPorts: options.localPorts?.ports) else { return .usage }
        let json = report.json
        if !json {
            if let maxIdle = discoverIdleTimeout {
                print("idle-timeout discovery \(displayURL): \(options.config.connections) silent connections up to "
                    + "\(formatDuration(maxIdle)) (takes about that long); report in \(recorder.folder.path)")
            } else {
                print("soak \(displayURL): \(options.config.connections) connection\(options.config.connections == 1 ? "" : "s") "
                    + "for \(formatDuration(options.config.durationS)); report in \(recorder.folder.path)")
            }
        }
        lifecycle.catchSignals()

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
        // `finish` stops and journals the capture whatever else went wrong, and the recorder turns
        // passed into failed when the soak failed (or a threshold did).
        return lifecycle.finish(error: sink.recordingFailure, har: false,
                                interruptedNote: "every connection was closed with 1000; the report holds the soak so far") { finished, renderer in
            for soak in finished.soaks { print(renderer.render(soak: soak)) }
        }
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
