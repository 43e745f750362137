import Crypto
import Foundation
import SondeCore

/// The partial file of a download, written only by appending, with the SHA-256 of its content
/// kept up to date as bytes arrive (the bytes are hashed once, on the way to the disk).
///
/// Invariants: `size` counts the bytes written plus those still in memory (gathering, or handed
/// to the writing thread) until `flush` (the owner flushes before anyone else reads the file, and
/// before a planned kill); the hash (inline for what was on disk at open, then on the writing
/// thread) covers exactly the bytes written, so after a flush it covers `0..<size`.
final class PartialFile {
    let path: String
    private let descriptor: Int32
    private(set) var size: Int64
    /// The hash of the bytes read at open (inline); the writer continues it.
    private var hasher = SHA256()
    /// Writes (and hashes) every gathered buffer on its own thread; created at the first.
    private var writer: BackgroundWriter?

    /// False when the existing content was not hashed (`sha256` is then nil).
    private let verifying: Bool

    /// Opens (creating) the file. With `verifying`, its existing content is hashed once, here:
    /// that is how a new process picks up a download that a killed one left. Never opened
    /// through a symbolic link (`NoFollowFile.openOrCreate`).
    init(path: String, verifying: Bool = true) throws(TaskError) {
        self.verifying = verifying
        self.path = path
        descriptor = try NoFollowFile.openOrCreate(path)
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
        writer = nil  // its thread is idle after the flush, and ends before the descriptor closes
        close(descriptor)
    }

    /// Bytes appended but not yet written: coalesced into writes of `pendingLimit`, because the
    /// 16 KiB pieces libcurl hands over would cost a system call each.
    private var pending: [UInt8] = []
    private static let pendingLimit = 1 << 20

    /// Appends `bytes` at the end (handed to the writer when 1 MiB has gathered, or at `flush`).
    /// Throws a failed earlier write (disk full): `size` is then what the file holds.
    func append(_ bytes: UnsafeRawBufferPointer) throws(TaskError) {
        pending.append(contentsOf: bytes)
        size += Int64(bytes.count)
        guard pending.count >= Self.pendingLimit else { return }
        if writer?.hasFailed == true { try flush() } else { handOffPending() }
    }

    /// The bytes in the file now, at least (never waits: what the writing thread has written so
    /// far; at most `size`). For resume data saved during a transfer: a wait for the writing and
    /// hashing threads to finish there stalled the receive (up to 2 buffers to write and 2 to hash).
    var bytesWritten: Int64 {
        writer?.writtenEnd ?? size - Int64(pending.count)
    }

    /// Waits until everything appended is written; a short write (disk full) throws, and the file
    /// keeps what was written (neither `size` nor the hash counts the rest).
    func flush() throws(TaskError) {
        handOffPending()
        guard let writer else { return }
        let (writtenEnd, failure) = writer.drain()
        if let failure {
            size = writtenEnd
            throw failure
        }
    }

    /// Gives the gathered bytes to the writer (blocking only while it has 2 MiB queued) and takes
    /// a recycled buffer to gather into.
    private func handOffPending() {
        guard !pending.isEmpty else { return }
        let writer = self.writer ?? BackgroundWriter(descriptor: descriptor, path: path, writtenEnd: size - Int64(pending.count),
                                                     hasher: verifying ? hasher : nil)
        self.writer = writer
        writer.write(pending, at: size - Int64(pending.count))
        if let reused = writer.recycled() {
            pending = reused
        } else {
            pending = []
            pending.reserveCapacity(Self.pendingLimit + (16 << 10))  // libcurl's pieces are at most 16 KiB
        }
    }

    /// Empties the file: a restart from zero.
    func truncate() throws(TaskError) {
        pending.removeAll(keepingCapacity: true)
        if let writer { _ = writer.drain() }  // nothing may land after the truncation
        writer = nil
        guard ftruncate(descriptor, 0) == 0 else {
            throw TaskError(code: .localIOError, message: "cannot truncate \(path): \(String(cString: strerror(errno)))")
        }
        size = 0
        hasher = SHA256()
    }

    /// Lowercase hex SHA-256 of the content so far; nil when not verifying.
    var sha256: String? {
        guard verifying else { return nil }
        try? flush()
        return Self.hex(writer?.digest() ?? hasher.finalize())
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
