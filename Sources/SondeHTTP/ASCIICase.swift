/// Whether `text` equals `lowercaseASCII` when ASCII letters are compared without case (HTTP field
/// names, RFC 9110 5.1), without building a lowercased copy. `lowercaseASCII` must be lowercase
/// ASCII; only the letters A–Z of `text` are folded, so any other byte must match exactly.
func asciiCaseInsensitiveEqual(_ text: String, _ lowercaseASCII: StaticString) -> Bool {
    lowercaseASCII.withUTF8Buffer { expected in
        guard text.utf8.count == expected.count else { return false }
        for (byte, wanted) in zip(text.utf8, expected) {
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if folded != wanted { return false }
        }
        return true
    }
}
