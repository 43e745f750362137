import SondeCore

/// The trace of one run: its id (16 random bytes) and its root span's id (8 random bytes), made
/// before the run starts so that `--traceparent` can send them on the probed requests (W3C Trace
/// Context), and the exporter can give the run's spans the same trace.
///
/// Invariant: neither id is all zero (an invalid id in W3C Trace Context and OTLP).
public struct OTLPTraceContext: Sendable, Equatable {
    public let traceID: [UInt8]
    public let rootSpanID: [UInt8]

    public init(traceID: [UInt8], rootSpanID: [UInt8]) {
        self.traceID = traceID
        self.rootSpanID = rootSpanID
    }

    /// A new trace with random ids (the system's generator).
    public static func random() -> OTLPTraceContext {
        OTLPTraceContext(traceID: randomID(count: 16), rootSpanID: randomID(count: 8))
    }

    /// `count` random bytes, never all zero.
    static func randomID(count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        while true {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.contains(where: { $0 != 0 }) { return bytes }
        }
    }

    /// The `traceparent` header's value: version 00, the trace, the run's root span as the
    /// parent, sampled (`00-<32 hex>-<16 hex>-01`).
    public var traceparent: String { SpanID.traceparent(trace: traceIDHex, span: hex(rootSpanID)) }

    /// The trace id as 32 lowercase hex digits.
    public var traceIDHex: String { hex(traceID) }

    /// 8 bytes of a span id written as 16 hex digits; nil for any other text, or all zero.
    static func spanID(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 16 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 16, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes.contains(where: { $0 != 0 }) ? bytes : nil
    }

    func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }
}
