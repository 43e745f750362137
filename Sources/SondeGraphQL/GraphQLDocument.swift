/// What sonde reads of a GraphQL document without parsing it: the name of its first operation
/// (GraphQL, October 2021, 2.3 Operations and 2.1 Source Text). Top-level definitions are found
/// by brace depth; strings (`"…"`, block strings `"""…"""`) and comments (`#` to the end of the
/// line) are skipped, so braces and keywords in them do not count.
public enum GraphQLDocument {
    /// The name of the document's first operation (`query Name`, `mutation Name`, `subscription
    /// Name`), or nil when it is anonymous (`{ … }`, `query { … }`) or there is none. Fragment
    /// definitions before it are skipped.
    public static func firstOperationName(in document: String) -> String? {
        let tokens = topLevelWords(document)
        // Each definition ends with its selection set: a `{` at depth 0 that begins none is the shorthand.
        var atDefinitionStart = true
        for (index, word) in tokens.enumerated() {
            switch word {
            case "{" where atDefinitionStart: return nil  // the shorthand: an anonymous query
            case "{": atDefinitionStart = true
            case "query", "mutation", "subscription" where atDefinitionStart:
                let next = index + 1 < tokens.count ? tokens[index + 1] : ""
                return isName(next) ? next : nil
            default: atDefinitionStart = false
            }
        }
        return nil
    }

    /// Whether `text` is a GraphQL name: `[_A-Za-z][_0-9A-Za-z]*`.
    public static func isName(_ text: String) -> Bool {
        guard let first = text.utf8.first, isNameStart(first) else { return false }
        return text.utf8.allSatisfy { isNameStart($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
    }

    /// The names and punctuators at brace depth 0, in order (each `{` at depth 0 is one entry,
    /// whatever the braces hold; commas and white space are ignored). Linear in the document's size.
    static func topLevelWords(_ document: String) -> [String] {
        let bytes = Array(document.utf8)
        var words: [String] = []
        var depth = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "#"):
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") && bytes[index] != UInt8(ascii: "\r") { index += 1 }
            case UInt8(ascii: "\""):
                index = endOfString(bytes, from: index)
                continue
            case UInt8(ascii: "{"):
                if depth == 0 { words.append("{") }
                depth += 1
            case UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            case _ where isNameStart(byte):
                let start = index
                while index < bytes.count && (isNameStart(bytes[index]) || (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9"))) {
                    index += 1
                }
                if depth == 0 { words.append(String(decoding: bytes[start..<index], as: UTF8.self)) }
                continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","), 0xEF, 0xBB, 0xBF:
                break  // white space, commas and a byte order mark
            default:
                if depth == 0 { words.append(String(UnicodeScalar(byte))) }
            }
            index += 1
        }
        return words
    }

    /// The index just past the string that starts at `start` (a `"` or `"""`), or the end.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        let quote = UInt8(ascii: "\"")
        let block = start + 2 < bytes.count && bytes[start + 1] == quote && bytes[start + 2] == quote
        var index = start + (block ? 3 : 1)
        while index < bytes.count {
            if block {
                if bytes[index] == UInt8(ascii: "\\") && index + 3 < bytes.count && bytes[index + 1] == quote
                    && bytes[index + 2] == quote && bytes[index + 3] == quote { index += 4; continue }
                if bytes[index] == quote && index + 2 < bytes.count && bytes[index + 1] == quote && bytes[index + 2] == quote { return index + 3 }
            } else {
                if bytes[index] == UInt8(ascii: "\\") { index += 2; continue }
                if bytes[index] == quote || bytes[index] == UInt8(ascii: "\n") { return index + 1 }
            }
            index += 1
        }
        return bytes.count
    }
}
