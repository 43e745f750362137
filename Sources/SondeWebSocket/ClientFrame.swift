import NIOCore
import NIOWebSocket

/// Encodes the frames a soak session sends, as a client must (RFC 6455 §5.2, §5.3): final
/// (FIN set), no RSV bits, masked with the given key, the payload length in the shortest of the
/// three forms. The session writes them already encoded, past NIO's `WebSocketFrameEncoder`,
/// into one buffer it reuses: NIO's encoder allocates a frame box, a copy of the payload to mask
/// and a separate header buffer for every frame (two writes per ping).
enum ClientFrame {
    /// Appends the frame's header and masking key to `buffer` (2 to 14 bytes).
    static func writeHeader(_ opcode: WebSocketOpcode, length: Int, key: WebSocketMaskingKey, into buffer: inout ByteBuffer) {
        buffer.writeInteger(0x80 | UInt8(webSocketOpcode: opcode))
        switch length {
        case ...125:
            buffer.writeInteger(0x80 | UInt8(truncatingIfNeeded: length))
        case 126...0xFFFF:
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(truncatingIfNeeded: length))
        default:
            buffer.writeInteger(UInt8(0x80 | 127))
            buffer.writeInteger(UInt64(truncatingIfNeeded: length))
        }
        buffer.writeBytes(key)
    }

    /// Appends a ping frame whose payload is `sequence` (8 bytes, big-endian).
    static func writePing(sequence: UInt64, key: WebSocketMaskingKey, into buffer: inout ByteBuffer) {
        writeHeader(.ping, length: 8, key: key, into: &buffer)
        // The key repeated over the eight bytes: masking is a XOR with it (RFC 6455 §5.3).
        let key32 = key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        buffer.writeInteger(sequence ^ (key32 << 32 | key32))
    }

    /// Appends a frame carrying `payload`'s readable bytes, masked.
    static func write(_ opcode: WebSocketOpcode, payload: ByteBuffer, key: WebSocketMaskingKey, into buffer: inout ByteBuffer) {
        writeHeader(opcode, length: payload.readableBytes, key: key, into: &buffer)
        let offset = buffer.readableBytes
        buffer.writeImmutableBuffer(payload)
        let mask = (key[0], key[1], key[2], key[3])
        buffer.withUnsafeMutableReadableBytes { bytes in
            var index = offset
            var position = 0
            while index < bytes.count {
                switch position & 3 {
                case 0: bytes[index] ^= mask.0
                case 1: bytes[index] ^= mask.1
                case 2: bytes[index] ^= mask.2
                default: bytes[index] ^= mask.3
                }
                index += 1
                position += 1
            }
        }
    }
}
