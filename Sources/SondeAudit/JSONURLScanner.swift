import SondeCore

/// The http and https URLs among a JSON document's string values, each with its path
/// (`$.items[3].url`), in document order. Pure. Reads with `JSONReader` (strict RFC 8259); a
/// document that does not parse (not JSON, or cut at the body bound) gives an error and the
/// caller falls back to a text scan (`textURLs`).
///
/// Bounds: at most `maxStrings` string values are looked at (the walk stops there and says so in
/// `Scan.capped`), nesting deeper than `maxDepth` is not entered (counted in `Scan.tooDeep`), a
/// string longer than `maxURLLength` is not a URL. Which URLs are kept is the caller's choice
/// (`HandedOutURLs`): the scan itself keeps every URL it meets.
enum JSONURLScanner {
    static let maxDepth = 32
    static let maxURLLength = 4096
    /// The most string values (JSON) or URL-like matches (text) one scan looks at: far more than
    /// any bound of `app-review-urls`, so that other sites' URLs do not hide later ones.
    static let maxStrings = 20_000

    struct Found: Sendable, Equatable {
        var path: String
        var url: String
    }

    /// What a scan found, and where it stopped short.
    struct Scan: Sendable, Equatable {
        var found: [Found] = []
        /// The scan stopped at `maxStrings` (or the caller's cap): there may be more URLs after it.
        var capped = false
        /// Values (arrays or objects) nested deeper than `maxDepth`, not searched.
        var tooDeep = 0
    }

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

    /// The URLs of `bytes` as a JSON document (looking at most at `maxStrings` strings), or why it is not one.
    static func urls(in bytes: [UInt8], maxStrings: Int = Self.maxStrings) -> Result<Scan, Problem> {
        var scan = Scan()
        var strings = 0
        do throws(JSONReadError) {
            var reader = JSONReader(bytes)
            let range = try reader.readRawValue()
            guard reader.isAtEnd() else { return .failure(.trailingText(at: range.upperBound)) }
            try walk(Array(bytes[range]), path: "$", depth: 0, maxStrings: max(0, maxStrings), strings: &strings, into: &scan)
        } catch {
            return .failure(.unreadable(error))
        }
        return .success(scan)
    }

    /// One value (`bytes` is exactly it): a string is kept when it is a URL, an object's members
    /// and an array's elements are walked in order.
    private static func walk(_ bytes: [UInt8], path: String, depth: Int, maxStrings: Int, strings: inout Int, into scan: inout Scan) throws(JSONReadError) {
        guard !scan.capped, let first = bytes.first else { return }
        if depth >= maxDepth {
            if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { scan.tooDeep += 1 }
            return
        }
        var reader = JSONReader(bytes)
        switch first {
        case UInt8(ascii: "\""):
            guard strings < maxStrings else {
                scan.capped = true
                return
            }
            strings += 1
            guard bytes.count <= maxURLLength + 2 else { return }
            let text = try reader.readString()
            if isHTTPURL(text) { scan.found.append(Found(path: path, url: text)) }
        case UInt8(ascii: "{"):
            try reader.readObject { (member: inout JSONReader, key: JSONKey) throws(JSONReadError) in
                let range = try member.readRawValue()
                try walk(Array(bytes[range]), path: path + Self.member(key.description), depth: depth + 1, maxStrings: maxStrings, strings: &strings, into: &scan)
            }
        case UInt8(ascii: "["):
            var index = 0
            try reader.readArray { (element: inout JSONReader) throws(JSONReadError) in
                let range = try element.readRawValue()
                try walk(Array(bytes[range]), path: path + "[\(index)]", depth: depth + 1, maxStrings: maxStrings, strings: &strings, into: &scan)
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
    /// order; at most `maxStrings` URL-like matches are looked at (`capped` then).
    static func textURLs(in text: String, maxStrings: Int = Self.maxStrings) -> (urls: [String], capped: Bool) {
        var found: [String] = []
        var seen: Set<String> = []
        var looked = 0
        let pattern = /(?i)\bhttps?:\/\/[^\s"'<>\\]+/
        for match in text.matches(of: pattern) {
            guard looked < maxStrings else { return (found, true) }
            looked += 1
            // Sentence punctuation after a URL is not part of it.
            var url = String(match.output)
            while let last = url.last, ",.;:!?)]}".contains(last) { url.removeLast() }
            guard isHTTPURL(url), seen.insert(url).inserted else { continue }
            found.append(url)
        }
        return (found, false)
    }
}
