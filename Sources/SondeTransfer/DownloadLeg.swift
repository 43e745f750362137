#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SondeCore
import SondeHTTP

/// Where a transfer is to be stopped on purpose: once `atByte` body bytes are on disk.
public struct PlannedStop: Sendable, Equatable, Codable {
    public var atByte: Int64
    public var kind: InterruptionKind

    public init(atByte: Int64, kind: InterruptionKind) {
        self.atByte = atByte
        self.kind = kind
    }
}

/// What one leg (one request) of a download did; a worker process writes it to disk before it dies.
public struct LegReport: Codable, Sendable, Equatable {
    /// How the request was answered when it resumed (see `ResumeInterruption.answeredWith`); nil
    /// for a first request from zero.
    public var answer: String?
    public var evidence: String?
    /// From the request to its first body byte, milliseconds.
    public var firstByteMs: Double?
    /// Body bytes received by this leg.
    public var received: Int64 = 0
    /// Bytes received before or during this leg and thrown away in it.
    public var wasted: Int64 = 0
    /// Stopped at the planned stop (the kill never gets to say so: the parent knows it).
    public var stoppedByPlan = false
    /// The file now holds the whole representation.
    public var complete = false
    /// The next request must start from zero without Range (the server answered a range wrongly).
    public var restartNext = false
    public var status: Int?
    public var retryAfter: String?
    public var error: TaskError?
    /// The connection this leg's request went out on; nil when it had none.
    public var connection: RequestConnection?
}

/// One request that starts or continues a download into its partial file, the way URLSession
/// resumes: `Range: bytes=N-` with `If-Range: validator` when there is a partial file and a
/// validator, and then exactly one of
/// - 206 for the asked range of the same representation: appended;
/// - 200: the whole body again; the partial file is emptied first (never a splice);
/// - 206 for another range or another representation: nothing written, the next request restarts;
/// - anything else (416, 4xx, 5xx): nothing written; the caller decides about retrying.
///
/// Invariant: the partial file only ever holds a prefix of one representation.
enum DownloadLeg {
    static func run(transfer: StreamingTransfer, state: inout ResumeData, file: PartialFile, stop: PlannedStop?,
                    forceRestart: Bool, headers: [HeaderField], onProgress: (Int64) -> Void,
                    persist: (ResumeData) -> Void, beforeKill: (LegReport) -> Void = { _ in }) -> LegReport {
        var report = LegReport()
        var requestHeaders = headers
        let offset = file.size
        var resuming = false
        if offset > 0 {
            if !forceRestart, let validator = state.validator {
                requestHeaders.append(HeaderField(name: "Range", value: "bytes=\(offset)-"))
                requestHeaders.append(HeaderField(name: "If-Range", value: validator))
                resuming = true
            } else {
                // Nothing to resume with (no validator), or the last answer cannot be trusted.
                report.answer = forceRestart ? nil : "noValidator"
                report.wasted += offset
                do { try file.truncate() } catch { report.error = error; return report }
            }
        }
        var accepted: Bool? = nil
        var failure: TaskError? = nil
        var lastPersist = file.size
        let response = transfer.perform(url: state.url, headers: requestHeaders) { head, chunk in
            if accepted == nil {
                accepted = decide(head: head, resuming: resuming, offset: offset, state: &state, file: file,
                                  report: &report, failure: &failure)
                if accepted == true { persist(state) }
            }
            report.received += Int64(chunk.count)
            guard accepted == true else {
                report.wasted += Int64(chunk.count)
                return false
            }
            // The whole chunk is kept, also at a stop: bytes the client received are never thrown
            // away by sonde itself, so a stop lands at the first chunk boundary at or after its byte.
            do throws(TaskError) { try file.append(chunk) } catch {
                failure = error
                return false
            }
            onProgress(file.size)
            if file.size - lastPersist >= 64 << 20 {
                // What the file holds now, without waiting for the writing and hashing threads to
                // catch up (a flush here stalled the receive every 64 MiB). Informational: a resume
                // goes by the file's size; a failed write is thrown by a later append or the flush.
                state.bytesReceived = file.bytesWritten
                persist(state)
                lastPersist = file.size
            }
            guard let stop, file.size >= stop.atByte else { return true }
            report.stoppedByPlan = true
            // A stop comes after the bytes received so far are on disk (a kill included).
            do throws(TaskError) { try file.flush() } catch {
                failure = error
                return false
            }
            switch stop.kind {
            case .connectionDrop:
                // Reset under the transfer: whatever the kernel still holds for it is lost, as on a real path.
                transfer.dropConnection()
                return true
            case .processKill:
                // What an app termination looks like: no cleanup, no goodbye. Only the leg's
                // bookkeeping is left for the parent, which cannot see this process's counters.
                report.connection = transfer.currentConnection
                beforeKill(report)
                kill(getpid(), SIGKILL)
                return false
            case .clientAbort, .unplanned:
                return false
            }
        }
        do throws(TaskError) { try file.flush() } catch { failure = failure ?? error }
        if let first = response.firstByteMicros { report.firstByteMs = Double(first) / 1000 }
        report.status = response.head?.status
        report.connection = response.connection
        report.retryAfter = response.head?.value("Retry-After")
        if accepted == nil, let head = response.head {
            // A response without a body (416, 204, a HEAD-like error): decide on the head alone.
            _ = decide(head: head, resuming: resuming, offset: offset, state: &state, file: file, report: &report, failure: &failure)
        }
        state.bytesReceived = file.size
        if let failure {
            report.error = failure
        } else if report.stoppedByPlan {
            // The planned stop: libcurl's error (write aborted, connection reset) is the plan working.
            if let length = state.length, file.size == length { report.complete = true }
        } else if let error = response.error {
            report.error = error
        } else if accepted == true {
            if let length = state.length, file.size != length {
                report.error = TaskError(code: .truncatedBody,
                                         message: "the response ended at byte \(file.size) of \(length) without an error")
            } else {
                report.complete = true
                if state.length == nil { state.length = file.size }
            }
        }
        persist(state)
        return report
    }

    /// Accepts or rejects a response from its head; on a 200 the partial file restarts from zero.
    private static func decide(head: ResponseHead, resuming: Bool, offset: Int64, state: inout ResumeData, file: PartialFile,
                               report: inout LegReport, failure: inout TaskError?) -> Bool {
        let facts = ResponseFacts(head: head)
        report.evidence = facts.evidence
        switch head.status {
        case 206 where resuming:
            let range = facts.contentRange
            // The same representation unless a validator or digest in the 206 says otherwise.
            let validatorIsETag = state.validator?.hasPrefix("\"") ?? false
            let etagDiffers = validatorIsETag && facts.strongETag != nil && facts.strongETag != state.validator
            let dateDiffers = !validatorIsETag && facts.lastModified != nil && facts.lastModified != state.validator
            let digestDiffers = facts.reprDigestSha256 != nil && state.reprDigestSha256 != nil
                && facts.reprDigestSha256 != state.reprDigestSha256
            let sameRepresentation = !etagDiffers && !dateDiffers && !digestDiffers
            if !sameRepresentation {
                report.answer = "validatorChanged"
            } else if let range, range.first == offset, state.length == nil || range.complete == nil || range.complete == state.length,
                      range.complete.map({ range.last == $0 - 1 }) ?? true {
                report.answer = "206"
                return true
            } else {
                report.answer = "wrongRange"
            }
            // Not a continuation of these bytes: write nothing, start over without Range.
            report.restartNext = true
            return false
        case 206:
            report.answer = resuming ? "206" : nil
            failure = TaskError(code: .protocolError, message: "the server answered 206 to a request without Range (\(facts.evidence))")
            return false
        case 200:
            if offset > 0 && resuming {
                report.answer = "200"
                report.wasted += offset
                do { try file.truncate() } catch {
                    failure = error
                    return false
                }
            }
            state.validator = facts.validator
            state.length = facts.representationLength
            state.reprDigestSha256 = facts.reprDigestSha256
            return true
        default:
            if resuming { report.answer = "\(head.status)" }
            if head.status == 416 { report.restartNext = true }
            return false
        }
    }
}
