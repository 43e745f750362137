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
