import CSignalFlags
import Foundation
import Synchronization
import SondeCore
import SondeSuite
import SondeHTTP
import SondeReport

/// The one life of a run, shared by every command that writes one (probe, soak, resume, demo):
/// the baseline loaded, the run's info and folder and recorder opened, the capture started, the
/// signal scope, the status by the one rule (`RunStatus.of`), the report finished and the
/// terminal's end (or the report document with `--json`). A command is a small driver of its
/// engine between `open` and `finish`.
///
/// Every step that cannot go on says why on stderr; `open` and `startCapture` then return nil
/// and the command exits 64 (usage). Threading: opened, captured and finished from the command's
/// task; checks running at once (a suite's `parallel`) share it meanwhile, reading only.
public final class RunLifecycle: Sendable {
    public let settings: RunSettings
    public let recorder: RunRecorder
    let baseline: JournalScan.Result?
    let run: RunInfo
    /// Inside `sonde serve`: the run writes its folder and nothing on stdout.
    public let quiet: Bool
    /// Ends this run alone (a scheduled check's time limit), as a signal ends every run.
    public let stop: StopSwitch
    /// What changes over the run's life: the capture, the finished report, the signal scope.
    private struct State {
        var capture: CaptureSession?
        /// Set once the capture was finished (`finishCapture`): its error, if any.
        var captureFinished: TaskError??
        var finished: RunOutcome?
        var signalsInstalled = false
    }
    private let state = Mutex(State())
    var capture: CaptureSession? { state.withLock { $0.capture } }
    /// The run as its report holds it, once `finish` wrote it.
    var finished: RunOutcome? { state.withLock { $0.finished } }

    private init(settings: RunSettings, recorder: RunRecorder, baseline: JournalScan.Result?, run: RunInfo, quiet: Bool, stop: StopSwitch) {
        self.settings = settings
        self.recorder = recorder
        self.baseline = baseline
        self.run = run
        self.quiet = quiet
        self.stop = stop
    }

    /// Whether the run talks to the terminal (task lines, progress, summary): not with `--json`, not inside serve.
    public var terminal: Bool { !settings.json && !quiet }

    /// What `context`'s check shows of its progress (`--progress`, `ProgressView.of`).
    public func progressView(_ context: CheckContext) -> ProgressView {
        .of(settings.progress, json: settings.json, quiet: quiet, overlapping: context.overlapping)
    }

    deinit {
        if state.withLock({ $0.signalsInstalled }) { sonde_reset_interrupt_handlers() }
    }

    /// Loads the baseline, makes the run folder and its recorder; prints the run's warnings.
    /// - Parameter subject: what the run measures (recorded in its run line; a baseline must match it).
    /// - Parameter checkKinds: the kinds of the run's checks (`CheckRunner.kindName`), the ones its recorder takes.
    /// - Returns: nil, said on stderr, when the baseline cannot be read or the folder made.
    static func open(command: String, arguments: [String], settings: RunSettings, insecure: Bool, subject: RunSubject,
                     warnings: [String] = [], capture: CaptureSession.Mode?, quiet: Bool = false, stop: StopSwitch = StopSwitch(),
                     link: LinkUse? = nil, checkKinds: [String] = []) -> RunLifecycle? {
        let redactor = settings.redactor
        let loaded: BaselineLoader.Loaded
        do { loaded = try settings.loadBaseline(subject: subject) } catch {
            printError("sonde: \(error.message)")
            return nil
        }
        // Every run says when it is not on the libcurl sonde ships with, or on one lacking what sonde uses:
        // in run.warnings, and on stderr even under --json (stdout holds the document then).
        let libcurlWarning = LibcurlProvenance.current.warning
        let warnings = warnings + [libcurlWarning].compactMap { $0 }
        if let note = loaded.note, !quiet { printError("sonde: " + note) }
        let baseline = loaded.baseline
        let started = Timestamp.now()
        let runInfo = RunInfo(id: RunInfo.makeID(command: command, at: started), command: command,
                              arguments: redactor.redact(arguments: arguments), startedAt: started, status: .error,
                              insecure: insecure, redacted: redactor.isEnabled, warnings: warnings, capture: capture?.rawValue,
                              link: link, subject: subject)
        let recorder: RunRecorder
        do {
            recorder = try settings.openRecorder(run: runInfo, tool: CurlLibrary.toolInfo, checkKinds: checkKinds)
        } catch {
            printError("sonde: \(error.message)")
            return nil
        }
        if !settings.json && !quiet { for warning in warnings { printError("warning: \(warning)") } }
        if settings.json && !quiet, let libcurlWarning { printError("warning: \(libcurlWarning)") }
        return RunLifecycle(settings: settings, recorder: recorder, baseline: baseline, run: runInfo, quiet: quiet, stop: stop)
    }

    /// Starts the capture of the run's own flows (nothing without `mode`). False when a required
    /// capture cannot run: said, and the run folder removed.
    /// - Parameter link: a link the run's single check crosses: the capture opens on its device,
    ///   inside its namespace (the emulated side).
    func startCapture(mode: CaptureSession.Mode?, endpoints: [(address: String, port: Int)], localPorts: ClosedRange<Int>?,
                      link: CheckLink? = nil) -> Bool {
        guard let mode, let localPorts else { return true }
        guard let started = CaptureSession.start(mode: mode, endpoints: endpoints, localPorts: localPorts, recorder: recorder,
                                                 json: !terminal, link: link) else { return false }
        state.withLock { $0.capture = started }
        return true
    }

    /// Stops the capture, analyses it and journals its evidence, once (later calls return the
    /// first's result): before the link it captured on goes, or in `finish`.
    @discardableResult
    func finishCapture() -> TaskError? {
        if let done = state.withLock({ $0.captureFinished }) { return done }
        let failure = capture?.finish(into: recorder, json: !terminal)
        state.withLock { $0.captureFinished = .some(failure) }
        return failure
    }

    /// From here until `finish` (or the lifecycle's end), SIGINT and SIGTERM stop the run
    /// gracefully: the engine polls `interrupted`.
    func catchSignals() {
        guard !state.withLock({ $0.signalsInstalled }) else { return }
        sonde_install_interrupt_handlers()
        state.withLock { $0.signalsInstalled = true }
    }

    /// Gives the run up before its work began (an engine that cannot be set up): says why, and
    /// removes the run folder, which holds nothing but the run's start. Returns the usage status.
    func abandon(_ error: TaskError, prefix: String = "sonde") -> ExitStatus {
        printError("\(prefix): \(error.message)")
        _ = try? recorder.finish(status: .error)
        try? FileManager.default.removeItem(atPath: recorder.folder.path)
        return .usage
    }

    /// Whether SIGINT or SIGTERM arrived, or this run's `stop` was pulled. Any thread.
    public var interrupted: Bool { stop.shouldEnd }

    /// Whether this run's own time limit ended it (its `stop` was pulled, not a signal): status `timeout`. Any thread.
    public var timedOut: Bool { stop.isPulled }

    /// Ends the run: the capture's evidence journalled, the status by the one rule, the report
    /// files, the run error said on stderr, then either the report document (`--json`) or
    /// `render`'s terminal end and the files' paths.
    /// - Parameters:
    ///   - error: what stopped the run itself (not a failed task: that is `failedWork`).
    ///   - failedWork: some of the work failed (tasks); soaks and trials are judged by the recorder.
    ///   - har: whether the run has a HAR to list.
    ///   - interruptedNote: what the terminal says of an interrupted run.
    ///   - link: a single check's emulated link with its counters (the run's `link`).
    func finish(error: TaskError?, failedWork: Bool = false, har: Bool, interruptedNote: String, link: LinkUse? = nil,
                render: (RunOutcome, TerminalRenderer) -> Void) -> ExitStatus {
        let captureFailure = finishCapture()
        let failure = error ?? captureFailure
        let status = RunStatus.of(timedOut: timedOut, interrupted: interrupted, error: failure != nil, failedWork: failedWork)
        // A second Ctrl-C while the reports are written is still caught: the handlers go at the end.
        defer {
            if state.withLock({ $0.signalsInstalled }) { sonde_reset_interrupt_handlers() }
            state.withLock { $0.signalsInstalled = false }
        }
        guard let finished = settings.finish(recorder, status: status, baseline: baseline, link: link) else { return .failure }
        state.withLock { $0.finished = finished }
        if let failure { printError("sonde: \(failure.message)") }
        if quiet { return finished.exitStatus }
        if settings.json {
            printReportDocument(recorder.folder)
        } else {
            var renderer = RunSettings.terminalRenderer
            renderer.soakParts = settings.sectionRenderers.soakParts
            render(finished, renderer)
            if let link { printLine(RunSettings.terminalRenderer.render(linkCounters: link)) }
            if !finished.thresholds.isEmpty { printLine(RunSettings.terminalRenderer.render(thresholds: finished.thresholds)) }
            printReportPaths(recorder.folder, har: har, prometheusPath: settings.prometheusPath)
            if status == .interrupted { printLine("interrupted: " + interruptedNote) }
        }
        return finished.exitStatus
    }
}
