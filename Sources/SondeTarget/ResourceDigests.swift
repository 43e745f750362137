import Crypto
import Foundation
import Synchronization

/// SHA-256 of whole deterministic bodies, for the `Repr-Digest` header (RFC 9530), computed once
/// per (length, version) and kept for the last few: a 1 GiB body costs about a second to hash.
final class ResourceDigests: Sendable {
    static let shared = ResourceDigests()
    private let cache = Mutex<[Key: String]>([:])
    private struct Key: Hashable { let length: Int; let version: Int }
    private static let capacity = 32

    /// `sha-256=:BASE64:` of body `version` of `length` bytes.
    func reprDigest(length: Int, version: Int) -> String {
        let key = Key(length: length, version: version % 26)
        if let known = cache.withLock({ $0[key] }) { return known }
        var hasher = SHA256()
        var offset = 0
        // One period of the pattern, rotated to the version, is all the content there is.
        let period = DeterministicBody.bytes(0..<(26 * 4096), version: key.version)
        while offset < length {
            let count = min(period.count, length - offset)
            period.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += count
        }
        let value = "sha-256=:" + Data(hasher.finalize()).base64EncodedString() + ":"
        cache.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[key] = value
        }
        return value
    }
}
