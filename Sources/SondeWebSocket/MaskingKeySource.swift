#if canImport(Glibc)
import Glibc
#endif
import NIOWebSocket

/// The masking keys of the frames a client sends (RFC 6455 §5.3: each frame's key unpredictable,
/// "derived from a strong source of entropy"), from the system's CSPRNG 32 at a time:
/// `WebSocketMaskingKey.random()` asks the kernel (a `getrandom` system call) for every frame.
/// A random number generator over 256 bytes from `getentropy`, refilled when used up; a failed
/// `getentropy` falls back to `SystemRandomNumberGenerator` for that refill.
///
/// Threading: not thread-safe; one per event loop (the loop's `KeepaliveClock` holds it).
struct MaskingKeySource: RandomNumberGenerator {
    private var words = [UInt64](repeating: 0, count: 32)
    private var nextIndex = 32

    /// A fresh masking key.
    mutating func key() -> WebSocketMaskingKey {
        WebSocketMaskingKey.random(using: &self)
    }

    mutating func next() -> UInt64 {
        if nextIndex == words.count { refill() }
        defer { nextIndex += 1 }
        return words[nextIndex]
    }

    private mutating func refill() {
        let status = words.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) }
        if status != 0 {
            var system = SystemRandomNumberGenerator()
            for index in words.indices { words[index] = system.next() }
        }
        nextIndex = 0
    }
}
