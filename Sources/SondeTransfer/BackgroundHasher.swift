import Crypto
import Foundation

/// SHA-256 on a thread of its own, fed whole buffers through a bounded queue, so that hashing a
/// download overlaps receiving and writing it (inline, hashing cost about as much as the whole
/// transfer on this 2-core machine). At most `capacity` buffers wait; `update` blocks beyond that,
/// so memory stays bounded whatever the speeds. The thread ends when this object goes away.
///
/// Threading: `update` and `digest` are called from one thread (the owner's).
final class BackgroundHasher {
    /// What the owner and the hashing thread share (the thread holds this, not the hasher, so
    /// that the owner's release ends it).
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var queue: [[UInt8]] = []
        var hasher: SHA256
        var busy = false
        var finished = false
        init(_ hasher: SHA256) { self.hasher = hasher }
    }

    private let shared: Shared
    private let capacity: Int

    /// - Parameter seed: the state to continue from (the bytes hashed before).
    init(seed: SHA256 = SHA256(), capacity: Int = 4) {
        self.capacity = capacity
        shared = Shared(seed)
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
        while shared.queue.count >= capacity { shared.condition.wait() }
        shared.queue.append(buffer)
        shared.condition.broadcast()
        shared.condition.unlock()
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
            let buffer = shared.queue.removeFirst()
            shared.busy = true
            var local = shared.hasher
            shared.condition.broadcast()
            shared.condition.unlock()
            buffer.withUnsafeBytes { local.update(bufferPointer: $0) }
            shared.condition.lock()
            shared.hasher = local
            shared.busy = false
            shared.condition.broadcast()
        }
        shared.condition.unlock()
    }
}
