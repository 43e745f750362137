import Crypto
import SondeCore
import SondeHTTP

/// Decides whether a URL's downloads can resume the way URLSession resumes them, check by check
/// with the headers seen as evidence (`sonde resume --check`, and before every trial run).
///
/// Every request but one range reads at most a few KiB: bodies that are not needed are dropped
/// after the head.
public struct ResumabilityChecker {
    private let transfer: StreamingTransfer
    private let headers: [HeaderField]
    private let redactor: Redactor

    /// - Parameter stop: the run's stop, which ends a request under way (nil: signals only).
    public init(settings: TransferSettings, stop: RunStop? = nil) throws(TaskError) {
        transfer = try StreamingTransfer(options: settings.probeOptions, redactor: settings.redactor,
                                         stallTimeoutMs: settings.stallTimeoutMs)
        transfer.watch(stop: stop)
        headers = settings.headers
        redactor = settings.redactor
    }

    /// A response head and how many body bytes came, reading at most `limit` of them.
    private struct Answer {
        var head: ResponseHead?
        var bodyBytes: Int64
        /// SHA-256 (hex) of the body bytes read.
        var sha256: String
        var error: TaskError?
        var facts: ResponseFacts? { head.map(ResponseFacts.init) }
        var evidence: String { facts?.evidence ?? "no response: \(error?.message ?? "?")" }
    }

    private func ask(_ url: String, _ extra: [HeaderField], limit: Int64) -> Answer {
        var read: Int64 = 0
        var hasher = SHA256()
        let response = transfer.perform(url: url, headers: headers + extra) { _, chunk in
            let wanted = Int(min(Int64(chunk.count), max(0, limit - read)))
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: chunk[0..<wanted]))
            read += Int64(chunk.count)
            return read < limit
        }
        return Answer(head: response.head, bodyBytes: read, sha256: PartialFile.hex(hasher.finalize()),
                      error: response.abortedByConsumer ? nil : response.error)
    }

    /// The verdict for `url`; `reference` is the uninterrupted download when one was made (its
    /// SHA-256 is compared with the server's digest).
    public func verdict(url: String, reference: DownloadReference?) -> ResumeVerdict {
        var checks: [ResumeCheck] = []
        func check(_ name: String, _ passed: Bool, required: Bool = true, _ evidence: String) {
            checks.append(ResumeCheck(name: name, passed: passed, required: required, evidence: evidence))
        }
        let first = ask(url, [], limit: 1)
        let gotIt = first.head?.status == 200
        check("getSucceeds", gotIt, "GET → \(first.evidence)")
        guard gotIt, let facts = first.facts else {
            return ResumeVerdict(url: redactor.redact(url: url), checks: checks, urlSession: "cannot download it at all")
        }
        let length = facts.representationLength ?? reference?.length
        let etag = facts.head.value("ETag")
        var validatorEvidence: [String] = []
        if let etag { validatorEvidence.append("ETag: \(etag) (\(etag.hasPrefix("W/") ? "weak: If-Range cannot use it" : "strong"))") }
        if let date = facts.lastModified { validatorEvidence.append("Last-Modified: \(date)") }
        let validator = facts.validator
        check("validator", validator != nil, validatorEvidence.isEmpty ? "neither ETag nor Last-Modified" : validatorEvidence.joined(separator: " · "))

        let second = ask(url, [], limit: 1)
        let stable = validator != nil && second.facts?.validator == validator
        check("stableValidator", stable, "two GETs gave \(validator ?? "none") and \(second.facts?.validator ?? "none")")

        let acceptRanges = facts.head.value("Accept-Ranges")
        check("acceptRanges", acceptRanges?.lowercased().contains("bytes") == true, required: false,
              "Accept-Ranges: \(acceptRanges ?? "absent")")

        // A range near the end, asked the way a resume asks: `bytes=N-`.
        var rangeOK = false
        var lyingRange = false
        var currentOK = false
        var staleOK = false
        if let length, length >= 2 {
            let start = DownloadReference.tailStart(length: length)
            // With a reference, the range's bytes are compared with the same bytes of the whole body.
            let expectedTail = reference?.tailStart == start ? reference?.tailSha256 : nil
            func partial(_ extra: [HeaderField]) -> (Bool, String) {
                let answer = ask(url, [HeaderField(name: "Range", value: "bytes=\(start)-")] + extra, limit: 8192)
                guard let facts = answer.facts else { return (false, answer.evidence) }
                let range = facts.contentRange
                let framed = facts.head.status == 206 && range?.first == start && range?.last == length - 1
                    && (range?.complete == nil || range?.complete == length) && answer.bodyBytes == length - start
                // Only bytes of the reference's representation can be compared with it.
                let sameRepresentation = facts.validator != nil && facts.validator == reference?.validator
                let sameBytes = !sameRepresentation || (expectedTail.map { $0 == answer.sha256 } ?? true)
                var evidence = "Range: bytes=\(start)- → \(facts.evidence)"
                if !framed {
                    evidence += " (\(answer.bodyBytes) body bytes; expected 206 with bytes \(start)-\(length - 1)/\(length))"
                } else if !sameBytes {
                    lyingRange = true
                    evidence += " (the headers are right but the bytes are not those of the whole body at that offset: a lying range)"
                } else if expectedTail != nil && sameRepresentation {
                    evidence += " (the same bytes as the whole body's)"
                }
                return (framed && sameBytes, evidence)
            }
            let (ok, evidence) = partial([])
            rangeOK = ok
            check("rangeRequest", ok, evidence)
            if let validator {
                let (current, currentEvidence) = partial([HeaderField(name: "If-Range", value: validator)])
                currentOK = current
                check("ifRangeCurrent", current, "If-Range: \(validator) + " + currentEvidence)
                let stale = validator.hasPrefix("\"") ? "\"sonde-stale-validator\"" : "Thu, 01 Jan 1970 00:00:00 GMT"
                let answer = ask(url, [HeaderField(name: "Range", value: "bytes=\(start)-"), HeaderField(name: "If-Range", value: stale)], limit: 1)
                staleOK = answer.head?.status == 200
                check("ifRangeStale", staleOK, "If-Range: \(stale) + Range: bytes=\(start)- → \(answer.evidence)"
                      + (staleOK ? " (the whole body: never a splice)" : " (expected 200 with the whole body)"))
            } else {
                check("ifRangeCurrent", false, "no validator to send in If-Range")
                check("ifRangeStale", false, "no validator to send in If-Range")
            }
            let multi = ask(url, [HeaderField(name: "Range", value: "bytes=0-0,\(length - 1)-\(length - 1)")], limit: 4096)
            let multipart = multi.head?.status == 206 && (multi.head?.value("Content-Type") ?? "").lowercased().hasPrefix("multipart/byteranges")
            check("multipleRanges", multipart, required: false, "Range: bytes=0-0,\(length - 1)-\(length - 1) → \(multi.evidence)")
        } else {
            let why = length == nil ? "the length is unknown (no Content-Length)" : "the body is shorter than 2 bytes"
            check("rangeRequest", false, why)
            check("ifRangeCurrent", false, why)
            check("ifRangeStale", false, why)
        }
        if let digest = facts.reprDigestSha256 {
            let matches = reference.map { $0.sha256 == digest }
            check("digest", matches ?? true, required: false,
                  "Repr-Digest sha-256 \(digest)" + (matches == false ? " differs from the SHA-256 of the body, \(reference!.sha256)" : ""))
        } else {
            check("digest", false, required: false, "no Repr-Digest or Content-Digest: only sonde's reference download can verify a resumed file")
        }

        let urlSession: String
        if validator == nil {
            urlSession = etag?.hasPrefix("W/") == true
                ? "cannot make resume data (a weak ETag only): an interrupted download starts over from zero"
                : "cannot make resume data (no ETag or Last-Modified): an interrupted download starts over from zero"
        } else if lyingRange {
            urlSession = "resumes, and the server sends other bytes under a correct Content-Range: every resumed file is corrupt"
        } else if !stable {
            urlSession = "resume data goes stale at once (the validator changes on every request): every resume starts over"
        } else if !rangeOK {
            urlSession = "makes resume data, but the server does not answer Range properly: every resume downloads the whole file again"
        } else if !staleOK {
            urlSession = "resumes, but the server ignores If-Range: if the resource changes before the resume, the file is spliced from two versions (corrupt)"
        } else if !currentOK {
            urlSession = "asks to resume and gets the whole body back: every resume starts over"
        } else {
            urlSession = "resumes from the resume data's offset with Range and If-Range (206)"
        }
        return ResumeVerdict(url: redactor.redact(url: url), checks: checks, urlSession: urlSession)
    }
}
