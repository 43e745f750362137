/// A protocol-buffers wire-format writer for the few messages sonde sends: OTLP's
/// (`ExportMetricsServiceRequest`, `ExportTraceServiceRequest` and what they hold) and
/// `grpc.health.v1`'s `HealthCheckRequest` (serve's grpc prober). The one protobuf writer.
///
/// Why hand-written rather than swift-otel or swift-protobuf (docs/otlp.md, "Library choice",
/// has the commands): measured on 2026-11-26 in CPU seconds (user) of a debug build, this module
/// adds 6.5 s; swift-protobuf alone 30.5 s (66.6 s in release); swift-otel 1.6.0 with its OTLPHTTP
/// trait, beyond what sonde compiles already (OTel, SwiftProtobuf, W3CTraceContext), 40.9 s
/// (93.0 s in release), of the ~70 s a fresh `make run` has left under its 6-minute contract. swift-otel is an SDK for live
/// instrumentation, while sonde exports a finished run's journal once; the messages sonde writes
/// use five wire forms (varint, fixed64, fixed32, double, length-delimited), so a writer of ~100
/// lines, and tests that decode its output with the `opentelemetry-proto` Python package (the
/// reference generated code), cover them.
///
/// Field numbers are those of opentelemetry-proto's `.proto` files (v1), written next to each use.
/// A nested message is written into its own writer and appended with its length (`message`), so
/// each message is built bottom-up. Fields equal to proto3 defaults may be omitted by the caller.
///
/// Threading: a value type, confined to its builder.
public struct ProtobufWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Wire types (protobuf encoding guide).
    private enum WireType: UInt64 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5
    }

    private mutating func tag(_ field: Int, _ type: WireType) {
        varint(UInt64(field) << 3 | type.rawValue)
    }

    private mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func littleEndian64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// `uint32`, `uint64`, enum and `bool` fields.
    public mutating func unsigned(_ field: Int, _ value: UInt64) {
        tag(field, .varint)
        varint(value)
    }

    /// `int64` fields (two's complement, ten bytes when negative, as protobuf specifies).
    public mutating func signed(_ field: Int, _ value: Int64) {
        tag(field, .varint)
        varint(UInt64(bitPattern: value))
    }

    public mutating func bool(_ field: Int, _ value: Bool) { unsigned(field, value ? 1 : 0) }

    /// `fixed64` fields (the OTLP timestamps in Unix nanoseconds, histogram counts).
    public mutating func fixed64(_ field: Int, _ value: UInt64) {
        tag(field, .fixed64)
        littleEndian64(value)
    }

    /// `fixed32` fields (a span's flags).
    public mutating func fixed32(_ field: Int, _ value: UInt32) {
        tag(field, .fixed32)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// `double` fields.
    public mutating func double(_ field: Int, _ value: Double) {
        tag(field, .fixed64)
        littleEndian64(value.bitPattern)
    }

    public mutating func string(_ field: Int, _ value: String) { data(field, Array(value.utf8)) }

    /// `bytes` fields (trace and span ids).
    public mutating func data(_ field: Int, _ value: [UInt8]) {
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A nested message: `build` writes its fields, then it is appended with its length.
    public mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        build(&inner)
        data(field, inner.bytes)
    }

    /// A packed `repeated fixed64` field (histogram bucket counts).
    public mutating func packedFixed64(_ field: Int, _ values: [UInt64]) {
        tag(field, .lengthDelimited)
        varint(UInt64(values.count * 8))
        for value in values { littleEndian64(value) }
    }

    /// A packed `repeated double` field (histogram bounds).
    public mutating func packedDouble(_ field: Int, _ values: [Double]) {
        tag(field, .lengthDelimited)
        varint(UInt64(values.count * 8))
        for value in values { littleEndian64(value.bitPattern) }
    }
}
