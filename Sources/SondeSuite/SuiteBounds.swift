/// Where in a suite's text `BoundedYAML.checkExpansion` gives up (an alias bomb, nesting too deep):
/// the shortest prefix of the text that already fails the same check ends in the token that
/// crossed the bound. libyaml reads a stream front to back, so a prefix yields the same events as
/// the whole text up to its end, and the node count and depth only grow with the prefix: a binary
/// search over the prefix length finds that token in about log2(length) bounded passes (each pass
/// stops at the bound, as the full check does).
enum SuiteBounds {
    /// The line and column (1-based, in Unicode scalars) of the token at which `text` fails the
    /// bounds, or nil when the whole text passes them.
    static func place(ofFailureIn text: String, what: String) -> (line: Int, column: Int)? {
        let bytes = Array(text.utf8)
        func fails(_ length: Int) -> Bool {
            do throws(BoundedYAML.Problem) {
                try BoundedYAML.checkExpansion(String(decoding: bytes[0..<length], as: UTF8.self), what: what)
                return false
            } catch {
                return true
            }
        }
        guard fails(bytes.count) else { return nil }
        // Invariant: the prefix of `high` bytes fails, the prefix of `low` bytes passes.
        var low = 0
        var high = bytes.count
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if fails(middle) { high = middle } else { low = middle }
        }
        // Back from the token's last byte to its first (an alias's `*`, a collection's `[`).
        var start = high - 1
        let separators: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x5B, 0x7B, 0x2C]  // space tab LF CR [ { ,
        if !separators.contains(bytes[start]) {
            while start > 0 && !separators.contains(bytes[start - 1]) { start -= 1 }
        }
        return position(of: start, in: bytes)
    }

    /// The 1-based line and column (in Unicode scalars) of byte `offset`.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[0..<offset] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}
