import Crypto
import Foundation
import SondeCore
import SondeHTTP

/// The uninterrupted download every trial is compared with: hashed on the way, never stored.
public struct DownloadReference: Sendable, Equatable {
    /// Lowercase hex SHA-256 of the body sonde received.
    public var sha256: String
    public var length: Int64
    /// Strong ETag or Last-Modified, as a resume would use it.
    public var validator: String?
    /// The server's Repr-Digest (SHA-256, hex), when sent.
    public var reprDigestSha256: String?
    /// The response's status and resume-relevant headers.
    public var evidence: String
    public var durationMs: Double

    /// The first body byte of the tail that `ResumabilityChecker` asks for as a range; the
    /// tail's SHA-256 lets the check compare a range's content, not only its headers.
    public var tailStart: Int64?
    public var tailSha256: String?
    /// Failed attempts before the one that counted (each restarted from zero).
    public var retries: [TransferRetry] = []

    /// The offset a range check starts at for a body of `length` bytes: the last 4 KiB, or the
    /// last half of a shorter body.
    static func tailStart(length: Int64) -> Int64 { length - min(length / 2, 4096) }

    /// GETs `url` whole, restarting from zero after a retryable failure as `retry` allows: the
    /// reference is never assembled from ranges. Fails on a status other than 200 that is not
    /// retryable, or when the retries run out.
    /// `onProgress` gets the bytes received so far and the announced length, as chunks arrive.
    static func fetch(url: String, transfer: StreamingTransfer, headers: [HeaderField], retry: RetryPolicy,
                      using generator: inout some RandomNumberGenerator,
                      onProgress: (Int64, Int64?) -> Void = { _, _ in }) throws(TaskError) -> DownloadReference {
        var retries: [TransferRetry] = []
        while true {
            do throws(ReferenceError) {
                var reference = try once(url: url, transfer: transfer, headers: headers, onProgress: onProgress)
                reference.retries = retries
                return reference
            } catch {
                let failure = error.error
                guard RetryPolicy.isRetryable(error: failure.code, status: error.status), retries.count < retry.maxRetries else {
                    throw TaskError(code: failure.code, message: failure.message + (retries.isEmpty ? "" : " (after \(retries.count) retries)"),
                                    curlCode: failure.curlCode)
                }
                let delay = retry.delayMs(failure: retries.count + 1, status: error.status, retryAfter: error.retryAfter, using: &generator)
                retries.append(TransferRetry(reason: error.status != nil ? "httpStatus" : failure.code.rawValue, status: error.status,
                                             retryAfter: error.retryAfter, delayMs: (delay * 1000).rounded() / 1000))
                usleep(useconds_t(min(delay, retry.maxRetryAfterMs) * 1000))
            }
        }
    }

    private static func once(url: String, transfer: StreamingTransfer, headers: [HeaderField],
                             onProgress: (Int64, Int64?) -> Void) throws(ReferenceError) -> DownloadReference {
        var hasher = SHA256()
        var tailHasher = SHA256()
        var tailStart: Int64? = nil
        var announced: Int64? = nil
        var offset: Int64 = 0
        let response = transfer.perform(url: url, headers: headers) { head, chunk in
            guard head.status == 200 else { return false }
            if offset == 0 {
                announced = ResponseFacts(head: head).representationLength
                if let length = announced, length >= 2 { tailStart = DownloadReference.tailStart(length: length) }
            }
            hasher.update(bufferPointer: chunk)
            if let start = tailStart, offset + Int64(chunk.count) > start {
                let skip = Int(max(0, start - offset))
                tailHasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: chunk[skip...]))
            }
            offset += Int64(chunk.count)
            onProgress(offset, announced)
            return true
        }
        guard let head = response.head else {
            throw ReferenceError(response.error ?? TaskError(code: .emptyReply, message: "no response to the reference download"))
        }
        let facts = ResponseFacts(head: head)
        guard head.status == 200 else {
            throw ReferenceError(TaskError(code: .httpStatus, message: "the reference download was answered \(head.status), expected 200 (\(facts.evidence))"),
                                 status: head.status, retryAfter: head.value("Retry-After"))
        }
        if let error = response.error { throw ReferenceError(error) }
        if let announced = facts.representationLength, announced != response.bodyBytes {
            throw ReferenceError(TaskError(code: .truncatedBody, message: "the reference download announced \(announced) bytes and delivered \(response.bodyBytes)"))
        }
        return DownloadReference(sha256: PartialFile.hex(hasher.finalize()), length: response.bodyBytes, validator: facts.validator,
                                 reprDigestSha256: facts.reprDigestSha256, evidence: facts.evidence,
                                 durationMs: Double(response.durationMicros) / 1000,
                                 tailStart: tailStart, tailSha256: tailStart.map { _ in PartialFile.hex(tailHasher.finalize()) })
    }
}

/// A failed reference attempt: the error, and the status and Retry-After that decide a retry.
struct ReferenceError: Error {
    var error: TaskError
    var status: Int?
    var retryAfter: String?
    init(_ error: TaskError, status: Int? = nil, retryAfter: String? = nil) {
        self.error = error
        self.status = status
        self.retryAfter = retryAfter
    }
}
