/// The type of value a suite key takes, for messages (`count: expected a whole number (got '5x')`)
/// and for the JSON Schema, which a test holds to this table.
///
/// Invariant: `SuiteValueType.of` has an entry for every key of every kind (a test checks it), and a
/// key means the same type in every kind that has it.
public enum SuiteValueType: String, CaseIterable, Sendable {
    case text, integer, unsigned, number, boolean, duration, size, textList

    /// The type in words, after "expected".
    public var noun: String {
        switch self {
        case .text: return "text"
        case .integer: return "a whole number"
        case .unsigned: return "a whole number from 0 to \(UInt64.max)"
        case .number: return "a number"
        case .boolean: return "true or false"
        case .duration: return "a duration: 500ms, 5s, 2m, 1h (a bare number means seconds)"
        case .size: return "a size: a number of bytes, or with a unit: 512KiB, 16MiB"
        case .textList: return "a list of text items, like [a, b]"
        }
    }

    /// Every key of every kind and its type.
    public static let of: [String: SuiteValueType] = {
        var table: [String: SuiteValueType] = [:]
        for key in ["url", "request", "data", "data-file", "cacert", "pinned-pubkey", "doh-url", "proxy", "expect-status",
                    "jitter", "upload", "protocol", "kinds", "alt-svc"] { table[key] = .text }
        for key in ["count", "parallel", "max-redirects", "connections", "max-attempts", "interop-version", "trials",
                    "interrupts-per-trial", "retries"] { table[key] = .integer }
        table["seed"] = .unsigned
        for key in ["message-rate", "backoff-multiplier"] { table[key] = .number }
        for key in ["http1.1", "http2", "http2-prior-knowledge", "http3", "http3-only", "insecure", "ipv4", "ipv6", "no-reuse",
                    "no-alt-svc", "discover-idle-timeout", "check", "keep-files"] { table[key] = .boolean }
        for key in ["timeout", "connect-timeout", "duration", "ramp", "ping-interval", "pong-timeout", "backoff-initial",
                    "backoff-max", "stable-after", "max-idle", "stall-timeout"] { table[key] = .duration }
        table["message-size"] = .size
        for key in ["urls", "headers", "resolve", "thresholds", "subprotocols", "interrupt-at"] { table[key] = .textList }
        return table
    }()
}
