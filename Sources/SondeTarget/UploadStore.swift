import Crypto
import Foundation
import Synchronization

/// The target's resumable uploads: each one a file under `directory`, its offset (the bytes
/// received and kept, also from requests cut mid-body), its announced length, completeness and a
/// SHA-256 kept up to date as bytes arrive. One append at a time per upload (`busy`).
final class UploadStore: Sendable {
    struct Upload {
        var path: String
        var offset: Int64 = 0
        var length: Int64?
        var complete = false
        var busy = false
        var hasher = SHA256()
        /// Cut the connection once the offset reaches this byte (then forget it).
        var dropAt: Int64?
        /// The largest append the server accepts (`Upload-Limit: max-append-size`), nil for none.
        var maxAppend: Int64?
    }

    let directory: String
    private let uploads = Mutex<[String: Upload]>([:])
    /// The largest upload accepted, bytes.
    static let maxSize: Int64 = 1 << 31

    init(directory: String) {
        self.directory = directory
    }

    func create(length: Int64?, dropAt: Int64?, maxAppend: Int64?) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let id = UUID().uuidString.lowercased()
        let path = directory + "/" + id
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw TargetError("cannot create \(path)") }
        uploads.withLock { $0[id] = Upload(path: path, length: length, dropAt: dropAt, maxAppend: maxAppend) }
        return id
    }

    func get(_ id: String) -> Upload? { uploads.withLock { $0[id] } }

    /// Claims the upload for one append at `offset`: nil when it is unknown; `.conflict` with the
    /// current offset when the offset differs, the upload is complete, or another append runs.
    enum Claim { case unknown, conflict(Upload), claimed(Upload) }
    func claim(_ id: String, offset: Int64) -> Claim {
        uploads.withLock { all in
            guard var upload = all[id] else { return .unknown }
            guard !upload.busy, !upload.complete, upload.offset == offset else { return .conflict(upload) }
            upload.busy = true
            all[id] = upload
            return .claimed(upload)
        }
    }

    /// Appends received bytes (the caller holds the claim). Returns false when the upload's
    /// `dropAt` was reached: the caller cuts the connection.
    func append(_ id: String, _ bytes: UnsafeRawBufferPointer, handle: FileHandle) throws -> Bool {
        guard var upload = get(id) else { return false }
        var count = bytes.count
        var cut = false
        if let dropAt = upload.dropAt, upload.offset + Int64(count) >= dropAt {
            count = Int(max(0, dropAt - upload.offset))
            cut = true
        }
        if count > 0 {
            try handle.write(contentsOf: Data(bytes: bytes.baseAddress!, count: count))
            upload.hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            upload.offset += Int64(count)
        }
        if cut { upload.dropAt = nil }
        let updated = upload
        uploads.withLock { $0[id]?.offset = updated.offset; $0[id]?.hasher = updated.hasher; $0[id]?.dropAt = updated.dropAt }
        return !cut
    }

    /// Ends an append: releases the claim, and marks the upload complete when asked.
    func release(_ id: String, complete: Bool) -> Upload? {
        uploads.withLock { all in
            all[id]?.busy = false
            if complete { all[id]?.complete = true }
            return all[id]
        }
    }

    func remove(_ id: String) -> Bool {
        guard let upload = uploads.withLock({ $0.removeValue(forKey: id) }) else { return false }
        try? FileManager.default.removeItem(atPath: upload.path)
        return true
    }

    /// `sha-256=:BASE64:` of everything received so far.
    static func reprDigest(_ upload: Upload) -> String {
        "sha-256=:" + Data(upload.hasher.finalize()).base64EncodedString() + ":"
    }
}
