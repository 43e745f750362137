/// The name a probe's request goes by in the per-request results (`summary.byRequest`), in
/// thresholds' selectors (`total.p95{name=login}`) and in every format: the name the user gave
/// (`--name`, a suite's `{name: …, url: …}`), else the method and the URL without its query
/// and fragment (`GET https://api.example.com/v1/login`), so that the same endpoint with other
/// query parameters is one request, and no query parameter (a token) ends up in a name.
public enum RequestName {
    /// The longest name accepted, in UTF-8 bytes.
    public static let maxBytes = 200

    /// `method` and `url` without its query and fragment (`url` as the task has it: redacted).
    public static func defaultName(method: String, url: String) -> String {
        method + " " + withoutQuery(url)
    }

    /// `url` up to its first `?` or `#` (the text itself when it has neither): the first
    /// `Character` that is one of them, so a `?` that a combining mark follows is none.
    /// An ASCII URL (the usual one) is searched byte by byte, which finds the same
    /// place: there every byte is a `Character` of its own.
    public static func withoutQuery(_ url: String) -> String {
        let utf8 = url.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            guard let end = utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return url }
            return String(url[..<end])
        }
        guard let end = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        return String(url[..<end])
    }

    /// `url` as selectors compare it: without its query and fragment, and with `/` as the path
    /// of a bare origin (`https://h` and `https://h/` are one URL).
    public static func comparable(_ url: String) -> String {
        let bare = withoutQuery(url)
        guard let scheme = bare.range(of: "://") else { return bare }
        return bare[scheme.upperBound...].contains("/") ? bare : bare + "/"
    }

    /// Why `name` cannot name a request, or nil when it can: it must be non-empty, at most
    /// `maxBytes` long and free of control characters (it becomes a JUnit test case, a table
    /// cell in HTML and Markdown, a terminal line; each is escaped, but a newline would still mislead).
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "a request's name cannot be empty" }
        if name.utf8.count > maxBytes { return "the name '\(name.prefix(40))…' is longer than \(maxBytes) bytes" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the name \(name.debugDescription) holds a control character"
        }
        return nil
    }
}
