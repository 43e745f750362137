import Crypto
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

    /// GETs `url` once, whole. Fails on a transfer error or a status other than 200.
    static func fetch(url: String, transfer: StreamingTransfer, headers: [HeaderField]) throws(TaskError) -> DownloadReference {
        var hasher = SHA256()
        let response = transfer.perform(url: url, headers: headers) { head, chunk in
            guard head.status == 200 else { return false }
            hasher.update(bufferPointer: chunk)
            return true
        }
        guard let head = response.head else {
            throw response.error ?? TaskError(code: .emptyReply, message: "no response to the reference download")
        }
        let facts = ResponseFacts(head: head)
        guard head.status == 200 else {
            throw TaskError(code: .httpStatus, message: "the reference download was answered \(head.status), expected 200 (\(facts.evidence))")
        }
        if let error = response.error { throw error }
        let sha = PartialFile.hex(hasher.finalize())
        if let announced = facts.representationLength, announced != response.bodyBytes {
            throw TaskError(code: .truncatedBody, message: "the reference download announced \(announced) bytes and delivered \(response.bodyBytes)")
        }
        return DownloadReference(sha256: sha, length: response.bodyBytes, validator: facts.validator,
                                 reprDigestSha256: facts.reprDigestSha256, evidence: facts.evidence,
                                 durationMs: Double(response.durationMicros) / 1000)
    }
}
