/// W3C Trace Context span ids as sonde writes them into `traceparent` headers and reports.
///
/// Invariant: a span id is 8 random bytes written as 16 lowercase hex digits, never all zero
/// (an invalid id in W3C Trace Context and OTLP). Thread-safe: uses the system's generator.
public enum SpanID {
    /// A new random span id.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var value: UInt64 = 0
        while value == 0 { value = generator.next() }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The `traceparent` header's value naming `span` of trace `trace` (32 hex digits) as the
    /// parent: version 00, sampled.
    public static func traceparent(trace: String, span: String) -> String { "00-\(trace)-\(span)-01" }
}
