import Foundation
import SondeCore
import SondeHTTP

/// What shapes a run of download trials.
public struct DownloadTrialOptions: Sendable {
    public var interruptsPerTrial = 1
    /// Given interruption points; nil: random ones.
    public var interruptAt: [TrialPlan.Offset]? = nil
    public var kinds: [InterruptionKind] = [.clientAbort, .connectionDrop, .processKill]
    public var retry = RetryPolicy()
    /// Where partial files, resume data and leg reports go (the run folder's `transfers/`).
    public var workDirectory: String
    /// Keep each trial's final file (`trial-N.bin`, or `trial-N.corrupt` when it did not verify).
    public var keepFiles = false
    /// The longest a killed worker may run before it is killed anyway.
    public var workerTimeoutSeconds: Double = 600
    /// The run's trace id (32 lowercase hex digits) when every leg is to carry a W3C
    /// `traceparent` whose parent is the leg's own span (`--traceparent`); nil: no header.
    public var traceID: String? = nil

    public init(workDirectory: String) { self.workDirectory = workDirectory }
}

/// Runs download resume trials against one URL: each trial downloads the resource into a
/// partial file, is interrupted at its planned stops, resumes as URLSession would (see
/// `DownloadLeg`), retries what the retry policy allows, and verifies the final file's SHA-256.
///
/// A file that does not verify is never reported intact and never left under a name that says
/// it is the download. Threading: one trial at a time on the calling thread.
public final class DownloadTrialRunner {
    public let url: String
    private let settings: TransferSettings
    private let options: DownloadTrialOptions
    private let worker: WorkerCommand?
    private let transfer: StreamingTransfer
    private let redactor: Redactor
    private var generator: SeededGenerator
    /// The settings a worker reads from its input pipe (empty without a worker): never on disk.
    private let workerInput: [UInt8]

    /// - Parameter worker: how to start a worker process for `processKill` stops; without one,
    ///   that kind is refused.
    public init(url: String, settings: TransferSettings, options: DownloadTrialOptions, worker: WorkerCommand?,
                seed: UInt64, stop: RunStop? = nil) throws(TaskError) {
        if options.kinds.contains(.processKill) && worker == nil {
            throw TaskError(code: .internalError, message: "processKill interruptions need a worker command")
        }
        self.url = url
        self.settings = settings
        self.options = options
        self.worker = worker
        self.redactor = settings.redactor
        self.generator = SeededGenerator(seed: seed)
        transfer = try StreamingTransfer(options: settings.probeOptions, redactor: redactor, stallTimeoutMs: settings.stallTimeoutMs)
        transfer.watch(stop: stop)
        try TransferSettings.prepareWorkDirectory(options.workDirectory)
        workerInput = worker != nil ? try settings.encodedForWorker() : []
    }

    /// The uninterrupted reference download. `onProgress` gets the bytes received so far and the
    /// body's announced length (nil when unknown), on this thread; a retry starts again from zero.
    public func reference(onProgress: (Int64, Int64?) -> Void = { _, _ in }) throws(TaskError) -> DownloadReference {
        try DownloadReference.fetch(url: url, transfer: transfer, headers: settings.headers, retry: options.retry, using: &generator,
                                    onProgress: onProgress)
    }

    /// Runs trial `number` (1-based) against `reference`. `onProgress` gets the bytes on disk.
    public func runTrial(number: Int, reference: DownloadReference, shouldStop: () -> Bool,
                         onProgress: (Int64) -> Void = { _ in }) -> ResumeTrial {
        let started = monotonicMicroseconds()
        // The wall clock of the same moment: legs' startMs count from it.
        let startedAt = Timestamp.now()
        func elapsedMs() -> Double { Double(monotonicMicroseconds() - started) / 1000 }
        let base = options.workDirectory + "/trial-\(number)"
        let partialPath = base + ".part"
        let resumePath = base + ".resume.json"
        let legPath = base + ".leg.json"
        for path in [partialPath, resumePath, legPath] { try? FileManager.default.removeItem(atPath: path) }

        var stops = TrialPlan.stops(trial: number, length: reference.length, count: options.interruptsPerTrial,
                                    offsets: options.interruptAt, kinds: options.kinds, using: &generator)
        var interruptions: [ResumeInterruption] = []
        var retries: [TransferRetry] = []
        var progress: [[Double]] = [[0, 0]]
        var lastSample = 0.0
        func sample(_ bytes: Int64, force: Bool = false) {
            let now = elapsedMs()
            if force || (now - lastSample >= 20 && progress.count < 400) {
                progress.append([(now * 1000).rounded() / 1000, Double(bytes)])
                lastSample = now
            }
        }
        var received: Int64 = 0
        var wasted: Int64 = 0
        var failure: TaskError? = nil
        var complete = false
        var awaitingAnswer: Int? = nil
        var forceRestart = false
        var failures = 0
        var state = ResumeData(url: url, partialPath: partialPath)
        var legs = TrialLegs(traceID: options.traceID)
        var file: PartialFile
        do { file = try PartialFile(path: partialPath) } catch {
            return makeTrial(number, reference, interruptions, retries, 0, 0, nil, state, elapsedMs(), progress, error,
                             startedAt: startedAt, legs: [])
        }
        let persist: (ResumeData) -> Void = { try? $0.save(to: resumePath) }

        // Bounded: every leg either consumes a stop, finishes, or counts as a failure.
        for _ in 0..<(stops.count + options.retry.maxRetries + 8) {
            if shouldStop() {
                failure = TaskError(code: .interrupted, message: "interrupted before the trial finished")
                break
            }
            let stop = stops.first
            var leg: LegReport
            let legStart = elapsedMs()
            let fromByte = forceRestart || state.validator == nil ? 0 : file.size
            let legSpan = SpanID.random()
            let headers = settings.headers + legs.traceparent(span: legSpan)
            func note(_ leg: LegReport, _ outcome: String, _ kind: InterruptionKind? = nil) {
                legs.append(ResumeLeg(leg: legs.count + 1, startMs: TrialLegs.micro(legStart), durationMs: TrialLegs.micro(elapsedMs() - legStart),
                                      fromByte: fromByte,
                                      bytes: leg.received, request: "get", status: leg.status, outcome: outcome, interruptedBy: kind,
                                      answeredWith: fromByte > 0 || leg.answer != nil ? leg.answer : nil, firstByteMs: leg.firstByteMs,
                                      error: leg.error, spanId: legSpan))
            }
            if let stop, stop.kind == .processKill, let worker {
                state.bytesReceived = file.size
                persist(state)
                try? FileManager.default.removeItem(atPath: legPath)
                let exit = worker.run(extra: ["--resume-data", resumePath, "--settings-fd", "\(WorkerCommand.inputDescriptor)", "--die-at", "\(stop.atByte)",
                                              "--leg-report", legPath] + (forceRestart ? ["--restart"] : []),
                                      input: legs.tracing ? ((try? settings.with(headers: headers).encodedForWorker()) ?? workerInput) : workerInput,
                                      timeoutSeconds: options.workerTimeoutSeconds) {
                    let size = (try? FileManager.default.attributesOfItem(atPath: partialPath)[.size] as? Int64) ?? nil
                    if let size { sample(size) }
                    return shouldStop()
                }
                // A new process picks up: resume data and the partial file from disk, nothing from memory.
                do {
                    state = try ResumeData.load(from: resumePath)
                    file = try PartialFile(path: partialPath)
                } catch {
                    failure = error
                    break
                }
                let data = FileManager.default.contents(atPath: legPath)
                leg = data.flatMap { try? JSONDecoder().decode(LegReport.self, from: $0) } ?? LegReport()
                // This process did not make the worker's connection, and its own pooled one is not
                // what a relaunched app would have: the next request opens its own.
                transfer.openNewConnectionNext()
                switch exit {
                case .killed:
                    leg.stoppedByPlan = true
                case .exited(0):
                    break
                case .exited(let code):
                    leg.error = leg.error ?? TaskError(code: .internalError, message: "the worker process exited with \(code)")
                case .signalled(let signal):
                    leg.error = TaskError(code: .internalError, message: "the worker process died of signal \(signal)")
                case .failedToStart(let message):
                    leg.error = TaskError(code: .internalError, message: message)
                case .timedOut:
                    leg.error = TaskError(code: .timedOut, message: "the worker process ran longer than \(Int(options.workerTimeoutSeconds)) s")
                case .stopped:
                    leg.error = TaskError(code: .interrupted, message: "stopped: the run ended during the worker's leg")
                }
            } else {
                leg = DownloadLeg.run(transfer: transfer, state: &state, file: file, stop: stop, forceRestart: forceRestart,
                                      headers: headers, onProgress: { sample($0) }, persist: persist)
            }
            forceRestart = false
            received += leg.received
            wasted += leg.wasted
            sample(file.size, force: true)
            if let index = awaitingAnswer, leg.answer != nil || leg.firstByteMs != nil || leg.error != nil {
                interruptions[index].answeredWith = leg.answer ?? (leg.error != nil ? "failed" : interruptions[index].answeredWith)
                interruptions[index].resumeLatencyMs = leg.firstByteMs
                interruptions[index].evidence = leg.evidence
                interruptions[index].resumeConnection = leg.connection
                awaitingAnswer = nil
            }
            if leg.complete {
                // Also when a stop came with the last chunk: nothing was left to interrupt.
                note(leg, "complete")
                complete = true
                break
            }
            if leg.stoppedByPlan, let stop {
                note(leg, "interrupted", stop.kind)
                stops.removeFirst()
                interruptions.append(ResumeInterruption(atByte: file.size, kind: stop.kind))
                awaitingAnswer = interruptions.count - 1
                continue
            }
            if leg.restartNext {
                note(leg, "restart")
                forceRestart = true
                failures += 1
                if failures > options.retry.maxRetries {
                    failure = TaskError(code: .protocolError, message: "the server kept answering the resume wrongly (\(leg.evidence ?? "?"))")
                    break
                }
                continue
            }
            // A failure: retry it when the policy allows, else the trial ends here.
            let status = leg.status.flatMap { $0 >= 400 ? $0 : nil }
            guard RetryPolicy.isRetryable(error: leg.error?.code, status: status), failures < options.retry.maxRetries else {
                note(leg, "failed")
                failure = leg.error ?? TaskError(code: .httpStatus, message: "the server answered \(leg.status ?? 0) (\(leg.evidence ?? "no headers"))")
                break
            }
            failures += 1
            let unplanned = leg.received > 0 || (leg.error != nil && file.size > 0 && status == nil)
            note(leg, "retried", unplanned ? .unplanned : nil)
            if unplanned {
                // The server or the path ended the transfer: an interruption sonde did not plan.
                interruptions.append(ResumeInterruption(atByte: file.size, kind: .unplanned, evidence: leg.error?.message))
                awaitingAnswer = interruptions.count - 1
            }
            let delay = options.retry.delayMs(failure: failures, status: status, retryAfter: leg.retryAfter, using: &generator)
            retries.append(TransferRetry(reason: status != nil ? "httpStatus" : (leg.error?.code.rawValue ?? "unknown"),
                                         status: status, retryAfter: leg.retryAfter, delayMs: (delay * 1000).rounded() / 1000))
            usleep(useconds_t(min(delay, options.retry.maxRetryAfterMs) * 1000))
        }
        if !complete && failure == nil {
            failure = TaskError(code: .internalError, message: "the trial did not finish within its bounded number of requests")
        }
        let sha = complete ? file.sha256 : nil
        sample(file.size, force: true)
        let trial = makeTrial(number, reference, interruptions, retries, received, wasted, sha, state, elapsedMs(), progress, failure,
                              startedAt: startedAt, legs: legs.legs)
        settle(file: partialPath, number: number, intact: trial.intact, resumePath: resumePath, legPath: legPath)
        return trial
    }

    private func makeTrial(_ number: Int, _ reference: DownloadReference, _ interruptions: [ResumeInterruption],
                           _ retries: [TransferRetry], _ received: Int64, _ wasted: Int64, _ sha: String?, _ state: ResumeData,
                           _ durationMs: Double, _ progress: [[Double]], _ error: TaskError?, startedAt: Timestamp,
                           legs: [ResumeLeg]) -> ResumeTrial {
        // The final bytes belong to the reference's representation unless the validator changed:
        // then only the server's digest of the new representation can vouch for them.
        var expected: String? = reference.sha256
        var expectedFrom: String? = "reference"
        if state.validator != reference.validator || (state.reprDigestSha256 != nil && state.reprDigestSha256 != reference.reprDigestSha256) {
            expected = state.reprDigestSha256
            expectedFrom = expected == nil ? nil : "Repr-Digest"
        }
        var error = error
        if let sha, sha != expected {
            error = TaskError(code: .corruptTransfer, message: expected == nil
                ? "the resource changed during the trial and the server sent no digest: the file cannot be verified"
                : "the resumed file is corrupt: SHA-256 \(sha) instead of \(expected!) (\(expectedFrom!))")
        }
        var trial = ResumeTrial(trial: number, url: redactor.redact(url: url), direction: "download", protocol: "http-range",
                                length: state.length ?? reference.length, interruptions: interruptions, retries: retries,
                                bytesTransferred: received, bytesWasted: wasted, sha256: sha, expectedSha256: expected,
                                expectedFrom: expectedFrom, durationMs: (durationMs * 1000).rounded() / 1000, progress: progress,
                                error: error)
        trial.startedAt = startedAt
        trial.legs = legs
        return trial
    }

    /// An intact file becomes `trial-N.bin` when kept; anything else is removed, or kept as
    /// `trial-N.corrupt` for inspection: never under the download's name.
    private func settle(file partialPath: String, number: Int, intact: Bool, resumePath: String, legPath: String) {
        let base = options.workDirectory + "/trial-\(number)"
        try? FileManager.default.removeItem(atPath: resumePath)
        try? FileManager.default.removeItem(atPath: legPath)
        if options.keepFiles {
            try? FileManager.default.moveItem(atPath: partialPath, toPath: base + (intact ? ".bin" : ".corrupt"))
        } else {
            try? FileManager.default.removeItem(atPath: partialPath)
        }
    }
}
