import Crypto
import Foundation
import SondeCore
import SondeHTTP

/// What shapes a run of upload trials.
public struct UploadTrialOptions: Sendable {
    public var filePath: String
    public var uploadProtocol: UploadProtocol
    public var interruptsPerTrial = 1
    public var interruptAt: [TrialPlan.Offset]? = nil
    public var kinds: [InterruptionKind] = [.clientAbort, .connectionDrop, .processKill]
    public var retry = RetryPolicy()
    /// Where upload state and leg reports go (the run folder's `transfers/`).
    public var workDirectory: String
    public var workerTimeoutSeconds: Double = 600
    /// The run's trace id (32 lowercase hex digits) when every create and append request is to
    /// carry a W3C `traceparent` whose parent is the leg's own span (`--traceparent`).
    public var traceID: String? = nil

    public init(filePath: String, uploadProtocol: UploadProtocol, workDirectory: String) {
        self.filePath = filePath
        self.uploadProtocol = uploadProtocol
        self.workDirectory = workDirectory
    }
}

/// Runs upload resume trials: each trial creates an upload of the file, is interrupted at its
/// planned stops (the client aborts, the connection is reset under the body, or the uploading
/// process is SIGKILLed), asks the server how much it kept (HEAD), appends the rest (PATCH), and
/// verifies what the server holds against the file's SHA-256: the server's `Repr-Digest`, else a
/// follow-up GET of the upload. A 409 or 413 answer sends it back to HEAD (the protocol's own
/// recovery); other failures go through the retry policy.
///
/// Threading: one trial at a time on the calling thread.
public final class UploadTrialRunner {
    public let creationURL: String
    private let settings: TransferSettings
    private let options: UploadTrialOptions
    private let worker: WorkerCommand?
    private let transfer: StreamingTransfer
    private let redactor: Redactor
    private var generator: SeededGenerator
    /// The settings a worker reads from its input pipe (empty without a worker): never on disk.
    private let workerInput: [UInt8]
    /// The file's SHA-256 (hex) and length, read once.
    public let fileSha256: String
    public let length: Int64

    public init(url: String, settings: TransferSettings, options: UploadTrialOptions, worker: WorkerCommand?, seed: UInt64,
                stop: RunStop? = nil) throws(TaskError) {
        if options.kinds.contains(.processKill) && worker == nil {
            throw TaskError(code: .internalError, message: "processKill interruptions need a worker command")
        }
        creationURL = url
        self.settings = settings
        self.options = options
        self.worker = worker
        redactor = settings.redactor
        generator = SeededGenerator(seed: seed)
        (fileSha256, length) = try Self.hash(options.filePath)
        transfer = try StreamingTransfer(options: settings.probeOptions, redactor: redactor, stallTimeoutMs: settings.stallTimeoutMs)
        transfer.watch(stop: stop)
        try TransferSettings.prepareWorkDirectory(options.workDirectory)
        workerInput = worker != nil ? try settings.encodedForWorker() : []
    }

    static func hash(_ path: String) throws(TaskError) -> (String, Int64) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw TaskError(code: .localIOError, message: "cannot read the file to upload, \(path)")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var length: Int64 = 0
        while true {
            let data = handle.readData(ofLength: 1 << 20)
            if data.isEmpty { break }
            hasher.update(data: data)
            length += Int64(data.count)
        }
        return (PartialFile.hex(hasher.finalize()), length)
    }

    public func runTrial(number: Int, shouldStop: () -> Bool, onProgress: (Int64) -> Void = { _ in }) -> ResumeTrial {
        let started = monotonicMicroseconds()
        // The wall clock of the same moment: legs' startMs count from it.
        let startedAt = Timestamp.now()
        func elapsedMs() -> Double { Double(monotonicMicroseconds() - started) / 1000 }
        let statePath = options.workDirectory + "/upload-\(number).state.json"
        let legPath = options.workDirectory + "/upload-\(number).leg.json"
        defer {
            try? FileManager.default.removeItem(atPath: statePath)
            try? FileManager.default.removeItem(atPath: legPath)
        }
        var stops = TrialPlan.stops(trial: number, length: length, count: options.interruptsPerTrial, offsets: options.interruptAt,
                                    kinds: options.kinds, using: &generator)
        var state = UploadState(creationURL: creationURL, filePath: options.filePath, length: length, uploadProtocol: options.uploadProtocol)
        var interruptions: [ResumeInterruption] = []
        var retries: [TransferRetry] = []
        var progress: [[Double]] = [[0, 0]]
        func sample(_ bytes: Int64) {
            if progress.count < 400 { progress.append([(elapsedMs() * 1000).rounded() / 1000, Double(bytes)]) }
        }
        var sent: Int64 = 0
        var knownOffset: Int64 = 0, sentSinceKnown: Int64 = 0
        var needHead = false
        var awaiting: (index: Int, since: Int64)? = nil
        var failures = 0, recoveries = 0
        var complete = false
        var failure: TaskError? = nil
        var digest: String? = nil
        var legs = TrialLegs(traceID: options.traceID)
        let persist: (UploadState) -> Void = { $0.save(to: statePath) }

        func learned(offset: Int64) {
            knownOffset = offset
            sentSinceKnown = 0
            sample(offset)
        }

        let appendsNeeded = Int(min(100_000, length / max(1, Int64(1 << 16)) + 1))
        for _ in 0..<(stops.count * 2 + options.retry.maxRetries * 2 + appendsNeeded + 16) {
            if shouldStop() {
                failure = TaskError(code: .interrupted, message: "interrupted before the trial finished")
                break
            }
            if needHead {
                let resumeStart = monotonicMicroseconds()
                let answer = UploadLeg.offset(transfer: transfer, state: &state, headers: settings.headers)
                if let index = awaiting?.index {
                    interruptions[index].answeredWith = answer.status.map(String.init) ?? "failed"
                    interruptions[index].evidence = answer.evidence
                    interruptions[index].resumeConnection = transfer.currentConnection
                    awaiting = (index, resumeStart)
                }
                if answer.status == 404 {
                    // The server forgot the upload: start over.
                    knownOffset = 0; sentSinceKnown = 0
                    state.uploadURL = nil
                    needHead = false
                    continue
                }
                guard let offset = answer.offset, let status = answer.status, (200..<300).contains(status) else {
                    let error = answer.error ?? TaskError(code: .httpStatus, message: "offset retrieval answered \(answer.evidence)")
                    guard RetryPolicy.isRetryable(error: error.code, status: answer.status), failures < options.retry.maxRetries else {
                        failure = error
                        break
                    }
                    failures += 1
                    let delay = options.retry.delayMs(failure: failures, status: answer.status, retryAfter: nil, using: &generator)
                    retries.append(TransferRetry(reason: answer.status != nil ? "httpStatus" : error.code.rawValue, status: answer.status,
                                                 retryAfter: nil, delayMs: (delay * 1000).rounded() / 1000))
                    usleep(useconds_t(min(delay, options.retry.maxRetryAfterMs) * 1000))
                    continue
                }
                learned(offset: offset)
                needHead = false
                if answer.complete && offset == length {
                    digest = answer.digest
                    complete = true
                    break
                }
                continue
            }
            let kind: UploadLeg.Kind = state.uploadURL == nil ? .create : .append(offset: knownOffset)
            if case .create = kind { knownOffset = 0 }
            let stop = stops.first
            var leg: UploadLegReport
            let legStartMicros = monotonicMicroseconds()
            let legStart = elapsedMs()
            let legSpan = SpanID.random()
            let headers = settings.headers + legs.traceparent(span: legSpan)
            func note(_ leg: UploadLegReport, _ outcome: String, _ interruptedBy: InterruptionKind? = nil) {
                // The offset asked for (a killed worker may leave no leg report to say it).
                var request = "create", fromByte: Int64 = 0
                if case .append(let offset) = kind { (request, fromByte) = ("append", offset) }
                legs.append(ResumeLeg(leg: legs.count + 1, startMs: TrialLegs.micro(legStart), durationMs: TrialLegs.micro(elapsedMs() - legStart),
                                      fromByte: fromByte, bytes: leg.sent, request: request, status: leg.status, outcome: outcome,
                                      interruptedBy: interruptedBy,
                                      firstByteMs: leg.firstByteAt.map { TrialLegs.micro(Double($0 &- legStartMicros) / 1000) },
                                      error: leg.error, spanId: legSpan))
            }
            if let stop, stop.kind == .processKill, let worker {
                persist(state)
                try? FileManager.default.removeItem(atPath: legPath)
                var extra = ["--upload-state", statePath, "--settings-fd", "\(WorkerCommand.inputDescriptor)", "--die-at", "\(stop.atByte)", "--leg-report", legPath]
                if case .append(let offset) = kind { extra += ["--offset", "\(offset)"] }
                let input = legs.tracing ? ((try? settings.with(headers: headers).encodedForWorker()) ?? workerInput) : workerInput
                let exit = worker.run(extra: extra, input: input, timeoutSeconds: options.workerTimeoutSeconds) { shouldStop() }
                if let saved = try? UploadState.load(from: statePath) { state = saved }
                leg = FileManager.default.contents(atPath: legPath).flatMap { try? JSONDecoder().decode(UploadLegReport.self, from: $0) }
                    ?? UploadLegReport()
                // This process did not make the worker's connection, and its own pooled one is not
                // what a relaunched app would have: the next request opens its own.
                transfer.openNewConnectionNext()
                if exit == .killed { leg.stoppedByPlan = true } else if exit != .exited(0) && leg.error == nil {
                    leg.error = TaskError(code: .internalError, message: "the upload worker ended with \(exit)")
                }
            } else {
                leg = UploadLeg.run(transfer: transfer, state: &state, kind: kind, stop: stop, headers: headers, persist: persist)
            }
            sent += leg.sent
            sentSinceKnown += leg.sent
            onProgress(knownOffset + sentSinceKnown)
            if let (index, since) = awaiting, let first = leg.firstByteAt {
                interruptions[index].resumeLatencyMs = (Double(first - since) / 10).rounded() / 100
                awaiting = nil
            }
            if leg.stoppedByPlan, let stop {
                note(leg, "interrupted", stop.kind)
                stops.removeFirst()
                interruptions.append(ResumeInterruption(atByte: leg.startOffset + leg.sent, kind: stop.kind))
                awaiting = (interruptions.count - 1, 0)
                sample(leg.startOffset + leg.sent)
                needHead = state.uploadURL != nil
                if state.uploadURL == nil {
                    // Cut before the server named the upload: nothing to resume, start over.
                    interruptions[interruptions.count - 1].answeredWith = "noUploadURL"
                    sentSinceKnown = 0
                    awaiting = nil
                }
                continue
            }
            if leg.error == nil, let status = leg.status, (200..<300).contains(status) {
                // A 2xx that does not finish the upload is one append of several: it went through.
                note(leg, leg.complete ? "complete" : "continued")
                learned(offset: leg.serverOffset ?? (leg.startOffset + leg.sent))
                if leg.complete {
                    digest = leg.digestSha256
                    complete = true
                    break
                }
                continue
            }
            if let status = leg.status, status == 409 || status == 413, state.uploadURL != nil, recoveries < 20 {
                // The protocol's own recovery: ask where the upload stands, then go on from there.
                note(leg, "recovered")
                recoveries += 1
                needHead = true
                continue
            }
            let status = leg.status.flatMap { $0 >= 400 ? $0 : nil }
            guard RetryPolicy.isRetryable(error: leg.error?.code, status: status), failures < options.retry.maxRetries else {
                note(leg, "failed")
                failure = leg.error ?? TaskError(code: .httpStatus, message: "the server answered \(leg.status ?? 0)")
                break
            }
            failures += 1
            note(leg, "retried", leg.sent > 0 ? .unplanned : nil)
            if leg.sent > 0 {
                interruptions.append(ResumeInterruption(atByte: leg.startOffset + leg.sent, kind: .unplanned, evidence: leg.error?.message))
                awaiting = (interruptions.count - 1, 0)
            }
            let delay = options.retry.delayMs(failure: failures, status: status, retryAfter: leg.retryAfter, using: &generator)
            retries.append(TransferRetry(reason: status != nil ? "httpStatus" : (leg.error?.code.rawValue ?? "unknown"), status: status,
                                         retryAfter: leg.retryAfter, delayMs: (delay * 1000).rounded() / 1000))
            usleep(useconds_t(min(delay, options.retry.maxRetryAfterMs) * 1000))
            needHead = state.uploadURL != nil
        }
        if !complete && failure == nil {
            failure = TaskError(code: .internalError, message: "the upload did not finish within its bounded number of requests")
        }
        // Every byte sent that is not part of what the server holds in the end was sent in vain
        // (cut in flight, refused, or sent again): counted once, at the end, because a server may
        // still be taking in the bytes of a cut request when the next HEAD asks.
        let wasted = max(0, sent - (complete ? length : knownOffset))
        // What the server holds: its digest, else a follow-up GET of the upload.
        var verifiedBy: String? = nil
        var serverSha: String? = nil
        if complete {
            if let digest {
                serverSha = digest
                verifiedBy = "Repr-Digest"
            } else if let url = state.uploadURL, let fetched = fetchSha(url) {
                serverSha = fetched
                verifiedBy = "GET"
            } else {
                failure = TaskError(code: .unsupportedFeature, message: "the server gave no digest and the upload cannot be fetched back: it cannot be verified")
            }
        }
        if let serverSha, serverSha != fileSha256 {
            failure = TaskError(code: .corruptTransfer, message: "the server holds other bytes: SHA-256 \(serverSha) instead of the file's \(fileSha256) (\(verifiedBy ?? "?"))")
        }
        var trial = ResumeTrial(trial: number, url: redactor.redact(url: creationURL), direction: "upload", protocol: options.uploadProtocol.name,
                                length: length, interruptions: interruptions, retries: retries, bytesTransferred: sent,
                                bytesWasted: wasted, sha256: serverSha, expectedSha256: fileSha256, expectedFrom: "file",
                                durationMs: (elapsedMs() * 1000).rounded() / 1000, progress: progress, error: failure)
        trial.verifiedBy = verifiedBy
        trial.startedAt = startedAt
        trial.legs = legs.legs
        return trial
    }

    /// SHA-256 of a GET of the upload URL (at most the file's length + 1 bytes read).
    private func fetchSha(_ url: String) -> String? {
        var hasher = SHA256()
        var read: Int64 = 0
        let response = transfer.perform(url: url, headers: settings.headers + options.uploadProtocol.baseHeaders) { head, chunk in
            guard head.status == 200 else { return false }
            read += Int64(chunk.count)
            hasher.update(bufferPointer: chunk)
            return read <= self.length
        }
        guard response.error == nil, !response.abortedByConsumer, response.head?.status == 200 else { return nil }
        return PartialFile.hex(hasher.finalize())
    }
}
