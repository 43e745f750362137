import CSignalFlags
import Foundation
import NIOPosix
import SondeOTLP
import SondeCapture
import SondeCore
import SondeSuite
import SondeReport
import SondeWebSocket

/// Runs one soak (or idle-timeout discovery) inside a run: the engine on NIO's event loops, its
/// events journalled as they come (`SoakJournalSink`, flushed every second), a status line on a
/// TTY. Ctrl-C or SIGTERM closes every connection with 1000 first.
public struct SoakCheckRunner: CheckRunner {
    private(set) var options: SoakOptions
    /// The URL as given (for the capture's endpoints) and as shown (redacted).
    let url: String
    let displayURL: String
    /// Run the idle-timeout discovery up to this silence (s) instead of a soak.
    let discoverIdleTimeout: Double?

    public init(options: SoakOptions, url: String, displayURL: String, discoverIdleTimeout: Double?) {
        self.options = options
        self.url = url
        self.displayURL = displayURL
        self.discoverIdleTimeout = discoverIdleTimeout
    }

    public var kind: any CheckKind.Type { SoakKind.self }

    /// Each opening handshake carries `traceparent` in the run's trace, its attempt's span the
    /// parent (`SoakAttempt.spanId`).
    public mutating func trace(_ context: OTLPTraceContext) { options.traceID = context.traceIDHex }

    /// The connections bind to `localPorts` (a capture's block) in turn.
    public mutating func prepare(redactor: Redactor, localPorts: ClosedRange<Int>?) {
        if let localPorts { options.localPorts = LocalPortCursor(ports: localPorts) }
    }

    public var insecure: Bool { options.config.insecure }

    public var targets: (urls: [String], resolve: [String]) { ([url], []) }

    public var interruptedNote: String { "every connection was closed with 1000; the report holds the soak so far" }

    public var warnings: [String] {
        let config = options.config
        guard discoverIdleTimeout == nil && config.pingIntervalS > 0 && config.pingIntervalS >= config.durationS else { return [] }
        return ["The ping interval (\(config.pingIntervalS) s) is not shorter than the duration: no ping will be sent."]
    }

    public var endpoints: [(address: String, port: Int)] { CaptureEndpoints.resolve(urls: [url], resolve: []) }

    public func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome {
        let recorder = lifecycle.recorder
        let sink = SoakJournalSink(recorder: recorder, check: context.name)
        // Over a link the soak has event loops and resolver threads of its own, made inside the
        // link's namespace (threads keep the namespace of the thread that made them).
        var network: (group: MultiThreadedEventLoopGroup, resolver: NIOThreadPool)?
        if let link = context.link {
            switch link.inside({ () -> (MultiThreadedEventLoopGroup, NIOThreadPool) in
                let resolver = NIOThreadPool(numberOfThreads: 2)
                resolver.start()
                return (MultiThreadedEventLoopGroup(numberOfThreads: 2), resolver)
            }) {
            case .success(let made): network = made
            case .failure(let error): return CheckOutcome(error: error, setupFailed: true)
            }
        }
        let outcome = await run(in: lifecycle, context, sink: sink, network: network)
        if let network {
            // The group and pool end before the link's namespace goes, waited for on a thread of
            // the host's namespace: an async wait would be resumed from a loop thread inside the
            // link, and a pool worker started from there would inherit its namespace.
            await runOnDedicatedThread(named: "sonde-soak-end") {
                try? network.group.syncShutdownGracefully()
                try? network.resolver.syncShutdownGracefully()
            }
        }
        return outcome
    }

    private func run(in lifecycle: RunLifecycle, _ context: CheckContext, sink: SoakJournalSink,
                     network: (group: MultiThreadedEventLoopGroup, resolver: NIOThreadPool)?) async -> CheckOutcome {
        let recorder = lifecycle.recorder
        let engine: SoakEngine
        do {
            engine = try SoakEngine(options: options, sink: sink, redactor: lifecycle.settings.redactor,
                                    group: network?.group ?? MultiThreadedEventLoopGroup.singleton,
                                    resolver: network?.resolver ?? NIOThreadPool.singleton)
            try recorder.record(soakStart: displayURL, config: options.config, startedAt: engine.clock.startedAt, check: context.name)
        } catch {
            return CheckOutcome(error: error, setupFailed: true)
        }
        let json = !lifecycle.terminal  // nothing for the terminal (--json, serve)
        if !json {
            if let maxIdle = discoverIdleTimeout {
                printLine(context.linePrefix + "idle-timeout discovery \(displayURL): \(options.config.connections) silent connections up to "
                    + "\(formatDuration(maxIdle)) (takes about that long); report in \(recorder.folder.path)")
            } else {
                printLine(context.linePrefix + "soak \(displayURL): \(options.config.connections) connection\(options.config.connections == 1 ? "" : "s") "
                    + "for \(formatDuration(options.config.durationS)); report in \(recorder.folder.path)")
            }
        }
        // Flush the samples every second and keep the status line fresh while the engine runs.
        let view = lifecycle.progressView(context)
        let statusOnTTY = view.isTerminal
        let connections = options.config.connections
        let duration = options.config.durationS
        let what = discoverIdleTimeout == nil ? "soak" : "idle-timeout discovery"
        let displayURL = self.displayURL, planned = discoverIdleTimeout ?? duration
        // No line in the seconds the soak closes its connections at its planned end (it would say
        // "up 0/2" just before the summary); past them, lines again while the end drags on.
        let status = StatusLines(view, prefix: context.linePrefix) { elapsed -> String? in
            guard elapsed < planned || elapsed >= planned + 5 else { return nil }
            return StatusLines.elapsed(elapsed, of: planned) + "\(what) \(displayURL): " + sink.status(connections: connections)
        }
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
                    StandardStreams.writeError(Data(line.utf8))
                }
            }
        }
        let stop = lifecycle.stop
        let shouldStop: @Sendable () -> Bool = { stop.shouldEnd || sink.recordingFailure != nil }
        var findings: IdleTimeoutFindings?
        if let maxIdle = discoverIdleTimeout {
            findings = await IdleTimeoutDiscovery(options: options, maxIdleS: maxIdle).run(engine: engine, shouldStop: shouldStop)
        } else {
            await engine.run(shouldStop: shouldStop)
        }
        await status.stop()
        ticker.cancel()
        _ = await ticker.result
        if statusOnTTY { StandardStreams.writeError(Data("\r\u{1B}[K".utf8)) }
        sink.close()
        if let findings {
            do throws(TaskError) { try recorder.record(idleTimeout: findings, check: context.name) } catch { sink.fail(error) }
        }
        // The recorder turns passed into failed when the soak failed (or a threshold did).
        return CheckOutcome(error: sink.recordingFailure)
    }

    public func render(_ finished: RunOutcome, _ renderer: TerminalRenderer) {
        for soak in finished.soaks { printLine(renderer.render(soak: soak)) }
    }
}

extension SoakKind: RunnableKind {
    public static func runner(for spec: SoakSpec, settings: RunSettings) throws(SpecProblem) -> any CheckRunner {
        let redactor = settings.redactor
        return SoakCheckRunner(options: try spec.makeOptions(redactor: redactor), url: spec.url,
                               displayURL: redactor.redact(url: spec.url), discoverIdleTimeout: spec.discoveryMaxIdle)
    }
}
