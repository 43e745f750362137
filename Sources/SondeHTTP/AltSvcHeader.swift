/// Reads an `Alt-Svc` response header value (RFC 7838 §3) far enough to tell which HTTP/3
/// alternatives an origin advertised, for the report. libcurl keeps and uses the cache itself
/// (CURLOPT_ALTSVC); this reader never decides where a connection goes.
///
/// Grammar: `clear` or `1#( protocol-id "=" quoted("[host]:port") *( ";" parameter ) )`.
/// Malformed alternatives are skipped, as a client must; at most `maxAlternatives` are read
/// from at most `maxLength` characters, so a hostile header costs little.
public struct AltSvcHeader: Equatable, Sendable {
    /// One advertised alternative service.
    public struct Alternative: Equatable, Sendable {
        /// The ALPN protocol id, e.g. "h3" (percent-encoding left as sent).
        public var protocolID: String
        /// The alternative's host; nil means the origin's own host.
        public var host: String?
        /// The alternative's port (1…65535).
        public var port: Int
        /// `ma=` in seconds (RFC 7838: 24 hours when absent), nil when absent.
        public var maxAge: Int?

        /// h3, or a draft version of it (h3-29…), as libcurl accepts them.
        public var isHTTP3: Bool { protocolID == "h3" || protocolID.hasPrefix("h3-") }

        /// `host:port`, with the origin's host where the header named none.
        public func authority(originHost: String) -> String {
            AltSvcCache.authority(host: host ?? originHost, port: port)
        }
    }

    /// True for `Alt-Svc: clear` (the origin withdraws every alternative).
    public var clear = false
    public var alternatives: [Alternative] = []

    static let maxLength = 8192
    static let maxAlternatives = 32

    public init(_ value: String) {
        let text = Substring(value.prefix(Self.maxLength))
        if text.trimmingSpaces.lowercased() == "clear" {
            clear = true
            return
        }
        for member in Self.split(text, on: ",").prefix(Self.maxAlternatives) {
            if let alternative = Self.alternative(member) { alternatives.append(alternative) }
        }
    }

    /// `protocol-id="[host]:port"; ma=…; persist=…`, or nil when it does not parse.
    private static func alternative(_ member: Substring) -> Alternative? {
        let parts = split(member, on: ";")
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return nil }
        let protocolID = first[..<equals].trimmingSpaces
        var authority = first[first.index(after: equals)...].trimmingSpaces
        guard !protocolID.isEmpty, authority.count >= 3, authority.first == "\"", authority.last == "\"" else { return nil }
        authority = authority.dropFirst().dropLast()
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]),
              (1...65_535).contains(port) else { return nil }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var maxAge: Int? = nil
        for parameter in parts.dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let name = parameter[..<equals].trimmingSpaces.lowercased()
            var value = parameter[parameter.index(after: equals)...].trimmingSpaces
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            // Bounded: a number of more than 10 digits is not a sensible age; Int(…) never traps.
            if name == "ma", value.count <= 10, let seconds = Int(value), seconds >= 0 { maxAge = seconds }
        }
        return Alternative(protocolID: String(protocolID), host: host.isEmpty ? nil : host, port: port, maxAge: maxAge)
    }

    /// `text` split on `separator` outside double quotes (a backslash escapes inside them).
    private static func split(_ text: Substring, on separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex, index = text.startIndex
        var quoted = false, escaped = false
        while index < text.endIndex {
            let character = text[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted && character == separator {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }
}

private extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's OWS).
    var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
