import SondeReport

/// Text from a server made safe for one terminal line: control characters escaped
/// (`TerminalText.sanitized`) and cut to `max` characters with an ellipsis.
enum TerminalSafe {
    static func text(_ value: String, max: Int) -> String {
        let clean = TerminalText.sanitized(value)
        return clean.count <= max ? clean : String(clean.prefix(max)) + "…"
    }
}
