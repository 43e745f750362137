import Crypto
import Foundation

/// SHA-256 on a thread of its own, fed whole buffers through a bounded queue, so that hashing a
/// download overlaps receiving and writing it (inline, hashing cost about as much as the whole
/// transfer on this 2-core machine). At most `capacity` buffers wait; `update` blocks beyond that,
/// so memory stays bounded whatever the speeds. Hashed buffers come back emptied, their storage
/// kept (`recycled`): a fresh 1 MiB buffer per MiB cost an mmap, 256 page faults and an munmap.
/// The thread ends when this object goes away.
///
/// Threading: `update` and `digest` are called from one thread (the owner's).
final class BackgroundHasher {
    /// What the owner and the hashing thread share (the thread holds this, not the hasher, so
    /// that the owner's release ends it).
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var queue: [[UInt8]] = []
        /// Hashed buffers, emptied with their capacity kept, for the owner to fill again.
        var free: [[UInt8]] = []
        var hasher: SHA256
        var busy = false
        var finished = false
        /// Most buffers waiting in `queue`, and most kept in `free`.
        let capacity: Int
        init(_ hasher: SHA256, capacity: Int) {
            self.hasher = hasher
            self.capacity = capacity
        }
    }

    private let shared: Shared

    /// - Parameter seed: the state to continue from (the bytes hashed before).
    init(seed: SHA256 = SHA256(), capacity: Int = 4) {
        shared = Shared(seed, capacity: capacity)
        let thread = Thread { [shared] in Self.work(shared) }
        thread.name = "sonde-sha256"
        thread.start()
    }

    deinit {
        shared.condition.lock()
        shared.finished = true
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// Hands `buffer` over (the caller gives it up).
    func update(_ buffer: [UInt8]) {
        shared.condition.lock()
        while shared.queue.count >= shared.capacity { shared.condition.wait() }
        shared.queue.append(buffer)
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// An emptied buffer the thread has finished with, if one is waiting (never blocks).
    func recycled() -> [UInt8]? {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.free.popLast()
    }

    /// The digest of everything handed over so far (waits for the queue to drain).
    func digest() -> SHA256.Digest {
        shared.condition.lock()
        while !shared.queue.isEmpty || shared.busy { shared.condition.wait() }
        let result = shared.hasher.finalize()
        shared.condition.unlock()
        return result
    }

    private static func work(_ shared: Shared) {
        shared.condition.lock()
        while true {
            while shared.queue.isEmpty && !shared.finished { shared.condition.wait() }
            if shared.queue.isEmpty { break }
            var buffer = shared.queue.removeFirst()
            shared.busy = true
            var local = shared.hasher
            shared.condition.broadcast()
            shared.condition.unlock()
            buffer.withUnsafeBytes { local.update(bufferPointer: $0) }
            buffer.removeAll(keepingCapacity: true)
            shared.condition.lock()
            shared.hasher = local
            if shared.free.count < shared.capacity { shared.free.append(buffer) }
            shared.busy = false
            shared.condition.broadcast()
        }
        shared.condition.unlock()
    }
}
