import ArgumentParser
import Foundation
import SondeCore
import SondeRun
import SondeHTTP
import SondeTransfer

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Check whether a download resumes the way URLSession resumes it, and run interrupted-download trials.",
        discussion: """
        Example: sonde resume https://cdn.example.org/big.bin --trials 20
                 sonde resume https://cdn.example.org/big.bin --check
        First a verdict, check by check (validator, Range, If-Range with the current and a stale
        validator, …), then one uninterrupted reference download (its SHA-256), then the trials:
        each is interrupted at a random (or --interrupt-at) byte, resumed from resume data on disk
        with Range and If-Range, and its final file verified against the reference. Interruption
        kinds, taken in turn: abort (the client cancels), drop (the connection is cut under the
        transfer), kill (the transferring process is SIGKILLed; a new one resumes from disk).
        A trial whose file does not verify fails the run (exit 1), as does a URL that is not resumable.
        """)

    @Argument(help: "The http:// or https:// URL of the resource (with --upload: where uploads are created).")
    var url: String

    @Option(name: .customLong("upload"), help: ArgumentHelp("Run upload trials of this file instead of download trials.", valueName: "file"))
    var uploadFile: String?
    @Option(name: .customLong("protocol"), help: "With --upload: ietf (Resumable Uploads for HTTP, the draft URLSession speaks; the default) or tus (tus 1.0).")
    var uploadProtocol: String?
    @Option(name: .customLong("interop-version"), help: "With --protocol ietf: the draft's interop version, 3 (iOS 17), 5 (iOS 18.0), 6 (iOS 18.1) … 8 (draft -11, the default).")
    var interopVersion: Int?

    @Flag(name: .long, help: "Only the resumability verdict: no reference download, no trials.")
    var check = false
    @Flag(name: .customLong("http3"), help: "Run the verdict and the trials over HTTP/3, racing QUIC against TCP as libcurl does (needs a libcurl with QUIC; see sonde version).")
    var http3 = false
    @Flag(name: .customLong("http3-only"), help: "Run the verdict and the trials over HTTP/3 only, without fallback to TCP.")
    var http3Only = false
    @Option(name: .long, help: "How many interrupted downloads to run (default 10).")
    var trials: Int?
    @Option(name: .customLong("interrupts-per-trial"), help: "Interruptions per trial, at random offsets (0: uninterrupted control downloads; default 1).")
    var interruptsPerTrial: Int?
    @Option(name: .customLong("interrupt-at"), help: ArgumentHelp(
        "Interrupt at these offsets instead (comma-separated or repeated): bytes (1048576, 512k, 4MiB) or a share of the length (50%).",
        valueName: "offsets"))
    var interruptAt: [String] = []
    @Option(name: .customLong("kinds"), help: "Interruption kinds to take in turn: abort, drop, kill (comma-separated; default all three).")
    var kinds: String?
    @Option(name: .long, help: "Seed of the random offsets, kinds and jitter, to replay a run (default: a random one, recorded in the report).")
    var seed: UInt64?
    @Flag(name: .customLong("keep-files"), help: "Keep each trial's file: trial-N.bin when it verified, trial-N.corrupt when not.")
    var keepFiles = false

    @Option(name: .customLong("retries"), help: "Retries per trial of what is retryable (timeouts, resets, 5xx, 429; never other 4xx; default 5).")
    var retries: Int?
    @OptionGroup var backoff: BackoffOptions
    @Option(name: .customLong("stall-timeout"), help: ArgumentHelp("A transfer that receives nothing for this long fails (timedOut) and is retried (default 30s).",
                                                                   valueName: "duration"))
    var stallTimeout: DurationValue?
    @OptionGroup var connectTimeout: ConnectTimeoutOption

    @OptionGroup var headers: HeaderOptions
    @OptionGroup var tls: TLSOptions
    @OptionGroup var resolve: ResolveOption
    @OptionGroup var capture: CaptureOption

    @OptionGroup var printSuite: PrintSuiteOption
    @OptionGroup var report: ReportOptions

    /// The check this command line describes.
    var spec: ResumeSpec {
        var spec = ResumeSpec(url: url)
        spec.upload = uploadFile
        spec.protocol = uploadProtocol
        spec.interopVersion = interopVersion
        if check { spec.check = true }
        if http3 { spec.http3 = true }
        if http3Only { spec.http3Only = true }
        spec.trials = trials
        spec.interruptsPerTrial = interruptsPerTrial
        if !interruptAt.isEmpty { spec.interruptAt = interruptAt }
        spec.kinds = kinds
        spec.seed = seed
        if keepFiles { spec.keepFiles = true }
        spec.retries = retries
        backoff.apply(to: &spec)
        spec.stallTimeout = stallTimeout
        connectTimeout.apply(to: &spec)
        headers.apply(to: &spec)
        tls.apply(to: &spec)
        resolve.apply(to: &spec)
        return spec
    }

    func validate() throws {
        try spec.validateForCommandLine()
    }

    func run() async throws {
        let spec = self.spec
        if printSuite.printSuite {
            try SuitePrinter.print(.resume(spec), thresholds: report.thresholdExpressions, redactor: report.redactor)
            return
        }
        var arguments = Array(CommandLine.arguments.dropFirst())
        let runner = ResumeCheckRunner(spec, redact: !report.noRedact, extraRedactions: report.extraRedactions)
        // A run with a random seed records it, so that it can be replayed.
        if seed == nil, !check { arguments += ["--seed", "\(runner.seed)"] }
        let status = await CheckDriver(command: "resume", arguments: arguments, settings: report.settings,
                                       capture: capture.mode)
            .run([PlannedCheck(name: nil, runner: .resume(runner))])
        throw ExitCode(status.rawValue)
    }
}

/// `sonde resume-worker`: the process a `kill` interruption kills (not for direct use).
struct ResumeWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume-worker", abstract: "Internal: continue a download from resume data and die by SIGKILL at a byte.",
        shouldDisplay: false)

    @Option(name: .customLong("resume-data")) var resumeData: String?
    @Option(name: .customLong("upload-state")) var uploadState: String?
    /// The descriptor the parent's settings (secrets included) arrive on: a pipe, never a file.
    @Option(name: .customLong("settings-fd")) var settingsDescriptor: Int32
    @Option(name: .customLong("die-at")) var dieAt: Int64
    @Option(name: .customLong("leg-report")) var legReport: String
    @Option(name: .customLong("offset")) var offset: Int64?
    @Flag(name: .customLong("restart")) var restart = false

    func run() throws {
        if let uploadState {
            throw ExitCode(UploadWorker.run(statePath: uploadState, settingsDescriptor: settingsDescriptor, dieAt: dieAt, legReportPath: legReport, offset: offset))
        }
        guard let resumeData else { throw ValidationError("--resume-data or --upload-state is required") }
        let status = DownloadWorker.run(resumeDataPath: resumeData, settingsDescriptor: settingsDescriptor, dieAt: dieAt,
                                        legReportPath: legReport, restart: restart)
        throw ExitCode(status)
    }
}
