/// Removes secrets from URLs, headers and command lines before they reach any output.
///
/// Redacted by default: the Authorization, Proxy-Authorization, Cookie and Set-Cookie headers,
/// any header or query (or fragment) parameter whose name looks secret (token, key, secret,
/// password, sig, signature, auth, …, plus `extraNames`), and the password of a URL's user-info,
/// in URLs and in the URLs that headers carry (Location, Content-Location, Refresh, Link, Referer:
/// a redirect to `/ok?token=…` must not put the token in a report).
/// `Redactor.disabled` (from `--no-redact`) passes everything through; reports record that choice.
public struct Redactor: Sendable {
    /// The text that replaces a secret.
    public static let mask = "REDACTED"

    public let isEnabled: Bool
    private let secretWords: Set<String>
    /// `secretWords` as UTF-8, for the allocation-free comparisons on the per-transaction path.
    private let secretWordBytes: [[UInt8]]
    private static let secretHeaderBytes: [[UInt8]] = secretHeaders.map { Array($0.utf8) }
    private static let secretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    /// Headers whose values hold URLs (RFC 9110 Location and Content-Location, Referer; Refresh's
    /// `5; url=…`; RFC 8288 Link's `<…>`): each URL in them goes through `redact(url:)`.
    private static let urlHeaderBytes: [[UInt8]] = ["location", "content-location", "refresh", "link", "referer"]
        .map { Array($0.utf8) }

    /// What redaction does to a header's value.
    public enum HeaderTreatment: Sendable {
        /// Kept as it is.
        case keep
        /// Replaced by `mask`: the header is a secret.
        case mask
        /// Each URL in it redacted (`redact(urlsIn:)`).
        case redactURLs
    }
    private static let defaultWords: Set<String> = [
        "token", "key", "secret", "password", "passwd", "pwd", "sig", "signature", "auth", "apikey",
        "credential", "credentials", "session", "sessionid", "jwt", "bearer", "accesstoken", "refreshtoken",
    ]
    /// Substrings that mark a name as secret wherever they appear in it.
    private static let secretFragments: [[UInt8]] = ["token", "secret", "password", "signature", "apikey", "api_key", "credential"]
        .map { Array($0.utf8) }

    public init(enabled: Bool = true, extraNames: [String] = []) {
        self.isEnabled = enabled
        self.secretWords = Self.defaultWords.union(extraNames.map { $0.lowercased() })
        self.secretWordBytes = secretWords.map { Array($0.utf8) }
    }

    public static let disabled = Redactor(enabled: false)

    /// True when a header or parameter called `name` carries a secret.
    public func isSecret(name: String) -> Bool {
        guard isEnabled else { return false }
        return withLowercased(name) { isSecret(lowercased: $0) }
    }

    /// What redaction does to the value of a header called `name`.
    public func treatment(ofHeader name: String) -> HeaderTreatment {
        guard isEnabled else { return .keep }
        return withLowercased(name) { lower in
            if isSecret(lowercased: lower) { return .mask }
            return Self.urlHeaderBytes.contains { lower.elementsEqual($0) } ? .redactURLs : .keep
        }
    }

    private func withLowercased<T>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        var name = name
        return name.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf8.count) { lower in
                for index in 0..<utf8.count {
                    let byte = utf8[index]
                    lower[index] = (65...90).contains(byte) ? byte + 32 : byte
                }
                return body(UnsafeBufferPointer(lower))
            }
        }
    }

    /// The test on an ASCII-lowercased name: a secret header, a secret word, a secret fragment
    /// anywhere ("x_api_token"), or a secret word as one of its alphanumeric parts ("auth.key").
    private func isSecret(lowercased name: UnsafeBufferPointer<UInt8>) -> Bool {
        if Self.secretHeaderBytes.contains(where: { name.elementsEqual($0) }) { return true }
        if secretWordBytes.contains(where: { name.elementsEqual($0) }) { return true }
        if Self.secretFragments.contains(where: { name.containsSubsequence($0) }) { return true }
        var partStart = 0
        for index in 0...name.count {
            if index < name.count, isWordByte(name[index]) { continue }
            if index > partStart {
                let part = UnsafeBufferPointer(rebasing: name[partStart..<index])
                if part.count < name.count, secretWordBytes.contains(where: { part.elementsEqual($0) }) { return true }
            }
            partStart = index + 1
        }
        return false
    }

    public func redact(headers: [HeaderField]) -> [HeaderField] {
        guard isEnabled else { return headers }
        var result = headers  // shares the storage until a header must change
        for index in headers.indices {
            if let value = redacted(headers[index].value, as: treatment(ofHeader: headers[index].name)) {
                result[index] = HeaderField(name: headers[index].name, value: value)
            }
        }
        return result
    }

    /// The value a header with this treatment shows, or nil when it is unchanged.
    public func redacted(_ value: String, as treatment: HeaderTreatment) -> String? {
        switch treatment {
        case .keep: return nil
        case .mask: return Self.mask
        case .redactURLs:
            let redacted = redact(urlsIn: value)
            return redacted == value ? nil : redacted
        }
    }

    /// Redacts every URL in a header value: the value is cut at whitespace, angle brackets and
    /// quotes (Link's `<…>; rel="…"`, Refresh's `5; url=…`), and each piece that may hold a secret
    /// (it has `?`, `#` or `@`) goes through `redact(url:)`. Everything else stays byte for byte.
    public func redact(urlsIn value: String) -> String {
        guard isEnabled else { return value }
        let delimiters: Set<Character> = [" ", "\t", "<", ">", "\"", "'"]
        var result = ""
        var piece = ""
        func flush() {
            result += piece.contains(where: { $0 == "?" || $0 == "#" || $0 == "@" }) ? redact(url: piece) : piece
            piece = ""
        }
        for character in value {
            if delimiters.contains(character) {
                flush()
                result.append(character)
            } else {
                piece.append(character)
            }
        }
        flush()
        return result
    }

    /// Redacts secret query and fragment parameters (`&` or `;` between them: an OAuth redirect
    /// carries `#access_token=…`) and a user-info password; leaves everything else, including
    /// malformed URLs, byte for byte as it was.
    public func redact(url: String) -> String {
        guard isEnabled else { return url }
        // Only a query, a fragment or a user-info part can hold a secret; most URLs have none.
        let mayHoldSecret: (UInt8) -> Bool = { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "#") }
        guard url.utf8.withContiguousStorageIfAvailable({ $0.contains(where: mayHoldSecret) })
                ?? url.utf8.contains(where: mayHoldSecret) else { return url }
        var text = Substring(url)
        var fragment: Substring = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = text[hash...]
            text = text[..<hash]
        }
        var query: Substring? = nil
        if let mark = text.firstIndex(of: "?") {
            query = text[text.index(after: mark)...]
            text = text[..<mark]
        }
        var result = Self.redactUserInfo(String(text), userName: false)
        if let query { result += "?" + redact(parameters: query) }
        if !fragment.isEmpty { result += "#" + redact(parameters: fragment.dropFirst()) }
        return result
    }

    /// `name=value` pairs separated by `&` or `;`, each secret name's value masked; separators
    /// and everything that is not such a pair kept as it was. A `;` piece without `=` continues
    /// the value before it (`token=abc;def` masks `abc;def`), and a value that is itself a URL
    /// (`next=/cb?access_token=…`, unencoded) is redacted as one.
    private func redact(parameters: Substring) -> String {
        // The pairs, with the separator that follows each (nil for the last).
        var pairs: [(text: Substring, separator: Character?)] = []
        var pairStart = parameters.startIndex
        var index = parameters.startIndex
        while index < parameters.endIndex {
            let character = parameters[index]
            if character == "&" || character == ";" {
                pairs.append((parameters[pairStart..<index], character))
                pairStart = parameters.index(after: index)
            }
            index = parameters.index(after: index)
        }
        pairs.append((parameters[pairStart...], nil))
        var merged: [(text: Substring, separator: Character?)] = []
        for pair in pairs {
            if let last = merged.last, last.separator == ";", !pair.text.contains("="), last.text.contains("=") {
                merged[merged.count - 1] = (parameters[last.text.startIndex..<pair.text.endIndex], pair.separator)
            } else {
                merged.append(pair)
            }
        }
        var result = ""
        for pair in merged {
            if let equals = pair.text.firstIndex(of: "=") {
                let name = pair.text[..<equals]
                let value = pair.text[pair.text.index(after: equals)...]
                if isSecret(name: String(name).removingPercentEncodingLeniently()) {
                    result += name + "=" + Self.mask
                } else if value.contains(where: { $0 == "?" || $0 == "#" || $0 == "@" }) {
                    result += name + "=" + redact(url: String(value))
                } else {
                    result += pair.text
                }
            } else {
                result += pair.text
            }
            if let separator = pair.separator { result.append(separator) }
        }
        return result
    }

    /// `url` as OpenTelemetry's `url.full` must be: no credentials (`https://REDACTED:REDACTED@host/`,
    /// `https://REDACTED@host/` for a user name alone), whether or not redaction is enabled (the
    /// semantic conventions' MUST NOT); secret query parameters as `redact(url:)` leaves them.
    public static func withoutCredentials(url: String) -> String {
        guard url.contains("@") else { return url }
        let end = url.firstIndex { $0 == "?" || $0 == "#" } ?? url.endIndex
        return redactUserInfo(String(url[..<end]), userName: true) + url[end...]
    }

    /// The user-info's password masked (`u:REDACTED@h`; with `userName`, `REDACTED:REDACTED@h`), or
    /// the whole user-info when it has no password (`REDACTED@h`: a token is often sent as the user
    /// name). The authority starts after `scheme://`, or after a leading `//` (a scheme-relative reference).
    private static func redactUserInfo(_ prefix: String, userName: Bool) -> String {
        let authorityStart: String.Index
        if let schemeEnd = prefix.firstRange(of: "://") {
            authorityStart = schemeEnd.upperBound
        } else if prefix.hasPrefix("//") {
            authorityStart = prefix.index(prefix.startIndex, offsetBy: 2)
        } else {
            return prefix
        }
        let rest = prefix[authorityStart...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return prefix }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else {
            return userInfo.isEmpty ? prefix : String(prefix[..<authorityStart]) + Self.mask + String(prefix[at...])
        }
        let head = String(prefix[..<authorityStart]) + (userName ? Self.mask : String(userInfo[..<colon]))
        return head + ":" + Self.mask + String(prefix[at...])
    }

    /// Redacts the values of command-line options that carry secrets (headers, URLs).
    public func redact(arguments: [String]) -> [String] {
        guard isEnabled else { return arguments }
        return arguments.map { argument in
            if let colon = argument.firstIndex(of: ":"), !argument.contains("://") {
                let name = argument[..<colon].trimmingWhitespace()
                if isSecret(name: name) { return String(argument[..<colon]) + ": " + Self.mask }
            }
            return argument.contains("://") ? redact(url: argument) : argument
        }
    }
}

extension StringProtocol {
    /// This text without leading and trailing characters from `characters` (Foundation-free, so cheap
    /// enough for header callbacks).
    public func trimming(_ characters: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }

    /// This text without leading and trailing spaces and tabs.
    public func trimmingWhitespace() -> String { trimming(" \t") }

    /// Decodes %XX escapes; leaves invalid escapes as they are.
    func removingPercentEncodingLeniently() -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(self.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
               let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension RandomAccessCollection where Element == UInt8, Index == Int {
    /// Plain byte search: names are short, so this beats building a searcher per call.
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        for start in 0...(count - needle.count) where self[startIndex + start] == needle[0] {
            var matched = true
            for offset in 1..<needle.count where self[startIndex + start + offset] != needle[offset] {
                matched = false
                break
            }
            if matched { return true }
        }
        return false
    }
}

/// `isLetter || isNumber`, with a fast path for ASCII (header and parameter names almost always are).
/// ASCII letters and digits, and every byte of a non-ASCII character (which never equals an ASCII
/// secret word, so it only keeps such a character from splitting a part).
private func isWordByte(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte >= 0x80
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 48...57: return byte - 48
    case 65...70: return byte - 55
    case 97...102: return byte - 87
    default: return nil
    }
}
