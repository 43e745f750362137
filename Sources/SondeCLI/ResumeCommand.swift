import ArgumentParser
import Foundation
import SondeCore
import SondeRun
import SondeSuite
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

    @Option(name: .key(.upload), help: .key(.upload)) var uploadFile: String?
    @Option(name: .key(.uploadProtocol), help: .key(.uploadProtocol)) var uploadProtocol: String?
    @Option(name: .key(.interopVersion), help: .key(.interopVersion)) var interopVersion: Int?

    @Flag(name: .key(.check), help: .key(.check)) var check = false
    @Flag(name: .key(.resumeHTTP3), help: .key(.resumeHTTP3)) var http3 = false
    @Flag(name: .key(.resumeHTTP3Only), help: .key(.resumeHTTP3Only)) var http3Only = false
    @Option(name: .key(.trials), help: .key(.trials)) var trials: Int?
    @Option(name: .key(.interruptsPerTrial), help: .key(.interruptsPerTrial)) var interruptsPerTrial: Int?
    @Option(name: .key(.interruptAt), help: .key(.interruptAt)) var interruptAt: [String] = []
    @Option(name: .key(.kinds), help: .key(.kinds)) var kinds: String?
    @Option(name: .key(.seed), help: .key(.seed)) var seed: UInt64?
    @Flag(name: .key(.keepFiles), help: .key(.keepFiles)) var keepFiles = false

    @Option(name: .key(.retries), help: .key(.retries)) var retries: Int?
    @OptionGroup var backoff: BackoffOptions
    @Option(name: .key(.stallTimeout), help: .key(.stallTimeout)) var stallTimeout: DurationValue?
    @OptionGroup var connectTimeout: ConnectTimeoutOption
    @OptionGroup var link: LinkOption

    @OptionGroup var headers: HeaderOptions
    @OptionGroup var tls: TLSOptions
    @OptionGroup var resolve: ResolveOption
    @OptionGroup var capture: CaptureOption

    @OptionGroup var printSuite: PrintSuiteOption
    @OptionGroup var progress: ProgressOption
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
        link.apply(to: &spec)
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
            try SuitePrinter.print(spec, thresholds: report.thresholdExpressions, redactor: report.redactor)
            return
        }
        var arguments = Array(CommandLine.arguments.dropFirst())
        let runner = ResumeCheckRunner(spec, redact: !report.noRedact, extraRedactions: report.extraRedactions)
        // A run with a random seed records it, so that it can be replayed.
        if seed == nil, !check { arguments += ["--seed", "\(runner.seed)"] }
        let status = await CheckDriver(command: "resume", arguments: arguments, settings: progress.applied(to: report.settings),
                                       capture: capture.mode)
            .run([PlannedCheck(name: nil, link: spec.linkProfile, runner: runner)])
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
