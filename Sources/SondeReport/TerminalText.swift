/// Makes text that came from outside the program safe to print on a terminal.
///
/// A server chooses its header values, close reasons, status lines and certificate names; a
/// capture file or a journal can hold any bytes. Printed raw, an ESC or CSI sequence in them moves
/// the cursor, rewrites the window title or hides lines, and a bidirectional override reorders
/// what the user reads. `sanitized` shows every such character as a visible escape instead:
/// C0 controls, DEL and C1 controls as `\x1B`, and the Unicode bidirectional embedding, override
/// and isolate controls as `\u{202E}`. Everything else, non-ASCII letters included, passes
/// unchanged, and text without any of these characters is returned as it is.
///
/// The renderers apply it to every string of data they print; their own colour codes are added
/// afterwards, so they are the only escape sequences that reach the terminal.
public enum TerminalText {
    /// `text` with its control characters shown as escapes. `keepingNewlines` lets `\n` through
    /// (for messages the program itself splits into lines); a tab is always kept.
    public static func sanitized(_ text: String, keepingNewlines: Bool = false) -> String {
        guard needsEscaping(text, keepingNewlines: keepingNewlines) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar, keepingNewlines: keepingNewlines) {
                result += scalar.value < 0x100 ? "\\x" + hex(scalar.value, digits: 2) : "\\u{" + hex(scalar.value, digits: 4) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The fast path: printable ASCII (and tab, and newline when kept) never needs a look at scalars.
    private static func needsEscaping(_ text: String, keepingNewlines: Bool) -> Bool {
        for byte in text.utf8 {
            if byte >= 0x20 && byte < 0x7F { continue }
            if byte == 0x09 || (byte == 0x0A && keepingNewlines) { continue }
            if byte < 0x80 { return true }
            // Non-ASCII: C1 controls and the bidi controls are multi-byte; decide per scalar.
            return text.unicodeScalars.contains { isUnsafe($0, keepingNewlines: keepingNewlines) }
        }
        return false
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x09: return false
        case 0x0A: return !keepingNewlines
        case 0x00..<0x20, 0x7F...0x9F: return true
        // LRE, RLE, PDF, LRO, RLO, and LRI, RLI, FSI, PDI (Unicode Standard Annex #9).
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
