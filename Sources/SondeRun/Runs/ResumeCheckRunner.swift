import Foundation
import SondeCapture
import SondeCore
import SondeSuite
import SondeHTTP
import SondeOTLP
import SondeReport
import SondeTransfer

/// Runs a resume check inside a run: the verdict, then (unless `check`) the reference download
/// and the trials; or, with an upload file, the upload trials. Each trial is journalled as it
/// ends; Ctrl-C ends the trial under way. A progress bar on a TTY while bytes flow.
public struct ResumeCheckRunner: CheckRunner {
    let url: String
    private(set) var settings: TransferSettings
    /// What runs: the verdict only, download trials, or upload trials.
    enum Work {
        case verdict
        case downloads(trials: Int, options: DownloadTrialOptions)
        case uploads(trials: Int, options: UploadTrialOptions)
    }
    private(set) var work: Work
    public let seed: UInt64

    public var kind: any CheckKind.Type { ResumeKind.self }

    /// Makes every trial request carry `traceparent` in the run's trace, its parent the leg's own
    /// span (`ResumeLeg.spanId`).
    public mutating func trace(_ context: OTLPTraceContext) {
        let traceID = context.traceIDHex
        switch work {
        case .verdict: break
        case .downloads(let trials, var options):
            options.traceID = traceID
            work = .downloads(trials: trials, options: options)
        case .uploads(let trials, var options):
            options.traceID = traceID
            work = .uploads(trials: trials, options: options)
        }
    }

    init(url: String, settings: TransferSettings, work: Work, seed: UInt64) {
        self.url = url
        self.settings = settings
        self.work = work
        self.seed = seed
    }

    /// Connections bind to `localPorts` (the kill worker's too, through the settings it reads).
    /// HTTP/3 needs a libcurl with QUIC: without one, a usage error before any run folder.
    public mutating func prepare(redactor: Redactor, localPorts: ClosedRange<Int>?) throws(TaskError) {
        if let localPorts { settings.localPorts = localPorts }
        let version = HTTPVersionPreference(rawValue: settings.httpVersion) ?? .automatic
        if version.wantsHTTP3 && !CurlLibrary.supportsHTTP3 {
            throw TaskError(code: .unsupportedFeature,
                            message: "\(version == .http3Only ? "--http3-only" : "--http3") needs a libcurl built with HTTP/3 (QUIC); the running libcurl "
                                + "\(CurlLibrary.version) has no HTTP3 feature. \(LibcurlProvenance.current.http3Advice).")
        }
    }

    public var endpoints: [(address: String, port: Int)] { CaptureEndpoints.resolve(urls: [url], resolve: settings.resolve) }

    public var insecure: Bool { settings.insecure }

    public var targets: (urls: [String], resolve: [String]) { ([url], settings.resolve) }

    public var interruptedNote: String { "the report holds the trials that ended before" }

    public func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome {
        let view = lifecycle.progressView(context)
        let figures = LiveFigures()
        let display = settings.redactor.redact(url: url)
        let status = StatusLines(view, prefix: context.linePrefix) { elapsed in
            StatusLines.elapsed(elapsed) + "resume \(display): " + figures.read(Self.statusLine)
        }
        // The transfers block; they run off Swift's cooperative pool as the probe engine does.
        // Over a link, the thread enters its namespace first: the transfers and the worker
        // processes it starts (which inherit it) cross the link.
        let outcome = await runOnDedicatedThread(named: "sonde-resume") {
            if let link = context.link {
                do throws(TaskError) { try link.enter() } catch { return CheckOutcome(error: error, setupFailed: true) }
            }
            defer { context.link?.leave() }
            return runBlocking(in: lifecycle, context, view: view, figures: figures)
        }
        await status.stop()
        return outcome
    }

    /// "reference download 12.5 MiB of 100 MiB · 4.1 MiB/s", "trial 3/10 · 40.2 MiB of 100 MiB · 4.0 MiB/s · 1 failed".
    static func statusLine(_ figures: LiveFigures.Values) -> String {
        var line = figures.doing ?? "starting"
        if figures.transferStartedMicros != nil || figures.bytes > 0 {
            line += " · " + formatBytes(figures.bytes) + (figures.length.map { " of " + formatBytes($0) } ?? "")
        }
        if let started = figures.transferStartedMicros {
            let seconds = Double(monotonicMicroseconds() - started) / 1e6
            if seconds > 0 { line += " · " + formatBytes(Int64(Double(figures.bytes) / seconds)) + "/s" }
        }
        if figures.done > 0 { line += " · \(figures.done) ended, \(figures.failed) failed" }
        return line
    }

    /// Marks the start of a transfer of `length` bytes (nil: not known yet) in `figures`.
    private static func begin(_ doing: String, length: Int64?, in figures: LiveFigures) {
        figures.update {
            $0.doing = doing
            $0.bytes = 0
            $0.length = length
            $0.transferStartedMicros = monotonicMicroseconds()
        }
    }

    private func runBlocking(in lifecycle: RunLifecycle, _ context: CheckContext, view: ProgressView, figures: LiveFigures) -> CheckOutcome {
        let recorder = lifecycle.recorder
        let json = !lifecycle.terminal  // nothing for the terminal (--json, serve)
        let check = context.name, prefix = context.linePrefix
        let bars = view.isTerminal
        let display = settings.redactor.redact(url: url)
        let renderer = RunSettings.terminalRenderer
        let shouldStop = { lifecycle.interrupted }
        // Each check of a suite has a folder of its own under transfers/, so that files of two
        // resume checks never meet.
        let transfers = recorder.folder.path + "/transfers"
        let workDirectory = transfers + (check.map { "/" + $0 } ?? "")
        do throws(TaskError) {
            if check != nil { try NoFollowFile.ensureDirectory(transfers, mode: 0o700) }
            switch work {
            case .verdict:
                figures.update { $0.doing = "resumability check" }
                let verdict = try ResumabilityChecker(settings: settings, stop: lifecycle.stop.run).verdict(url: url, reference: nil)
                try recorder.record(resumeVerdict: verdict, check: check)
                if !json { printLine(prefix + renderer.render(verdict: verdict)) }
            case .downloads(let trials, var options):
                options.workDirectory = workDirectory
                let worker = options.kinds.contains(.processKill) ? try Self.workerCommand() : nil
                let runner = try DownloadTrialRunner(url: url, settings: settings, options: options, worker: worker, seed: seed,
                                                     stop: lifecycle.stop.run)
                if !json { printLine(prefix + "resume \(display): reference download, then \(trials) trial\(trials == 1 ? "" : "s"); report in \(recorder.folder.path)") }
                Self.begin("reference download", length: nil, in: figures)
                let reference = try runner.reference { bytes, length in
                    figures.update {
                        $0.bytes = bytes
                        $0.length = length
                    }
                }
                if !json {
                    printLine(prefix + "reference: \(reference.length) bytes in \(formatMs(reference.durationMs)) ms, sha256 \(reference.sha256)"
                        + (reference.validator.map { ", validator \($0)" } ?? ", no validator"))
                }
                let verdict = try ResumabilityChecker(settings: settings, stop: lifecycle.stop.run).verdict(url: url, reference: reference)
                try recorder.record(resumeVerdict: verdict, check: check)
                if !json { printLine(prefix + renderer.render(verdict: verdict) + "\n") }
                for number in 1...trials {
                    if shouldStop() { break }
                    Self.begin("trial \(number)/\(trials)", length: reference.length, in: figures)
                    let trial = runner.runTrial(number: number, reference: reference, shouldStop: shouldStop,
                                                onProgress: progress(trial: number, of: trials, length: reference.length, bar: bars, figures: figures))
                    try record(trial, recorder: recorder, json: json, bar: bars, figures: figures, context)
                }
            case .uploads(let trials, var options):
                options.workDirectory = workDirectory
                let worker = options.kinds.contains(.processKill) ? try Self.workerCommand() : nil
                let runner = try UploadTrialRunner(url: url, settings: settings, options: options, worker: worker, seed: seed,
                                                   stop: lifecycle.stop.run)
                if !json {
                    printLine(prefix + "upload \(options.filePath) (\(runner.length) bytes, sha256 \(runner.fileSha256)) to \(display) "
                        + "with \(options.uploadProtocol.name): \(trials) trial\(trials == 1 ? "" : "s"); report in \(recorder.folder.path)")
                }
                for number in 1...trials {
                    if shouldStop() { break }
                    Self.begin("upload trial \(number)/\(trials)", length: runner.length, in: figures)
                    let trial = runner.runTrial(number: number, shouldStop: shouldStop,
                                                onProgress: progress(trial: number, of: trials, length: runner.length, bar: bars, figures: figures))
                    try record(trial, recorder: recorder, json: json, bar: bars, figures: figures, context)
                }
            }
        } catch {
            return CheckOutcome(error: error)
        }
        return CheckOutcome()
    }

    private func record(_ trial: ResumeTrial, recorder: RunRecorder, json: Bool, bar: Bool, figures: LiveFigures,
                        _ context: CheckContext) throws(TaskError) {
        if bar { StandardStreams.write("\r\u{1B}[K", to: .error) }
        figures.update {
            $0.done += 1
            if !trial.intact || trial.error != nil { $0.failed += 1 }
        }
        try recorder.record(resumeTrial: trial, check: context.name)
        if !json { printLine(context.linePrefix + RunSettings.terminalRenderer.render(trial: trial)) }
    }

    /// The trial's bytes into `figures`, and with `bar` a progress bar on stderr (a terminal),
    /// redrawn at most ten times a second.
    private func progress(trial number: Int, of trials: Int, length: Int64, bar: Bool, figures: LiveFigures) -> (Int64) -> Void {
        var lastDraw = 0.0
        return { bytes in
            figures.update { $0.bytes = bytes }
            guard bar else { return }
            let now = Double(monotonicMicroseconds()) / 1e6
            guard now - lastDraw >= 0.1 else { return }
            lastDraw = now
            let share = length > 0 ? min(1, Double(bytes) / Double(length)) : 0
            let filled = Int(share * 30)
            let shown = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
            StandardStreams.write("\r\u{1B}[Ktrial \(number)/\(trials) \(shown) \(Int(share * 100))%", to: .error)
        }
    }

    public func render(_ finished: RunOutcome, _ renderer: TerminalRenderer) {
        if !finished.resume.trials.isEmpty { printLine(renderer.render(trialTotals: finished.resume.trials)) }
    }

    /// This executable in its worker mode.
    static func workerCommand() throws(TaskError) -> WorkerCommand {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else {
            throw TaskError(code: .internalError, message: "cannot find sonde's own executable (/proc/self/exe) to start the kill-interruption worker")
        }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return WorkerCommand(executable: path, arguments: ["resume-worker"])
    }
}

extension ResumeCheckRunner {
    /// The runner of a resume check's spec (valid: `problems()` came back empty); a random seed
    /// when the spec gives none.
    public init(_ spec: ResumeSpec, redact: Bool, extraRedactions: [String]) {
        let seed = spec.seed ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let trials = spec.trials ?? ResumeSpec.defaults.trials
        let work: Work
        if let upload = spec.uploadOptions {
            work = .uploads(trials: trials, options: upload)
        } else if spec.check == true {
            work = .verdict
        } else {
            work = .downloads(trials: trials, options: spec.downloadOptions)
        }
        self.init(url: spec.url, settings: spec.settings(redact: redact, extraRedactions: extraRedactions), work: work, seed: seed)
    }
}

extension ResumeKind: RunnableKind {
    public static func runner(for spec: ResumeSpec, settings: RunSettings) throws(SpecProblem) -> any CheckRunner {
        ResumeCheckRunner(spec, redact: !settings.noRedact, extraRedactions: settings.extraRedactions)
    }
}
