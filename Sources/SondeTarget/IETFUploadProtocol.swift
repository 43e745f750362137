import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore

/// The server side of "Resumable Uploads for HTTP" (draft-ietf-httpbis-resumable-upload) at
/// `/ietf`, for interop versions 3 to 8. What changes with the version:
/// - 3 (draft -01, iOS 17): completeness is `Upload-Incomplete` (`?1` = more to come);
/// - 4 and later (draft -03 is version 5, iOS 18.0): `Upload-Complete` (`?1` = this is the end);
/// - 6 and later (iOS 18.1): `Upload-Limit` advertised; appends must be `application/partial-upload`
///   (otherwise 415).
/// Every version: POST creates (104 with Location before the body is read, then 201),
/// HEAD retrieves the offset (204, `Cache-Control: no-store`), PATCH appends at `Upload-Offset`
/// (409 with the current offset on a mismatch or while another append runs), DELETE cancels.
struct IETFUploadProtocol {
    let store: UploadStore
    static let versions = 3...8
    static let partialUpload = "application/partial-upload"

    private static let versionName = HTTPField.Name("Upload-Draft-Interop-Version")!
    private static let incompleteName = HTTPField.Name("Upload-Incomplete")!
    private static let completeName = HTTPField.Name("Upload-Complete")!
    private static let offsetName = HTTPField.Name("Upload-Offset")!
    private static let lengthName = HTTPField.Name("Upload-Length")!
    private static let limitName = HTTPField.Name("Upload-Limit")!
    private static let digestName = HTTPField.Name("Repr-Digest")!

    func respond(_ request: Request, id: String?, writer: consuming ResponseWriter, channel: any Channel) async throws {
        if request.method == .get, let id {
            // The uploaded resource itself: a plain GET, no draft header needed.
            guard let upload = store.get(id) else { return try await writer.writeResponse(UploadTarget.head(.notFound)) }
            let (head, body) = UploadTarget.content(upload, extra: [:])
            return try await writer.write(response: head, body: body)
        }
        guard let text = request.headers[Self.versionName], let version = Int(text), Self.versions.contains(version) else {
            return try await writer.write(response: UploadTarget.head(.badRequest),
                                          body: UploadTarget.text("Upload-Draft-Interop-Version must be one of 3...8\n"))
        }
        switch (request.method, id) {
        case (.post, nil): try await create(request, version: version, writer: writer, channel: channel)
        case (.head, let id?): try await offset(id, version: version, writer: writer)
        case (.patch, let id?): try await append(request, id: id, version: version, writer: writer, channel: channel)
        case (.delete, let id?):
            try await writer.writeResponse(UploadTarget.head(store.remove(id) ? .noContent : .notFound, [Self.versionName: "\(version)"]))
        default:
            try await writer.write(response: UploadTarget.head(.methodNotAllowed), body: UploadTarget.text("not allowed here\n"))
        }
    }

    /// Whether the request says this is the last of the upload (absent: it is).
    private func isComplete(_ request: Request, version: Int) -> Bool {
        if version <= 3 { return request.headers[Self.incompleteName] != "?1" }
        return request.headers[Self.completeName] != "?0"
    }

    private func completeness(_ complete: Bool, version: Int) -> (HTTPField.Name, String) {
        version <= 3 ? (Self.incompleteName, complete ? "?0" : "?1") : (Self.completeName, complete ? "?1" : "?0")
    }

    private func state(_ upload: UploadStore.Upload, id: String, version: Int) -> HTTPFields {
        var fields: HTTPFields = [Self.versionName: "\(version)", Self.offsetName: "\(upload.offset)", .location: "/ietf/\(id)"]
        let (name, value) = completeness(upload.complete, version: version)
        fields[name] = value
        if let length = upload.length { fields[Self.lengthName] = "\(length)" }
        if version >= 6 {
            fields[Self.limitName] = "max-size=\(UploadStore.maxSize)" + (upload.maxAppend.map { ", max-append-size=\($0)" } ?? "")
        }
        if upload.complete { fields[Self.digestName] = UploadStore.reprDigest(upload) }
        return fields
    }

    private func create(_ request: Request, version: Int, writer: consuming ResponseWriter, channel: any Channel) async throws {
        let query = request.uri.queryParameters
        var length: Int64? = nil
        if let text = request.headers[Self.lengthName] {
            guard let value = Int64(text), value >= 0, value <= UploadStore.maxSize else {
                return try await writer.write(response: UploadTarget.head(.badRequest), body: UploadTarget.text("bad Upload-Length\n"))
            }
            length = value
        }
        let id = try store.create(length: length, dropAt: query.get("dropAt").flatMap { Int64(String($0)) },
                                  maxAppend: query.get("maxAppend").flatMap { Int64(String($0)) })
        guard case .claimed(let upload) = store.claim(id, offset: 0) else { throw TargetError("a new upload is busy") }
        // 104 before the body: the client knows where to resume even if this request dies.
        var informational = state(upload, id: id, version: version)
        informational[Self.offsetName] = nil
        informational[Self.digestName] = nil
        try await writer.writeInformationalHead(HTTPResponse(status: .init(code: 104, reasonPhrase: "Upload Resumption Supported"),
                                                             headerFields: informational))
        try await finishBody(request, id: id, version: version, limit: upload.maxAppend, created: true, writer: writer, channel: channel)
    }

    private func offset(_ id: String, version: Int, writer: consuming ResponseWriter) async throws {
        guard let upload = store.get(id) else { return try await writer.writeResponse(UploadTarget.head(.notFound)) }
        var fields = state(upload, id: id, version: version)
        fields[.cacheControl] = "no-store"
        try await writer.writeResponse(UploadTarget.head(.noContent, fields))
    }

    private func append(_ request: Request, id: String, version: Int, writer: consuming ResponseWriter, channel: any Channel) async throws {
        if version >= 6, request.headers[.contentType]?.lowercased() != Self.partialUpload {
            return try await writer.write(response: UploadTarget.head(.unsupportedMediaType),
                                          body: UploadTarget.text("appends use Content-Type: \(Self.partialUpload)\n"))
        }
        guard let text = request.headers[Self.offsetName], let offset = Int64(text) else {
            return try await writer.write(response: UploadTarget.head(.badRequest), body: UploadTarget.text("Upload-Offset is required\n"))
        }
        switch store.claim(id, offset: offset) {
        case .unknown:
            try await writer.writeResponse(UploadTarget.head(.notFound))
        case .conflict(let upload):
            try await writer.write(response: UploadTarget.head(.conflict, state(upload, id: id, version: version)),
                                   body: UploadTarget.text(upload.complete ? "the upload is complete\n"
                                       : upload.busy ? "another append is in progress\n" : "offset mismatch: the upload is at \(upload.offset)\n"))
        case .claimed(let upload):
            try await finishBody(request, id: id, version: version, limit: upload.maxAppend, created: false, writer: writer, channel: channel)
        }
    }

    /// Reads the body into the upload, then answers with its state (unless the connection is gone).
    private func finishBody(_ request: Request, id: String, version: Int, limit: Int64?, created: Bool,
                            writer: consuming ResponseWriter, channel: any Channel) async throws {
        let result = await UploadTarget.receive(request, into: id, store: store, limit: limit, channel: channel)
        var complete = result == .received && isComplete(request, version: version)
        if complete, let length = store.get(id)?.length, store.get(id)?.offset != length { complete = false }
        guard let upload = store.release(id, complete: complete) else { return }
        switch result {
        case .cut, .lost:
            return  // nobody to answer; the bytes that arrived are kept
        case .tooLarge:
            try await writer.write(response: UploadTarget.head(.contentTooLarge, state(upload, id: id, version: version)),
                                   body: UploadTarget.text("the append is larger than max-append-size\n"))
        case .received:
            if let length = upload.length, upload.offset > length {
                return try await writer.write(response: UploadTarget.head(.badRequest, state(upload, id: id, version: version)),
                                              body: UploadTarget.text("more bytes than Upload-Length\n"))
            }
            let status: HTTPResponse.Status = created ? .created : upload.complete ? .ok : .noContent
            try await writer.writeResponse(UploadTarget.head(status, state(upload, id: id, version: version)))
        }
    }
}
