import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// The target's resumable-upload listener (HTTP/1.1), on its own port because the IETF draft's
/// `104 Upload Resumption Supported` is an informational response, which Hummingbird's router
/// cannot send: here the handler writes to the connection itself.
///
/// - `/ietf`: "Resumable Uploads for HTTP" (draft-ietf-httpbis-resumable-upload), interop versions
///   3 to 8 by `Upload-Draft-Interop-Version`: creation with POST (104 with Location, then 201),
///   offset retrieval with HEAD, append with PATCH (`application/partial-upload` from version 6),
///   cancellation with DELETE; `Upload-Incomplete` (version 3) or `Upload-Complete` (4 and later),
///   `Upload-Offset`, `Upload-Length`, `Upload-Limit` (6 and later), 409 with the current offset
///   on a mismatch, `Repr-Digest` of a completed upload.
/// - `/tus`: tus 1.0.0 core with the creation and termination extensions: OPTIONS, POST with
///   Upload-Length → 201 + Location, HEAD → Upload-Offset, PATCH with
///   `application/offset+octet-stream` → 204, 409/412/415/404 as the protocol says.
/// - `GET /ietf/{id}`, `GET /tus/{id}`: the bytes received so far (and `Repr-Digest` once complete).
///
/// Creation URLs take faults for that upload: `dropAt=X` (the connection is cut once byte X is
/// in, once) and `maxAppend=N` (advertised as `Upload-Limit: max-append-size`, enforced).
final class UploadTarget: Sendable {
    private let store: UploadStore

    init(directory: String) {
        store = UploadStore(directory: directory)
    }

    /// Serves until the task is cancelled.
    func run(logger: Logger, onRunning: @escaping @Sendable (any Channel) async -> Void) async throws {
        let service = try HTTPServerBuilder.http1().buildServer(
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "sonde-target"),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { [store] request, writer, channel in
                try await UploadTarget.respond(store: store, request: request, writer: writer, channel: channel)
            },
            onServerRunning: onRunning)
        try await service.run()
    }

    private static func respond(store: UploadStore, request: Request, writer: consuming ResponseWriter, channel: any Channel) async throws {
        let parts = request.uri.path.split(separator: "/").map(String.init)
        guard let first = parts.first, first == "ietf" || first == "tus", parts.count <= 2 else {
            return try await writer.write(response: head(.notFound), body: text("upload endpoints: /ietf, /tus\n"))
        }
        let id = parts.count == 2 ? parts[1] : nil
        if first == "ietf" {
            try await IETFUploadProtocol(store: store).respond(request, id: id, writer: writer, channel: channel)
        } else {
            try await TusUploadProtocol(store: store).respond(request, id: id, writer: writer, channel: channel)
        }
    }

    static func head(_ status: HTTPResponse.Status, _ fields: HTTPFields = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headerFields: fields)
    }

    static func text(_ value: String) -> ResponseBody {
        ResponseBody(byteBuffer: ByteBuffer(string: value))
    }

    /// Streams the upload's bytes so far (GET on an upload URL).
    static func content(_ upload: UploadStore.Upload, extra: HTTPFields) -> (HTTPResponse, ResponseBody) {
        var fields = extra
        fields[.contentType] = "application/octet-stream"
        fields[.contentLength] = String(upload.offset)
        if upload.complete, let name = HTTPField.Name("Repr-Digest") { fields[name] = UploadStore.reprDigest(upload) }
        let path = upload.path
        let length = upload.offset
        return (head(.ok, fields), ResponseBody(contentLength: Int(length)) { writer in
            guard let handle = FileHandle(forReadingAtPath: path) else { throw TargetAbort() }
            defer { try? handle.close() }
            var left = length
            while left > 0 {
                let data = handle.readData(ofLength: Int(min(left, 1 << 20)))
                guard !data.isEmpty else { throw TargetAbort() }
                try await writer.write(ByteBuffer(bytes: data))
                left -= Int64(data.count)
            }
            try await writer.finish(nil)
        })
    }

    /// Reads the request body into the claimed upload. Returns `.cut` when the upload's dropAt
    /// was reached (the connection is closed), `.lost` when the client went away mid-body.
    enum BodyResult { case received, cut, lost, tooLarge }
    static func receive(_ request: Request, into id: String, store: UploadStore, limit: Int64?, channel: any Channel) async -> BodyResult {
        guard let upload = store.get(id), let handle = FileHandle(forWritingAtPath: upload.path) else { return .lost }
        defer { try? handle.close() }
        do {
            try handle.seekToEnd()
            var received: Int64 = 0
            for try await buffer in request.body {
                received += Int64(buffer.readableBytes)
                if let limit, received > limit { return .tooLarge }
                let keepGoing = try buffer.withUnsafeReadableBytes { bytes in try store.append(id, bytes, handle: handle) }
                if !keepGoing {
                    try? await channel.close()
                    return .cut
                }
            }
            return .received
        } catch {
            return .lost
        }
    }
}
