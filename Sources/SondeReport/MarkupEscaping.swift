/// Escapes text for HTML element content and quoted attribute values.
/// Every string that reaches HTML goes through here: server headers, URLs, messages, names.
public func htmlEscape(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&#39;"
        default:
            // Control characters other than tab/newline are shown as code points, never passed through.
            if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" || scalar.value == 0x7F {
                result += "&#\(scalar.value);"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result
}

/// Escapes text for XML 1.0 element content and quoted attribute values (JUnit). XML 1.0 cannot
/// carry most control characters even as references, so they are written as visible `\u001b` text;
/// tab, newline and carriage return are kept (as references inside attributes, where a parser
/// would otherwise normalise them to spaces).
public func xmlEscape(_ text: String) -> String {
    // Most strings need nothing: return them as they are.
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 == 0xEF }) {
        return text
    }
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&apos;"
        case "\t": result += "&#9;"
        case "\n": result += "&#10;"
        case "\r": result += "&#13;"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F || (0xFFFE...0xFFFF).contains(scalar.value) {
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result
}
