import SondeCore

/// The http and https URLs among a JSON document's string values, each with its path
/// (`$.items[3].url`), in document order. Pure. Reads with `JSONReader` (strict RFC 8259); a
/// document that does not parse (not JSON, or cut at the body bound) gives an error and the
/// caller falls back to a text scan (`textURLs`).
///
/// Bounds: at most `limit` URLs are returned (the walk stops there), nesting deeper than
/// `maxDepth` is not entered, a string longer than `maxURLLength` is not a URL.
enum JSONURLScanner {
    static let maxDepth = 32
    static let maxURLLength = 4096

    struct Found: Sendable, Equatable {
        var path: String
        var url: String
    }

    /// The URLs of `bytes` as a JSON document, or why it is not one.
    /// Why a body is not one JSON document.
    enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case unreadable(JSONReadError)
        case trailingText(at: Int)

        var description: String {
            switch self {
            case .unreadable(let error): error.description
            case .trailingText(let offset): "JSON at byte \(offset): text after the value"
            }
        }
    }

    static func urls(in bytes: [UInt8], limit: Int) -> Result<[Found], Problem> {
        var found: [Found] = []
        guard limit > 0 else { return .success([]) }
        do throws(JSONReadError) {
            var reader = JSONReader(bytes)
            let range = try reader.readRawValue()
            guard reader.isAtEnd() else { return .failure(.trailingText(at: range.upperBound)) }
            try walk(Array(bytes[range]), path: "$", depth: 0, limit: limit, into: &found)
        } catch {
            return .failure(.unreadable(error))
        }
        return .success(found)
    }

    /// One value (`bytes` is exactly it): a string is kept when it is a URL, an object's members
    /// and an array's elements are walked in order.
    private static func walk(_ bytes: [UInt8], path: String, depth: Int, limit: Int, into found: inout [Found]) throws(JSONReadError) {
        guard found.count < limit, depth < maxDepth, let first = bytes.first else { return }
        var reader = JSONReader(bytes)
        switch first {
        case UInt8(ascii: "\""):
            guard bytes.count <= maxURLLength + 2 else { return }
            let text = try reader.readString()
            if isHTTPURL(text) { found.append(Found(path: path, url: text)) }
        case UInt8(ascii: "{"):
            try reader.readObject { (member: inout JSONReader, key: JSONKey) throws(JSONReadError) in
                let range = try member.readRawValue()
                try walk(Array(bytes[range]), path: path + Self.member(key.description), depth: depth + 1, limit: limit, into: &found)
            }
        case UInt8(ascii: "["):
            var index = 0
            try reader.readArray { (element: inout JSONReader) throws(JSONReadError) in
                let range = try element.readRawValue()
                try walk(Array(bytes[range]), path: path + "[\(index)]", depth: depth + 1, limit: limit, into: &found)
                index += 1
            }
        default:
            return
        }
    }

    /// `.name` for an identifier-like key, `["key"]` otherwise (JSONPath's two forms).
    private static func member(_ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "-") }
        if plain { return "." + key }
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "[\"\(escaped.prefix(64))\"]"
    }

    /// Whether `text` is an absolute http(s) URL with a host (nothing around it).
    static func isHTTPURL(_ text: String) -> Bool {
        guard text.count <= maxURLLength else { return false }
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        guard !text.contains(where: { $0.isWhitespace }) else { return false }
        return (try? Auditor.parse(text)) != nil
    }

    /// The http(s) URLs in text that is not a JSON document (a cut body, HTML), each once, in
    /// order, at most `limit`.
    static func textURLs(in text: String, limit: Int) -> [String] {
        var found: [String] = []
        guard limit > 0 else { return [] }
        let pattern = /(?i)\bhttps?:\/\/[^\s"'<>\\]+/
        for match in text.matches(of: pattern) {
            // Sentence punctuation after a URL is not part of it.
            var url = String(match.output)
            while let last = url.last, ",.;:!?)]}".contains(last) { url.removeLast() }
            guard isHTTPURL(url), !found.contains(url) else { continue }
            found.append(url)
            if found.count >= limit { break }
        }
        return found
    }
}
