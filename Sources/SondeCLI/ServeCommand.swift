import ArgumentParser
import CSignalFlags
import Foundation
import SondeCore
import SondeHistory
import SondeReport
import SondeRun
import SondeSuite
import SondeServe
import Synchronization

/// `sonde serve --config FILE`: a long-running exporter. Scheduled checks (each a one-check run
/// written as every run is), `/metrics` with their latest results, blackbox_exporter's `/probe`
/// for the targets `allow:` names, `/-/healthy`, `/-/reload` and SIGHUP. SIGINT/SIGTERM end the
/// runs under way (their reports are written) and exit 0.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run checks on a schedule and export them for Prometheus, with blackbox_exporter's /probe beside them.",
        discussion: """
        Example: sonde serve --config examples/serve/sonde.yaml
        Endpoints: /metrics (every check's latest run, serve's health), /probe?target=URL&module=NAME \
        (blackbox_exporter's http prober and metric names; only targets the config's allow: list matches), \
        /-/healthy, POST /-/reload with --web.enable-lifecycle (and SIGHUP: a config that does not validate is \
        refused with the reason, the running one stays), / (the checks and their latest runs), /runs/<id>/report.html. \
        Listens on 127.0.0.1:9166 unless told otherwise; a connection has 10 s to send its request. SIGINT or SIGTERM ends the runs under way \
        (their reports are written) and exits 0.
        """)

    @Option(name: .customLong("config"), help: ArgumentHelp("serve's config file (YAML: listen, vantage, allow, modules, parallel, defaults, checks with every:).",
                                                            valueName: "file"))
    var configPath: String

    @Option(name: .customLong("listen"), help: ArgumentHelp("host:port to listen on (wins over the config's listen:; port 0 picks a free one).",
                                                            valueName: "host:port"))
    var listen: String?

    @Flag(name: .customLong("web.enable-lifecycle"),
          help: "Let POST /-/reload reload the config (as Prometheus's flag does; off: 403). SIGHUP always reloads.")
    var enableLifecycle = false

    @Option(name: .customLong("web.max-connections"),
            help: ArgumentHelp("The most HTTP connections open at once, half of them from one client address; past that the oldest idle one "
                               + "is closed for the new one (lowered to fit the descriptor limit).",
                               valueName: "n"))
    var maxConnections = ServeLimits.defaultMaxConnections

    @Option(name: .customLong("web.max-probes"),
            help: ArgumentHelp("The most /probe calls under way at once; one more is answered 503 (lowered to fit the descriptor limit).",
                               valueName: "n"))
    var maxProbes = ServeLimits.defaultMaxProbes

    @OptionGroup var output: OutputDirectoryOption
    @OptionGroup var redaction: RedactionOptions

    /// Where serve listens: the address asked for (`--listen` or the config's `listen:` at start,
    /// port 0 included) and its URL with the port bound; a reload compares the config with it.
    struct Listening: Sendable {
        var asked: ListenAddress
        var url: String
        /// The address came from `--listen` (the config's `listen:` is then not used).
        var fromCommandLine: Bool
    }

    /// The most a shutdown waits for runs under way to write their reports (s).
    static let shutdownBound = 30.0

    func validate() throws {
        for (name, value) in [("--web.max-connections", maxConnections), ("--web.max-probes", maxProbes)] where !(1...100_000).contains(value) {
            throw ValidationError("\(name) must be between 1 and 100000 (got \(value))")
        }
        if let listen, ListenAddress(parsing: listen) == nil {
            throw ValidationError("--listen '\(listen)' is not host:port (e.g. 127.0.0.1:9166, [::1]:9166; port 0 to 65535)")
        }
    }

    func run() async throws {
        // Large blocks as mappings of their own, returned when freed (`MallocRetention`): before the first run.
        MallocRetention.fixMmapThreshold()
        let config: ServeConfig
        do throws(SuiteLoader.Failure) { config = try ServeConfigLoader.load(path: configPath, kinds: .sonde) } catch {
            printError("sonde serve: \(configPath) was refused:\n\(error.description)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let address = listen.flatMap(ListenAddress.init(parsing:)) ?? config.listen ?? .default
        sonde_install_interrupt_handlers()
        sonde_install_hangup_handler()
        defer { sonde_reset_interrupt_handlers() }

        let current = CurrentConfig(config)
        let state = ServeState(vantage: config.vantage)
        state.configure(checks: config.checks.map(\.check.name), vantage: config.vantage)
        let historyPath = config.history ?? (output.outputDirectory as NSString).appendingPathComponent(HistoryStore.defaultFileName)
        var history: HistoryStore?
        var historyUnwritable: String?
        do throws(TaskError) {
            try NoFollowFile.ensureDirectory(output.outputDirectory)
            let opened = try HistoryStore.openRecordingIfPossible(path: historyPath)
            history = opened.store
            historyUnwritable = opened.unwritable
            if let historyUnwritable {
                printError("sonde serve: the history is read only (\(historyUnwritable)): its trends show, runs are not added to it "
                           + "(counted in sonde_serve_write_errors_total)")
            }
        } catch {
            historyUnwritable = error.message
            printError("sonde serve: no history (\(error.message)); runs are still written and exported")
        }
        var settings = RunSettings()
        settings.sectionRenderers = CheckKinds.sonde.sectionRenderers
        settings.outputDirectory = output.outputDirectory
        settings.noRedact = redaction.noRedact
        settings.extraRedactions = redaction.extraRedactions
        let runner = ScheduledRunner(settings: settings, config: current, history: history, historyUnwritable: historyUnwritable, log: say)
        let scheduler = CheckScheduler(run: { await runner.run($0) }, onResult: { record, skipped in
            state.record(record, skipped: skipped)
            // serve's own health follows each run to `otlp:`.
            if let otlp = current.value.otlp { runner.exportHealth({ state.health() }, settings: otlp) }
        })
        let auth = ServeAuth(config.web)
        // Set once the listener is bound (a reload before that finds it nil).
        let listening = Mutex<Listening?>(nil)
        let reload: @Sendable () async -> String? = {
            await Self.reload(path: configPath, current: current, state: state, scheduler: scheduler, auth: auth,
                              listening: listening.withLock { $0 })
        }
        let limits = ServeLimits(maxConnections: maxConnections, maxProbes: maxProbes, fileLimit: ServeLimits.raisedFileLimit())
        let context = ServeRoutes.Context(state: state, config: current, reload: reload, inFlight: { await scheduler.running() },
                                          redactor: redaction.redactor, outputDirectory: output.outputDirectory, auth: auth,
                                          history: history, probes: ProbeAdmission(limit: limits.maxProbes), lifecycleEnabled: enableLifecycle)
        let listener: ServeListener
        do { listener = try await ServeListener.start(address, context, tls: config.web?.tls, limits: limits) } catch {
            printError("sonde serve: " + ServeListener.failure(error, address: address))
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let host = address.host.contains(":") ? "[\(address.host)]" : address.host
        let scheme = config.web?.tls == nil ? "http" : "https"
        listening.withLock { $0 = Listening(asked: address, url: "\(scheme)://\(host):\(listener.port)", fromCommandLine: listen != nil) }
        say("sonde serve: listening on \(scheme)://\(host):\(listener.port)" + (auth.required ? " (authentication required)" : "") + " (\(config.checks.count) scheduled checks, "
              + "\(config.modules.count) modules, \(config.allow.patterns.count) allow patterns); runs in \(output.outputDirectory)")
        say("sonde serve: limits: \(limits)" + (enableLifecycle ? "; POST /-/reload enabled" : ""))
        await scheduler.start(config.checks, parallel: config.parallel)

        while sonde_received_signal() == 0 {
            if sonde_take_hangup() != 0 { _ = await reload() }
            try? await Task.sleep(nanoseconds: 200_000_000)
        }
        let running = await scheduler.running()
        say("sonde serve: signal \(sonde_received_signal()): ending" + (running.isEmpty ? "" : "; waiting for \(running.joined(separator: ", ")) to write their reports"))
        // The runs under way saw the signal too: they end and write their reports. Bounded.
        let stopped = Task { await scheduler.stop() }
        let deadline = monotonicMicroseconds() + Int64(Self.shutdownBound * 1e6)
        while await !scheduler.running().isEmpty && monotonicMicroseconds() < deadline {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        stopped.cancel()
        await listener.stop()
        say("sonde serve: stopped")
    }

    /// Loads the config again: in force when it validates (the scheduler restarted with its
    /// checks), else refused with the reason and the running config kept (also when it drops
    /// `web-config:`). nil on success; else where the problems are, without anything of the
    /// file's content (for an HTTP answer: the log has them whole).
    static func reload(path: String, current: CurrentConfig, state: ServeState, scheduler: CheckScheduler, auth: ServeAuth,
                       listening: Listening?) async -> String? {
        let config: ServeConfig
        do throws(SuiteLoader.Failure) { config = try ServeConfigLoader.load(path: path, kinds: .sonde) } catch {
            printError("sonde serve: reload refused, the running config stays in force:\n\(error.description)")
            state.reloaded(successfully: false)
            return "the config was refused (serve's log has each problem in full):\n" + error.places
        }
        // A file truncated mid-save can lose its web-config: key, and with it every endpoint's authentication.
        if current.value.web != nil && config.web == nil {
            printError("sonde serve: reload refused, the running config stays in force: web-config: removing it takes a restart")
            state.reloaded(successfully: false)
            return "the config was refused: web-config: removing it takes a restart"
        }
        let before = current.value
        if let listening {
            // Compared with the address serve was started on, not the last config's (a reload does not move it).
            if listening.fromCommandLine {
                if config.listen != before.listen {
                    printError("sonde serve: reload: listen: is not used while --listen is given: serve listens on \(listening.url)")
                }
            } else if (config.listen ?? .default) != listening.asked {
                printError("sonde serve: reload: listen: changes only when serve restarts: serve listens on \(listening.url)")
            }
        }
        if config.web?.tls != before.web?.tls {
            printError("sonde serve: reload: web-config's tls_server_config changes only when serve restarts")
        }
        current.replace(with: config)
        auth.update(config.web)
        state.configure(checks: config.checks.map(\.check.name), vantage: config.vantage)
        await scheduler.start(config.checks, parallel: config.parallel)
        state.reloaded(successfully: true)
        say("sonde serve: reloaded \(path): \(config.checks.count) scheduled checks, \(config.modules.count) modules, \(config.allow.patterns.count) allow patterns")
        return nil
    }
}

/// A line of serve's log on stdout, written at once (a pipe's reader sees it without a flush).
private func say(_ line: String) {
    StandardStreams.writeOutput(Data((TerminalText.sanitized(line, keepingNewlines: false) + "\n").utf8))
}
