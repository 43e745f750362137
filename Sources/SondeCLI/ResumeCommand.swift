import ArgumentParser
import Foundation
import SondeCapture
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
    @Option(name: .customLong("protocol"), help: "With --upload: ietf (Resumable Uploads for HTTP, the draft URLSession speaks) or tus (tus 1.0).")
    var uploadProtocol = "ietf"
    @Option(name: .customLong("interop-version"), help: "With --protocol ietf: the draft's interop version, 3 (iOS 17), 5 (iOS 18.0), 6 (iOS 18.1) … 8 (draft -11).")
    var interopVersion = 8

    @Flag(name: .long, help: "Only the resumability verdict: no reference download, no trials.")
    var check = false
    @Option(name: .long, help: "How many interrupted downloads to run.")
    var trials = 10
    @Option(name: .customLong("interrupts-per-trial"), help: "Interruptions per trial, at random offsets (0: uninterrupted control downloads).")
    var interruptsPerTrial = 1
    @Option(name: .customLong("interrupt-at"), help: ArgumentHelp(
        "Interrupt at these offsets instead (comma-separated or repeated): bytes (1048576, 512k, 4MiB) or a share of the length (50%).",
        valueName: "offsets"))
    var interruptAt: [String] = []
    @Option(name: .customLong("kinds"), help: "Interruption kinds to take in turn: abort, drop, kill (comma-separated).")
    var kinds = "abort,drop,kill"
    @Option(name: .long, help: "Seed of the random offsets, kinds and jitter, to replay a run (default: a random one, recorded in the report).")
    var seed: UInt64?
    @Flag(name: .customLong("keep-files"), help: "Keep each trial's file: trial-N.bin when it verified, trial-N.corrupt when not.")
    var keepFiles = false

    @Option(name: .customLong("retries"), help: "Retries per trial of what is retryable (timeouts, resets, 5xx, 429; never other 4xx).")
    var retries = 5
    @Option(name: .customLong("backoff-initial"), help: "Delay before the first retry (Retry-After wins on 429 and 503).")
    var backoffInitial = DurationValue(seconds: 0.2)
    @Option(name: .customLong("backoff-max"), help: "Longest delay between retries (before jitter).")
    var backoffMax = DurationValue(seconds: 10)
    @Option(name: .customLong("jitter"), help: "Jitter of the delay: full, equal or none.")
    var jitter = "full"
    @Option(name: .customLong("stall-timeout"), help: "A transfer that receives nothing for this long fails (timedOut) and is retried.")
    var stallTimeout = DurationValue(seconds: 30)
    @Option(name: .customLong("connect-timeout"), help: "Longest time for a TCP (and TLS) connect.")
    var connectTimeout: DurationValue?

    @Option(name: [.customShort("H"), .customLong("header")], help: "Add a header to every request, 'Name: value' (repeatable; secrets are redacted in the report).")
    var headers: [String] = []
    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify the server's TLS certificate (recorded in the report).")
    var insecure = false
    @Option(name: .customLong("cacert"), help: "Also trust the CA certificates in this PEM file.")
    var caCert: String?
    @Option(name: .customLong("resolve"), help: "Resolve host:port to this address (host:port:addr, repeatable), as curl --resolve.")
    var resolve: [String] = []
    @Option(name: .customLong("capture"), help: CaptureSession.help)
    var capture: String?

    @OptionGroup var report: ReportOptions

    func validate() throws {
        if let problem = StreamingTransfer.problem(url: url) { throw ValidationError(problem) }
        try CaptureSession.validate(capture)
        if let uploadFile {
            guard FileManager.default.isReadableFile(atPath: uploadFile) else {
                throw ValidationError("cannot read --upload \(uploadFile): no such file, or not readable")
            }
            guard !check else { throw ValidationError("--check is for downloads; upload trials check the protocol as they go") }
            guard uploadProtocol == "ietf" || uploadProtocol == "tus" else { throw ValidationError("--protocol must be ietf or tus") }
            guard UploadProtocol.ietfVersions.contains(interopVersion) else {
                throw ValidationError("--interop-version must be between \(UploadProtocol.ietfVersions.lowerBound) and \(UploadProtocol.ietfVersions.upperBound)")
            }
        }
        guard (1...100_000).contains(trials) else { throw ValidationError("--trials must be between 1 and 100000") }
        guard (0...1000).contains(interruptsPerTrial) else { throw ValidationError("--interrupts-per-trial must be between 0 and 1000") }
        guard (0...100).contains(retries) else { throw ValidationError("--retries must be between 0 and 100") }
        _ = try parsedOffsets()
        _ = try parsedKinds()
        _ = try parseHeaderArguments(headers)
        guard let mode = BackoffPolicy.Jitter(rawValue: jitter) else { throw ValidationError("--jitter must be full, equal or none") }
        if let problem = BackoffPolicy(initialMs: backoffInitial.seconds * 1000, maxMs: backoffMax.seconds * 1000, jitter: mode).problem {
            throw ValidationError(problem)
        }
        guard stallTimeout.seconds >= 1 else { throw ValidationError("--stall-timeout must be at least 1s") }
        guard stallTimeout.seconds <= 86_400 else { throw ValidationError("--stall-timeout must be at most 24 hours (24h)") }
        if let connectTimeout {
            guard connectTimeout.seconds > 0 else { throw ValidationError("--connect-timeout must be a positive duration") }
            guard connectTimeout.seconds <= 86_400 else { throw ValidationError("--connect-timeout must be at most 24 hours (24h)") }
        }
        if let caCert, !FileManager.default.isReadableFile(atPath: caCert) {
            throw ValidationError("cannot read --cacert \(caCert): no such file, or not readable")
        }
    }

    func parsedOffsets() throws -> [TrialPlan.Offset]? {
        let items = interruptAt.flatMap { $0.split(separator: ",").map(String.init) }
        guard !items.isEmpty else { return nil }
        return try items.map { item in
            guard let offset = TrialPlan.Offset(parsing: item) else {
                throw ValidationError("--interrupt-at '\(item)' is not a byte offset (1048576, 512k, 4MiB) or a share (50%)")
            }
            return offset
        }
    }

    func parsedKinds() throws -> [InterruptionKind] {
        let names: [String: InterruptionKind] = [
            "abort": .clientAbort, "clientAbort": .clientAbort, "drop": .connectionDrop, "connectionDrop": .connectionDrop,
            "kill": .processKill, "processKill": .processKill,
        ]
        let kinds = try kinds.split(separator: ",").map { name -> InterruptionKind in
            guard let kind = names[name.trimmingCharacters(in: .whitespaces)] else {
                throw ValidationError("--kinds: '\(name)' is not one of abort, drop, kill")
            }
            return kind
        }
        guard !kinds.isEmpty else { throw ValidationError("--kinds needs at least one of abort, drop, kill") }
        return kinds
    }

    var settings: TransferSettings {
        var settings = TransferSettings()
        settings.headers = (try? parseHeaderArguments(headers)) ?? []
        settings.insecure = insecure
        settings.caCertPath = caCert
        settings.resolve = resolve
        // `validate` bounded both to a day: the products fit any Int.
        settings.connectTimeoutMs = connectTimeout.map { max(1, Int(($0.seconds * 1000).rounded())) }
        settings.stallTimeoutMs = Int((stallTimeout.seconds * 1000).rounded())
        settings.redact = !report.noRedact
        settings.extraRedactions = report.extraRedactions
        return settings
    }

    func run() async throws {
        let seed = seed ?? UInt64.random(in: 1...UInt64(UInt32.max))
        var options = DownloadTrialOptions(workDirectory: "")
        options.interruptsPerTrial = interruptsPerTrial
        options.interruptAt = try parsedOffsets()
        options.kinds = try parsedKinds()
        options.keepFiles = keepFiles
        options.retry = RetryPolicy(backoff: BackoffPolicy(initialMs: backoffInitial.seconds * 1000, maxMs: backoffMax.seconds * 1000,
                                                           jitter: BackoffPolicy.Jitter(rawValue: jitter) ?? .full),
                                    maxRetries: retries)
        var arguments = Array(CommandLine.arguments.dropFirst())
        if self.seed == nil && !check { arguments += ["--seed", "\(seed)"] }
        var settings = self.settings
        let captureMode = capture.flatMap(CaptureSession.Mode.init(rawValue:))
        // A capture holds this run's connections only: they bind to a block of local ports that
        // the capture filter names (the kill worker's too, through the settings it reads).
        if captureMode != nil { settings.localPorts = LiveCapture.localPortBlock() }
        var session = ResumeSession(arguments: arguments, report: report, settings: settings)
        session.capture = captureMode
        if let uploadFile {
            var upload = UploadTrialOptions(filePath: uploadFile, uploadProtocol: uploadProtocol == "tus" ? .tus : .ietf(version: interopVersion),
                                            workDirectory: "")
            upload.interruptsPerTrial = options.interruptsPerTrial
            upload.interruptAt = options.interruptAt
            upload.kinds = options.kinds
            upload.retry = options.retry
            throw ExitCode(session.runUploads(url: url, trials: trials, options: upload, seed: seed).rawValue)
        }
        let status = session.run(url: url, checkOnly: check, trials: trials, options: options, seed: seed)
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
