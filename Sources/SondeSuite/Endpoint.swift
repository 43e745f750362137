/// A probe target or allow pattern of the form `host:port`, `[v6]:port`, `host`, `[v6]` or a
/// bare IPv6 address, split as Go's `net.SplitHostPort` splits the first two.
public enum Endpoint {
    /// The host (brackets removed) and the port (nil when absent); nil when the text is not one
    /// of the forms, or its port is not a number of at most 5 digits.
    public static func split(_ text: String) -> (host: String, port: Int?)? {
        guard !text.isEmpty, text.utf8.count <= 300 else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return host.isEmpty ? nil : (host, nil) }
            guard rest.first == ":", let port = number(rest.dropFirst()) else { return nil }
            return (host, port)
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 0 { return (text, nil) }
        if colons > 1 { return (text, nil) }  // a bare IPv6 address: a host alone
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let host = String(text[..<colon])
        guard !host.isEmpty, let port = number(text[text.index(after: colon)...]) else { return nil }
        return (host, port)
    }

    /// A port's digits (1 to 5 of them) as a number.
    static func number(_ digits: Substring) -> Int? {
        guard (1...5).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }
}
