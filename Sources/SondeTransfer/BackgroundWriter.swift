import Crypto
import Foundation
import SondeCore

/// Writes a download's buffers to its file and hashes them (SHA-256) on a thread of its own, so
/// that the thread receiving from libcurl only gathers bytes. On this 2-core machine that thread
/// is a download's critical path: with the write on it, it was busy 75–88 % of a transfer while
/// the hashing thread was busy about half of it (`perf`, 1 GiB from nginx into /dev/shm), and the
/// write's copy into the page cache alone was about a quarter of its time.
///
/// Invariants: buffers are written in the order handed over, each at its own offset, and are
/// contiguous; after a failed write nothing more is written (a later buffer would leave a hole)
/// until the owner has taken the failure (`drain`); the hash covers exactly the bytes written, in
/// order. At most `capacity` buffers wait (`write` blocks beyond that, so memory stays bounded).
/// Written buffers come back emptied with their storage kept (`recycled`): a fresh 1 MiB buffer
/// per MiB cost an mmap, 256 page faults and an munmap.
///
/// Threading: the methods are called from one thread (the owner's). The thread ends when this
/// object goes away; the owner keeps the file descriptor open until then.
final class BackgroundWriter {
    /// What the owner and the writing thread share (the thread holds this, not the writer, so
    /// that the owner's release ends it).
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var queue: [(bytes: [UInt8], offset: Int64)] = []
        /// Written buffers, emptied with their capacity kept, for the owner to fill again.
        var free: [[UInt8]] = []
        var hasher: SHA256?
        var busy = false
        var finished = false
        /// The end offset of the bytes written so far.
        var writtenEnd: Int64
        /// The first failed write since the owner last drained.
        var failure: TaskError?
        let descriptor: Int32
        let path: String
        let capacity: Int

        init(descriptor: Int32, path: String, writtenEnd: Int64, hasher: SHA256?, capacity: Int) {
            self.descriptor = descriptor
            self.path = path
            self.writtenEnd = writtenEnd
            self.hasher = hasher
            self.capacity = capacity
        }
    }

    private let shared: Shared

    /// - Parameters:
    ///   - writtenEnd: where the file's content ends now (the first buffer is written there).
    ///   - hasher: the hash of the content up to `writtenEnd`, to continue; nil to hash nothing.
    init(descriptor: Int32, path: String, writtenEnd: Int64, hasher: SHA256?, capacity: Int = 4) {
        shared = Shared(descriptor: descriptor, path: path, writtenEnd: writtenEnd, hasher: hasher, capacity: max(1, capacity))
        let thread = Thread { [shared] in Self.work(shared) }
        thread.name = "sonde-writer"
        thread.start()
    }

    deinit {
        shared.condition.lock()
        shared.finished = true
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// Whether a write failed since the last `drain` (never blocks).
    var hasFailed: Bool {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.failure != nil
    }

    /// Hands `bytes` over, to be written at `offset` (the caller gives the buffer up).
    func write(_ bytes: [UInt8], at offset: Int64) {
        shared.condition.lock()
        while shared.queue.count >= shared.capacity { shared.condition.wait() }
        shared.queue.append((bytes, offset))
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// An emptied buffer the thread has finished with, if one is waiting (never blocks).
    func recycled() -> [UInt8]? {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.free.popLast()
    }

    /// Waits until every buffer handed over is written (or dropped after a failure). Returns where
    /// the written bytes end, and the failure if one happened since the last drain (then cleared,
    /// so that writing can go on from `writtenEnd`).
    func drain() -> (writtenEnd: Int64, failure: TaskError?) {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        while !shared.queue.isEmpty || shared.busy { shared.condition.wait() }
        let failure = shared.failure
        shared.failure = nil
        return (shared.writtenEnd, failure)
    }

    /// The digest of every byte written (drains first); nil when not hashing.
    func digest() -> SHA256.Digest? {
        _ = drain()
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.hasher?.finalize()
    }

    private static func work(_ shared: Shared) {
        shared.condition.lock()
        while true {
            while shared.queue.isEmpty && !shared.finished { shared.condition.wait() }
            if shared.queue.isEmpty { break }
            var (bytes, offset) = shared.queue.removeFirst()
            shared.busy = true
            let skip = shared.failure != nil
            var hasher = shared.hasher
            shared.condition.broadcast()
            shared.condition.unlock()

            var written = 0
            var failure: TaskError? = nil
            if !skip {
                while written < bytes.count {
                    let count = bytes.withUnsafeBytes {
                        pwrite(shared.descriptor, $0.baseAddress! + written, $0.count - written, off_t(offset) + off_t(written))
                    }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else {
                        failure = TaskError(code: .localIOError, message: "cannot write \(shared.path): \(String(cString: strerror(errno)))")
                        break
                    }
                    written += count
                }
                // What did not reach the file is not in it: the hash covers the bytes written only.
                if written > 0 {
                    bytes.withUnsafeBytes { hasher?.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<written])) }
                }
            }
            bytes.removeAll(keepingCapacity: true)

            shared.condition.lock()
            if !skip {
                shared.hasher = hasher
                shared.writtenEnd = offset + Int64(written)
                if let failure { shared.failure = failure }
            }
            if shared.free.count < shared.capacity { shared.free.append(bytes) }
            shared.busy = false
            shared.condition.broadcast()
        }
        shared.condition.unlock()
    }
}
