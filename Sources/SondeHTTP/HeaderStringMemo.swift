#if canImport(Glibc)
import Glibc
#endif

/// The strings of a handle's response header fields, kept by position from one response to the
/// next: a run's responses from one server repeat the same names and mostly the same values
/// (`Server`, `Content-Type`, `ETag`, the `Date` of the same second), and a field whose bytes are the
/// same as the one at its position last time reuses that string instead of decoding and
/// allocating a new one (on the engine's thread) that the recorder's thread then frees.
///
/// Invariant: `string(_:slot:)` returns a string equal to `String(decoding: bytes, as: UTF8.self)`.
/// At most `capacity` slots are kept, so memory stays bounded whatever the server sends.
/// Threading: confined to its `EasyHandle`'s thread.
struct HeaderStringMemo {
    /// Slots kept: a name and a value for each of the first 32 fields of a response.
    static let capacity = 64
    private var strings: [String] = []

    /// The string of `bytes` at `slot` (a field's name at 2 × its index, its value at 2 × index + 1).
    mutating func string(_ bytes: UnsafeRawBufferPointer, slot: Int) -> String {
        if slot >= 0 && slot < strings.count && Self.same(strings[slot], bytes) { return strings[slot] }
        let made = String(decoding: bytes, as: UTF8.self)
        if slot >= 0 && slot < strings.count {
            strings[slot] = made
        } else if slot == strings.count && slot < Self.capacity {
            strings.append(made)
        }
        return made
    }

    /// Whether `string`'s UTF-8 is exactly `bytes` (a string decoded with repairs never is).
    private static func same(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard string.utf8.count == bytes.count else { return false }
        guard let start = bytes.baseAddress, bytes.count > 0 else { return true }
        return string.utf8.withContiguousStorageIfAvailable { stored in
            guard let storedStart = stored.baseAddress else { return false }
            return memcmp(storedStart, start, bytes.count) == 0
        } ?? string.utf8.elementsEqual(bytes)
    }
}
