import Crypto
import Foundation
import SondeCore

/// The partial file of a download, written only by appending, with the SHA-256 of its content
/// kept up to date as bytes arrive (the bytes are hashed once, on the way to the disk).
///
/// Invariant: `hasher` covers exactly bytes `0..<size` of the file.
final class PartialFile {
    let path: String
    private let descriptor: Int32
    private(set) var size: Int64
    private var hasher = SHA256()

    /// False when the existing content was not hashed (`sha256` is then nil).
    private let verifying: Bool

    /// Opens (creating) the file. With `verifying`, its existing content is hashed once, here:
    /// that is how a new process picks up a download that a killed one left.
    init(path: String, verifying: Bool = true) throws(TaskError) {
        self.verifying = verifying
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw TaskError(code: .localIOError, message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        size = 0
        guard verifying else {
            size = Int64(lseek(descriptor, 0, SEEK_END))
            return
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            size += Int64(count)
        }
    }

    deinit { close(descriptor) }

    /// Appends `bytes` at the end; a short write (disk full) throws and the file keeps what was written.
    func append(_ bytes: UnsafeRawBufferPointer) throws(TaskError) {
        var offset = 0
        while offset < bytes.count {
            let written = pwrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset, off_t(size))
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw TaskError(code: .localIOError, message: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            if verifying { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + written)])) }
            offset += written
            size += Int64(written)
        }
    }

    /// Empties the file: a restart from zero.
    func truncate() throws(TaskError) {
        guard ftruncate(descriptor, 0) == 0 else {
            throw TaskError(code: .localIOError, message: "cannot truncate \(path): \(String(cString: strerror(errno)))")
        }
        size = 0
        hasher = SHA256()
    }

    /// Lowercase hex SHA-256 of the content so far; nil when not verifying.
    var sha256: String? { verifying ? Self.hex(hasher.finalize()) : nil }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
