import Crypto
import Foundation
import SondeCore

/// Writes a download's buffers to its file on one thread and hashes them (SHA-256) on another, so
/// that the thread receiving from libcurl only gathers bytes, and writing and hashing overlap.
/// On this 2-core machine a 1 GiB download into /dev/shm took about 0.9 s of CPU to write (the
/// copy into the page cache) and 0.75 s to hash; on one thread those 1.65 s were the trial's
/// critical path, longer than the receive (`perf`, 1 GiB from nginx). Split, each buffer is hashed
/// while the next one is written.
///
/// Invariants: buffers are written in the order handed over, each at its own offset, and are
/// contiguous; after a failed write nothing more is written (a later buffer would leave a hole)
/// until the owner has taken the failure (`drain`); the hash covers exactly the bytes written, in
/// order (a buffer reaches the hasher only after its write, with the count that was written).
/// At most `capacity` buffers wait for the write and `capacity` for the hash (`write` blocks
/// beyond that, so memory stays bounded: 2 each by default, about 7 MiB of buffers at most with the
/// owner's and the two in the threads' hands; 4 each took the process to 59.4 MiB peak RSS, against
/// the 60 MB limit of issue 32). Finished buffers come back emptied with their storage
/// kept (`recycled`): a fresh 1 MiB buffer per MiB cost an mmap, 256 page faults and an munmap.
///
/// Threading: the methods are called from one thread (the owner's). The threads end when this
/// object goes away; the owner keeps the file descriptor open until then.
final class BackgroundWriter {
    /// What the owner and the two threads share (the threads hold this, not the writer, so that
    /// the owner's release ends them).
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        /// Buffers to write, in order.
        var queue: [(bytes: [UInt8], offset: Int64)] = []
        /// Written buffers to hash, in order, with how many of their bytes were written.
        var hashQueue: [(bytes: [UInt8], count: Int)] = []
        /// Finished buffers, emptied with their capacity kept, for the owner to fill again.
        var free: [[UInt8]] = []
        /// The hash so far (nil while the hashing thread updates it, and when not hashing).
        var hasher: SHA256?
        /// Whether written bytes go on to be hashed.
        let hashes: Bool
        /// Whether the writing thread holds a buffer (taken from `queue`, not yet handed on).
        var writing = false
        /// Whether the hashing thread holds a buffer.
        var hashing = false
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
            hashes = hasher != nil
            self.capacity = capacity
        }

        /// Nothing handed over is still being written or hashed (call with `condition` locked).
        var isIdle: Bool { queue.isEmpty && !writing && hashQueue.isEmpty && !hashing }

        /// Keeps `bytes`' storage for the owner, up to a few buffers (call with `condition` locked).
        func recycle(_ bytes: inout [UInt8]) {
            bytes.removeAll(keepingCapacity: true)
            if free.count < capacity { free.append(bytes) }
        }
    }

    private let shared: Shared

    /// - Parameters:
    ///   - writtenEnd: where the file's content ends now (the first buffer is written there).
    ///   - hasher: the hash of the content up to `writtenEnd`, to continue; nil to hash nothing.
    init(descriptor: Int32, path: String, writtenEnd: Int64, hasher: SHA256?, capacity: Int = 2) {
        shared = Shared(descriptor: descriptor, path: path, writtenEnd: writtenEnd, hasher: hasher, capacity: max(1, capacity))
        Thread.startNamed("sonde-writer") { [shared] in Self.write(shared) }
        if hasher != nil {
            Thread.startNamed("sonde-hasher") { [shared] in Self.hash(shared) }
        }
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

    /// Where the bytes written so far end (never waits for the threads: a buffer being written
    /// counts once its write returned). What the file holds at least, for progress and resume data.
    var writtenEnd: Int64 {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.writtenEnd
    }

    /// An emptied buffer the threads have finished with, if one is waiting (never blocks).
    func recycled() -> [UInt8]? {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.free.popLast()
    }

    /// Waits until every buffer handed over is written and hashed (or dropped after a failure).
    /// Returns where the written bytes end, and the failure if one happened since the last drain
    /// (then cleared, so that writing can go on from `writtenEnd`).
    func drain() -> (writtenEnd: Int64, failure: TaskError?) {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        while !shared.isIdle { shared.condition.wait() }
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

    /// The writing thread: each buffer at its offset, then on to the hasher (or back to the owner).
    private static func write(_ shared: Shared) {
        shared.condition.lock()
        while true {
            while shared.queue.isEmpty && !shared.finished { shared.condition.wait() }
            if shared.queue.isEmpty { break }
            var (bytes, offset) = shared.queue.removeFirst()
            shared.writing = true
            let skip = shared.failure != nil
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
            }

            shared.condition.lock()
            if !skip {
                shared.writtenEnd = offset + Int64(written)
                if let failure { shared.failure = failure }
            }
            if shared.hashes && written > 0 {
                // What did not reach the file is not in it: the hash covers the bytes written only.
                while shared.hashQueue.count >= shared.capacity { shared.condition.wait() }
                shared.hashQueue.append((bytes, written))
            } else {
                shared.recycle(&bytes)
            }
            shared.writing = false
            shared.condition.broadcast()
        }
        shared.condition.unlock()
    }

    /// The hashing thread: the written bytes of each buffer, in the order they were written.
    private static func hash(_ shared: Shared) {
        shared.condition.lock()
        while true {
            while shared.hashQueue.isEmpty && !(shared.finished && shared.queue.isEmpty && !shared.writing) {
                shared.condition.wait()
            }
            if shared.hashQueue.isEmpty { break }
            var (bytes, count) = shared.hashQueue.removeFirst()
            shared.hashing = true
            var hasher = shared.hasher
            shared.hasher = nil  // (the one copy, so the update does not copy the state)
            shared.condition.broadcast()
            shared.condition.unlock()

            bytes.withUnsafeBytes { hasher?.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }

            shared.condition.lock()
            shared.hasher = hasher
            shared.recycle(&bytes)
            shared.hashing = false
            shared.condition.broadcast()
        }
        shared.condition.unlock()
    }
}
