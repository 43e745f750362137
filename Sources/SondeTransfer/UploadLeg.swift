#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SondeCore
import SondeHTTP

/// Where an upload stands, on disk between processes (like a background URLSession upload task's
/// state): the file, the creation URL, and the upload URL once the server gave one (104 or 201).
public struct UploadState: Codable, Sendable, Equatable {
    public var creationURL: String
    public var uploadURL: String?
    public var filePath: String
    public var length: Int64
    public var uploadProtocol: UploadProtocol
    /// The largest append the server takes (`Upload-Limit: max-append-size`), when it said.
    public var maxAppend: Int64?

    public init(creationURL: String, filePath: String, length: Int64, uploadProtocol: UploadProtocol) {
        self.creationURL = creationURL
        self.filePath = filePath
        self.length = length
        self.uploadProtocol = uploadProtocol
    }

    public static func load(from path: String) throws(TaskError) -> UploadState {
        guard let data = FileManager.default.contents(atPath: path),
              let state = try? JSONDecoder().decode(UploadState.self, from: data) else {
            throw TaskError(code: .localIOError, message: "cannot read upload state \(path)")
        }
        return state
    }

    public func save(to path: String) {
        if let data = try? JSONEncoder().encode(self) { try? writeReplacing(path, data) }
    }
}

/// What one upload request did (a worker writes it to disk before it dies).
public struct UploadLegReport: Codable, Sendable, Equatable {
    /// Request body bytes handed to libcurl.
    public var sent: Int64 = 0
    /// The file offset the body started at.
    public var startOffset: Int64 = 0
    public var status: Int?
    /// The server's `Upload-Offset` in the final response, when it sent one.
    public var serverOffset: Int64?
    /// The server said the upload is complete (or, for tus, the offset reached the length).
    public var complete = false
    public var stoppedByPlan = false
    public var error: TaskError?
    public var retryAfter: String?
    /// `sha-256` (hex) from the final response's Repr-Digest.
    public var digestSha256: String?
    public var evidence: String?
    /// Monotonic µs when the first body byte was handed to libcurl.
    public var firstByteAt: Int64?
}

/// One request of an upload: creation (IETF: POST with the whole file; tus: POST with
/// Upload-Length only) or append (PATCH from `offset`, at most `maxAppend` bytes), its body read
/// from the file as libcurl asks, stopped on purpose at a planned byte.
enum UploadLeg {
    enum Kind { case create, append(offset: Int64) }

    static func run(transfer: StreamingTransfer, state: inout UploadState, kind: Kind, stop: PlannedStop?,
                    headers: [HeaderField], persist: (UploadState) -> Void,
                    beforeKill: @escaping (UploadLegReport) -> Void = { _ in }) -> UploadLegReport {
        var report = UploadLegReport()
        let proto = state.uploadProtocol
        var fields = headers + proto.baseHeaders
        let url: String
        var range: Range<Int64> = 0..<0
        switch kind {
        case .create:
            url = state.creationURL
            if case .tus = proto {
                fields.append(HeaderField(name: "Upload-Length", value: "\(state.length)"))
            } else {
                range = 0..<state.length
                fields += proto.completeness(true)
                fields.append(HeaderField(name: "Content-Type", value: "application/octet-stream"))
                if case .ietf(let version) = proto, version >= 6 { fields.append(HeaderField(name: "Upload-Length", value: "\(state.length)")) }
            }
        case .append(let offset):
            url = state.uploadURL ?? state.creationURL
            let end = state.maxAppend.map { min(state.length, offset + max(1, $0)) } ?? state.length
            range = offset..<end
            fields.append(HeaderField(name: "Upload-Offset", value: "\(offset)"))
            fields += proto.completeness(end == state.length)
            if let type = proto.appendContentType { fields.append(HeaderField(name: "Content-Type", value: type)) }
        }
        report.startOffset = range.lowerBound
        let descriptor = open(state.filePath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            report.error = TaskError(code: .localIOError, message: "cannot read \(state.filePath): \(String(cString: strerror(errno)))")
            return report
        }
        defer { close(descriptor) }
        var position = range.lowerBound
        var dropped = false
        let creationURL = state.creationURL
        var learnedURL: String? = nil
        /// The upload URL from a 104 that arrived while the body is being sent.
        func noteInformational() {
            guard learnedURL == nil, let location = transfer.informationalSoFar.last(where: { $0.status == 104 })?.value("Location") else { return }
            learnedURL = resolve(location, against: creationURL)
        }
        let body = range.isEmpty ? nil : UploadBody(length: Int64(range.count)) { buffer in
            noteInformational()
            if dropped { return UploadBody.abort }
            if let stop, position >= stop.atByte {
                report.stoppedByPlan = true
                switch stop.kind {
                case .connectionDrop:
                    dropped = true
                    transfer.dropConnection()
                    return UploadBody.abort
                case .processKill:
                    beforeKill(report)
                    kill(getpid(), SIGKILL)
                    return UploadBody.abort
                case .clientAbort, .unplanned:
                    return UploadBody.abort
                }
            }
            var wanted = min(Int64(buffer.count), range.upperBound - position)
            if let stop, stop.atByte > position { wanted = min(wanted, stop.atByte - position) }
            guard wanted > 0 else { return 0 }
            let count = pread(descriptor, buffer.baseAddress, Int(wanted), off_t(position))
            guard count > 0 else { return UploadBody.abort }
            if report.firstByteAt == nil { report.firstByteAt = monotonicMicroseconds() }
            position += Int64(count)
            report.sent += Int64(count)
            return count
        }
        let method: String
        switch kind {
        case .create: method = "POST"
        case .append: method = "PATCH"
        }
        let response = transfer.perform(url: url, method: method, headers: fields, body: body)
        // A 104 that came after the last read, or with the final response, counts too.
        if learnedURL == nil, let location = response.informational.last(where: { $0.status == 104 })?.value("Location") {
            learnedURL = resolve(location, against: creationURL)
        }
        if let head = response.head {
            report.status = head.status
            report.retryAfter = head.value("Retry-After")
            report.serverOffset = head.value("Upload-Offset").flatMap { Int64($0) }
            if let location = head.value("Location"), (200..<300).contains(head.status) { learnedURL = resolve(location, against: creationURL) }
            report.digestSha256 = head.value("Repr-Digest").flatMap(ResponseFacts.sha256(inDigestField:))
            report.evidence = "\(method) → " + evidence(head)
            if let limit = head.value("Upload-Limit").flatMap(maxAppendSize) { state.maxAppend = limit }
            if (200..<300).contains(head.status) {
                let offset = report.serverOffset ?? (range.lowerBound + report.sent)
                report.complete = proto.saysComplete(head) ?? (offset == state.length && state.length > 0 || state.length == 0)
                if case .tus = proto, case .create = kind { report.complete = state.length == 0 }
            }
        }
        if let learnedURL, state.uploadURL == nil {
            state.uploadURL = learnedURL
            persist(state)
        }
        if !report.stoppedByPlan {
            if let error = response.error {
                report.error = error
            } else if let status = report.status, status >= 300 {
                report.error = TaskError(code: .httpStatus, message: "the server answered \(method) with \(status) (\(report.evidence ?? ""))")
            } else if response.head == nil {
                report.error = TaskError(code: .emptyReply, message: "no response to \(method)")
            }
        }
        return report
    }

    /// Offset retrieval: HEAD on the upload URL → (status, Upload-Offset, complete, evidence).
    static func offset(transfer: StreamingTransfer, state: inout UploadState, headers: [HeaderField])
        -> (status: Int?, offset: Int64?, complete: Bool, digest: String?, error: TaskError?, evidence: String) {
        guard let url = state.uploadURL else { return (nil, nil, false, nil, nil, "no upload URL") }
        let response = transfer.perform(url: url, method: "HEAD", headers: headers + state.uploadProtocol.baseHeaders)
        guard let head = response.head else {
            return (nil, nil, false, nil, response.error ?? TaskError(code: .emptyReply, message: "no answer to HEAD"), "HEAD → no answer")
        }
        if let limit = head.value("Upload-Limit").flatMap(maxAppendSize) { state.maxAppend = limit }
        let offset = head.value("Upload-Offset").flatMap { Int64($0) }
        let complete = state.uploadProtocol.saysComplete(head) ?? (offset == state.length)
        return (head.status, offset, (200..<300).contains(head.status) && complete,
                head.value("Repr-Digest").flatMap(ResponseFacts.sha256(inDigestField:)), nil, "HEAD → " + evidence(head))
    }

    static func evidence(_ head: ResponseHead) -> String {
        var parts = ["\(head.status)"]
        for name in ["Upload-Offset", "Upload-Complete", "Upload-Incomplete", "Upload-Length", "Upload-Limit", "Location", "Tus-Resumable"] {
            if let value = head.value(name) { parts.append("\(name): \(value)") }
        }
        return parts.joined(separator: " · ")
    }

    /// `max-append-size` from an `Upload-Limit` dictionary (`max-size=…, max-append-size=…`).
    static func maxAppendSize(_ field: String) -> Int64? {
        for member in field.split(separator: ",") {
            let pair = member.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == "max-append-size", let value = Int64(pair[1]), value > 0 { return value }
        }
        return nil
    }

    static func resolve(_ location: String, against base: String) -> String {
        URL(string: location, relativeTo: URL(string: base))?.absoluteString ?? location
    }
}
