import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore

/// The server side of tus 1.0.0 (https://tus.io/protocols/resumable-upload) at `/tus`: core with
/// the creation and termination extensions. Every request but OPTIONS must carry
/// `Tus-Resumable: 1.0.0` (else 412 with `Tus-Version`); appends must be
/// `application/offset+octet-stream` (else 415) at the current `Upload-Offset` (else 409).
struct TusUploadProtocol {
    let store: UploadStore
    static let version = "1.0.0"
    private static let resumableName = HTTPField.Name("Tus-Resumable")!
    private static let versionName = HTTPField.Name("Tus-Version")!
    private static let extensionName = HTTPField.Name("Tus-Extension")!
    private static let maxSizeName = HTTPField.Name("Tus-Max-Size")!
    private static let offsetName = HTTPField.Name("Upload-Offset")!
    private static let lengthName = HTTPField.Name("Upload-Length")!
    private static let digestName = HTTPField.Name("Repr-Digest")!

    func respond(_ request: Request, id: String?, writer: consuming ResponseWriter, channel: any Channel) async throws {
        let base: HTTPFields = [Self.resumableName: Self.version]
        if request.method == .options {
            var fields = base
            fields[Self.versionName] = Self.version
            fields[Self.extensionName] = "creation,termination"
            fields[Self.maxSizeName] = "\(UploadStore.maxSize)"
            return try await writer.writeResponse(UploadTarget.head(.noContent, fields))
        }
        guard request.headers[Self.resumableName] == Self.version else {
            var fields = base
            fields[Self.versionName] = Self.version
            return try await writer.write(response: UploadTarget.head(.preconditionFailed, fields),
                                          body: UploadTarget.text("Tus-Resumable: \(Self.version) is required\n"))
        }
        switch (request.method, id) {
        case (.post, nil):
            guard let text = request.headers[Self.lengthName], let length = Int64(text), length >= 0 else {
                return try await writer.write(response: UploadTarget.head(.badRequest, base), body: UploadTarget.text("Upload-Length is required\n"))
            }
            guard length <= UploadStore.maxSize else {
                return try await writer.write(response: UploadTarget.head(.contentTooLarge, base), body: UploadTarget.text("too large\n"))
            }
            let query = request.uri.queryParameters
            let id = try store.create(length: length, dropAt: query.get("dropAt").flatMap { Int64(String($0)) }, maxAppend: nil)
            var fields = base
            fields[.location] = "/tus/\(id)"
            if length == 0 { _ = store.release(id, complete: true) }
            try await writer.writeResponse(UploadTarget.head(.created, fields))
        case (.head, let id?):
            guard let upload = store.get(id) else { return try await writer.writeResponse(UploadTarget.head(.notFound, base)) }
            var fields = state(upload, base)
            fields[.cacheControl] = "no-store"
            try await writer.writeResponse(UploadTarget.head(.ok, fields))
        case (.patch, let id?):
            guard request.headers[.contentType]?.lowercased() == "application/offset+octet-stream" else {
                return try await writer.write(response: UploadTarget.head(.unsupportedMediaType, base),
                                              body: UploadTarget.text("Content-Type must be application/offset+octet-stream\n"))
            }
            guard let text = request.headers[Self.offsetName], let offset = Int64(text) else {
                return try await writer.write(response: UploadTarget.head(.badRequest, base), body: UploadTarget.text("Upload-Offset is required\n"))
            }
            switch store.claim(id, offset: offset) {
            case .unknown:
                try await writer.writeResponse(UploadTarget.head(.notFound, base))
            case .conflict(let upload):
                try await writer.write(response: UploadTarget.head(.conflict, state(upload, base)),
                                       body: UploadTarget.text("offset mismatch: the upload is at \(upload.offset)\n"))
            case .claimed(let upload):
                let result = await UploadTarget.receive(request, into: id, store: store, limit: nil, channel: channel)
                let now = store.get(id)
                let complete = result == .received && now.map { $0.offset == $0.length } == true
                guard let released = store.release(id, complete: complete) else { return }
                guard result == .received else { return }
                if let length = upload.length, released.offset > length {
                    return try await writer.write(response: UploadTarget.head(.badRequest, state(released, base)),
                                                  body: UploadTarget.text("more bytes than Upload-Length\n"))
                }
                try await writer.writeResponse(UploadTarget.head(.noContent, state(released, base)))
            }
        case (.delete, let id?):
            try await writer.writeResponse(UploadTarget.head(store.remove(id) ? .noContent : .notFound, base))
        case (.get, let id?):
            guard let upload = store.get(id) else { return try await writer.writeResponse(UploadTarget.head(.notFound, base)) }
            let (head, body) = UploadTarget.content(upload, extra: base)
            try await writer.write(response: head, body: body)
        default:
            try await writer.write(response: UploadTarget.head(.methodNotAllowed, base), body: UploadTarget.text("not allowed here\n"))
        }
    }

    private func state(_ upload: UploadStore.Upload, _ base: HTTPFields) -> HTTPFields {
        var fields = base
        fields[Self.offsetName] = "\(upload.offset)"
        if let length = upload.length { fields[Self.lengthName] = "\(length)" }
        if upload.complete { fields[Self.digestName] = UploadStore.reprDigest(upload) }
        return fields
    }
}
