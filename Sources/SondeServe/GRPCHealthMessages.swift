import SondeCore

/// `grpc.health.v1`'s two messages in protobuf's wire format (one field each; the request through
/// SondeCore's `ProtobufWriter`, the response read here: a
/// code generator and swift-protobuf for these would cost more build than the bytes below):
///
/// ```proto
/// message HealthCheckRequest { string service = 1; }
/// message HealthCheckResponse {
///   enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; }
///   ServingStatus status = 1;
/// }
/// ```
///
/// Decoding reads every field of the response by its wire type and skips those it does not know
/// (as protobuf's parsers do), bounded by the bytes there are; the last `status` wins.
enum GRPCHealthMessages {
    /// `/grpc.health.v1.Health/Check`.
    static let checkPath = "/grpc.health.v1.Health/Check"

    /// The serving statuses by number, blackbox's label values.
    static let statusNames = [0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"]

    /// A HealthCheckRequest naming `service` (an empty name: proto3 writes no field).
    static func request(service: String) -> [UInt8] {
        guard !service.isEmpty else { return [] }
        var writer = ProtobufWriter()
        writer.string(1, service)
        return writer.bytes
    }

    /// A HealthCheckResponse's `status` number (0 when the field is absent, proto3's default);
    /// nil when the bytes are not a well-formed message.
    static func status(response bytes: [UInt8]) -> Int? {
        var index = 0
        var status: UInt64 = 0
        while index < bytes.count {
            guard let key = readVarint(bytes, &index) else { return nil }
            let field = key >> 3, wireType = key & 7
            guard field != 0 else { return nil }
            switch wireType {
            case 0:
                guard let value = readVarint(bytes, &index) else { return nil }
                if field == 1 { status = value }
            case 1, 5:
                let width = wireType == 1 ? 8 : 4
                guard bytes.count - index >= width else { return nil }
                index += width
            case 2:
                guard let length = readVarint(bytes, &index), length <= UInt64(bytes.count - index) else { return nil }
                index += Int(length)
            default:
                return nil  // groups (3, 4) are not proto3's; 6 and 7 are not wire types
            }
        }
        // An enum is an int32 on the wire; a number outside it is kept as proto3 keeps an unknown value.
        return Int(truncatingIfNeeded: Int32(truncatingIfNeeded: status))
    }

    /// A varint at `index` (advanced past it); nil when it runs past the bytes or past 10 bytes.
    static func readVarint(_ bytes: [UInt8], _ index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count, shift < 70 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
