/// Escapes text for HTML element content and quoted attribute values.
/// Every string that reaches HTML goes through here: server headers, URLs, messages, names.
/// Control characters other than tab and newline are shown as numeric references, never passed through.
public func htmlEscape(_ text: String) -> String {
    escapeMarkup(text, apostrophe: "&#39;") { scalar in
        if scalar == "\n" || scalar == "\t" { return nil }
        return scalar.value < 0x20 || scalar.value == 0x7F ? "&#\(scalar.value);" : nil
    }
}

/// Escapes text for XML 1.0 element content and quoted attribute values (JUnit). XML 1.0 cannot
/// carry most control characters even as references, so they are written as visible `\u001b` text;
/// tab, newline and carriage return are kept (as references, since inside attributes a parser
/// would otherwise normalise them to spaces).
public func xmlEscape(_ text: String) -> String {
    // Most strings need nothing: return them as they are.
    if !text.utf8.contains(where: needsXMLEscape) { return text }
    return escapeMarkup(text, apostrophe: "&apos;") { scalar in
        switch scalar {
        case "\t", "\n", "\r": return "&#\(scalar.value);"
        default:
            guard scalar.value < 0x20 || scalar.value == 0x7F || (0xFFFE...0xFFFF).contains(scalar.value) else { return nil }
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }
}

/// Whether a UTF-8 byte may need `xmlEscape`: a control character, a markup character, or the
/// lead byte 0xEF of U+FFFE/U+FFFF (which XML 1.0 cannot carry). Text without one is left as it is.
func needsXMLEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == 0x7F || byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27 || byte == 0xEF
}

/// The five markup characters as entities, and `special` deciding (nil: keep) the rest.
private func escapeMarkup(_ text: String, apostrophe: String, special: (Unicode.Scalar) -> String?) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += apostrophe
        default:
            if let replacement = special(scalar) { result += replacement } else { result.unicodeScalars.append(scalar) }
        }
    }
    return result
}
