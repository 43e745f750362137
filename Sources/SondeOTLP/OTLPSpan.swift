import SondeCore

/// One span as OTLP writes it (`opentelemetry.proto.trace.v1.Span`), with its events.
struct OTLPSpan {
    /// `Span.SpanKind`.
    enum Kind: UInt64 {
        case `internal` = 1, client = 3
    }

    /// `Status.StatusCode`.
    enum StatusCode: UInt64 {
        case unset = 0, ok = 1, error = 2
    }

    struct Event {
        var timeNanos: UInt64
        var name: String
        var attributes: [OTLPAttribute]
    }

    var traceID: [UInt8]
    var spanID: [UInt8]
    var parentSpanID: [UInt8]?
    var name: String
    var kind: Kind
    var startNanos: UInt64
    var endNanos: UInt64
    var attributes: [OTLPAttribute] = []
    var events: [Event] = []
    var status = StatusCode.unset
    var statusMessage: String?

    /// Writes the span's fields (trace_id = 1, span_id = 2, parent_span_id = 4, name = 5,
    /// kind = 6, start = 7, end = 8, attributes = 9, events = 11, status = 15 (message = 2,
    /// code = 3), flags = 16: W3C trace flags in the low byte, sampled (1)). An end before the
    /// start is written as the start.
    func write(into writer: inout ProtobufWriter) {
        writer.data(1, traceID)
        writer.data(2, spanID)
        if let parentSpanID { writer.data(4, parentSpanID) }
        writer.string(5, name)
        writer.unsigned(6, kind.rawValue)
        writer.fixed64(7, startNanos)
        writer.fixed64(8, max(startNanos, endNanos))
        writer.attributes(9, attributes)
        for event in events {
            // Event: time_unix_nano = 1, name = 2, attributes = 3.
            writer.message(11) {
                $0.fixed64(1, event.timeNanos)
                $0.string(2, event.name)
                $0.attributes(3, event.attributes)
            }
        }
        if status != .unset || statusMessage != nil {
            writer.message(15) {
                if let statusMessage { $0.string(2, statusMessage) }
                $0.unsigned(3, status.rawValue)
            }
        }
        writer.fixed32(16, 1)
    }
}
