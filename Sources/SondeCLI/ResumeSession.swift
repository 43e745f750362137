import CurlShim
import Foundation
import SondeCapture
import SondeCore
import SondeHTTP
import SondeReport
import SondeTransfer

/// Runs `sonde resume` into a run folder: the verdict, then (unless `--check`) the reference
/// download and the trials, each journalled as it ends; Ctrl-C ends the trial under way and
/// still writes the report (130). A progress line on a TTY while bytes flow.
struct ResumeSession {
    let arguments: [String]
    let report: ReportOptions
    let settings: TransferSettings
    /// `--capture`, nil without; `settings.localPorts` is the block the capture filter names.
    var capture: CaptureSession.Mode? = nil

    func run(url: String, checkOnly: Bool, trials: Int, options: DownloadTrialOptions, seed: UInt64) -> ExitStatus {
        let redactor = settings.redactor
        guard let lifecycle = open(url: url) else { return .usage }
        let recorder = lifecycle.recorder
        let json = report.json
        let display = redactor.redact(url: url)
        let renderer = ReportOptions.terminalRenderer
        let progressOnTTY = isatty(STDERR_FILENO) == 1 && !json
        lifecycle.catchSignals()
        let shouldStop = { lifecycle.interrupted }

        var failure: TaskError? = nil
        var reference: DownloadReference? = nil
        var runner: DownloadTrialRunner? = nil
        do throws(TaskError) {
            if !checkOnly {
                var trialOptions = options
                trialOptions.workDirectory = recorder.folder.path + "/transfers"
                let worker = trialOptions.kinds.contains(.processKill) ? try Self.workerCommand() : nil
                let trialRunner = try DownloadTrialRunner(url: url, settings: settings, options: trialOptions, worker: worker, seed: seed)
                runner = trialRunner
                if !json { print("resume \(display): reference download, then \(trials) trial\(trials == 1 ? "" : "s"); report in \(recorder.folder.path)") }
                reference = try trialRunner.reference()
                if !json, let reference {
                    print("reference: \(reference.length) bytes in \(formatMs(reference.durationMs)) ms, sha256 \(reference.sha256)"
                        + (reference.validator.map { ", validator \($0)" } ?? ", no validator"))
                }
            }
            let checker = try ResumabilityChecker(settings: settings)
            let verdict = checker.verdict(url: url, reference: reference)
            try recorder.record(resumeVerdict: verdict)
            if !json { print(renderer.render(verdict: verdict)) }
            if let runner, let reference {
                if !json { print("") }
                for number in 1...trials {
                    if shouldStop() { break }
                    let trial = runner.runTrial(number: number, reference: reference, shouldStop: shouldStop,
                                                onProgress: progressBar(trial: number, of: trials, length: reference.length))
                    if progressOnTTY { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                    try recorder.record(resumeTrial: trial)
                    if !json { print(renderer.render(trial: trial)) }
                }
            }
        } catch {
            failure = error
        }
        return finish(lifecycle, failure: failure)
    }

    /// Upload trials: the file's SHA-256, then each trial (creation, interruptions, HEAD, appends,
    /// verification against the server's digest or a GET of the upload), journalled as it ends.
    func runUploads(url: String, trials: Int, options: UploadTrialOptions, seed: UInt64) -> ExitStatus {
        let redactor = settings.redactor
        guard let lifecycle = open(url: url) else { return .usage }
        let recorder = lifecycle.recorder
        let json = report.json
        let renderer = ReportOptions.terminalRenderer
        lifecycle.catchSignals()
        let shouldStop = { lifecycle.interrupted }
        var failure: TaskError? = nil
        do throws(TaskError) {
            var trialOptions = options
            trialOptions.workDirectory = recorder.folder.path + "/transfers"
            let worker = trialOptions.kinds.contains(.processKill) ? try Self.workerCommand() : nil
            let trialRunner = try UploadTrialRunner(url: url, settings: settings, options: trialOptions, worker: worker, seed: seed)
            if !json {
                print("upload \(options.filePath) (\(trialRunner.length) bytes, sha256 \(trialRunner.fileSha256)) to \(redactor.redact(url: url)) "
                    + "with \(options.uploadProtocol.name): \(trials) trial\(trials == 1 ? "" : "s"); report in \(recorder.folder.path)")
            }
            for number in 1...trials {
                if shouldStop() { break }
                let trial = trialRunner.runTrial(number: number, shouldStop: shouldStop,
                                                 onProgress: progressBar(trial: number, of: trials, length: trialRunner.length))
                if isatty(STDERR_FILENO) == 1 && !json { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                try recorder.record(resumeTrial: trial)
                if !json { print(renderer.render(trial: trial)) }
            }
        } catch {
            failure = error
        }
        return finish(lifecycle, failure: failure)
    }

    /// A progress bar on stderr when it is a TTY (and no --json), redrawn at most ten times a second.
    private func progressBar(trial number: Int, of trials: Int, length: Int64) -> (Int64) -> Void {
        guard isatty(STDERR_FILENO) == 1 && !report.json else { return { _ in } }
        var lastDraw = 0.0
        return { bytes in
            let now = Double(monotonicMicroseconds()) / 1e6
            guard now - lastDraw >= 0.1 else { return }
            lastDraw = now
            let share = length > 0 ? min(1, Double(bytes) / Double(length)) : 0
            let filled = Int(share * 30)
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
            FileHandle.standardError.write(Data("\r\u{1B}[Ktrial \(number)/\(trials) \(bar) \(Int(share * 100))%".utf8))
        }
    }

    /// The run's lifecycle opened and its capture started; nil, said on stderr, when either cannot be.
    private func open(url: String) -> RunLifecycle? {
        guard let lifecycle = RunLifecycle.open(command: "resume", arguments: arguments, report: report,
                                                insecure: settings.insecure, capture: capture),
              lifecycle.startCapture(mode: capture, endpoints: CaptureEndpoints.resolve(urls: [url], resolve: settings.resolve),
                                     localPorts: settings.localPorts) else { return nil }
        return lifecycle
    }

    /// Ends the run (`RunLifecycle.finish`) with the trials' totals on the terminal.
    private func finish(_ lifecycle: RunLifecycle, failure: TaskError?) -> ExitStatus {
        lifecycle.finish(error: failure, har: false, interruptedNote: "the report holds the trials that ended before") { finished, renderer in
            if !finished.resume.trials.isEmpty { print(renderer.render(trialTotals: finished.resume.trials)) }
        }
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
