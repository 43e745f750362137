import Crypto
import Foundation
import SondeCore

/// The partial file of a download, written only by appending, with the SHA-256 of its content
/// kept up to date as bytes arrive (the bytes are hashed once, on the way to the disk).
///
/// Invariants: `size` counts the bytes written plus the `pending` ones still in memory until
/// `flush` (the owner flushes before anyone else reads the file, and before a planned kill); the
/// hash (inline for what was on disk at open, then on the hashing thread) covers exactly the
/// bytes written, so after a flush it covers `0..<size`.
final class PartialFile {
    let path: String
    private let descriptor: Int32
    private(set) var size: Int64
    /// Hashes the bytes read at open (inline), then every flushed buffer (on its own thread).
    private var hasher = SHA256()
    private var background: BackgroundHasher?

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

    deinit {
        try? flush()
        close(descriptor)
    }

    /// Bytes appended but not yet written: coalesced into writes of `pendingLimit`, because the
    /// 16 KiB pieces libcurl hands over would cost a system call each.
    private var pending: [UInt8] = []
    private static let pendingLimit = 1 << 20

    /// Appends `bytes` at the end (written, then hashed, when 1 MiB has gathered or at `flush`).
    func append(_ bytes: UnsafeRawBufferPointer) throws(TaskError) {
        pending.append(contentsOf: bytes)
        size += Int64(bytes.count)
        if pending.count >= Self.pendingLimit { try flush() }
    }

    /// Writes what `append` gathered; a short write (disk full) throws, and the file keeps what was written.
    func flush() throws(TaskError) {
        guard !pending.isEmpty else { return }
        let start = size - Int64(pending.count)
        var offset = 0
        var failure: TaskError? = nil
        while offset < pending.count {
            let written = pending.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + offset, $0.count - offset, off_t(start) + off_t(offset)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                failure = TaskError(code: .localIOError, message: "cannot write \(path): \(String(cString: strerror(errno)))")
                break
            }
            offset += written
        }
        // What did not reach the file is not in it: neither the size nor the hash counts it.
        if offset < pending.count {
            size = start + Int64(offset)
            pending.removeSubrange(offset...)
        }
        if verifying && !pending.isEmpty {
            // The written buffer goes to the hashing thread; a fresh one gathers the next bytes.
            if background == nil { background = BackgroundHasher(seed: hasher) }
            background?.update(pending)
            if let reused = background?.recycled() {
                pending = reused
            } else {
                pending = []
                pending.reserveCapacity(Self.pendingLimit + (1 << 18))
            }
        } else {
            pending.removeAll(keepingCapacity: true)
        }
        if let failure { throw failure }
    }

    /// Empties the file: a restart from zero.
    func truncate() throws(TaskError) {
        pending.removeAll(keepingCapacity: true)
        guard ftruncate(descriptor, 0) == 0 else {
            throw TaskError(code: .localIOError, message: "cannot truncate \(path): \(String(cString: strerror(errno)))")
        }
        size = 0
        hasher = SHA256()
        background = nil
    }

    /// Lowercase hex SHA-256 of the content so far; nil when not verifying.
    var sha256: String? {
        guard verifying else { return nil }
        try? flush()
        return Self.hex(background?.digest() ?? hasher.finalize())
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
