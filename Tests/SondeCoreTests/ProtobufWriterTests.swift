import SondeCore
import Testing

/// The wire bytes of the protobuf writer, against encodings worked out from the protobuf
/// encoding guide (the end-to-end tests decode whole requests with opentelemetry-proto).
@Suite struct ProtobufWriterTests {
    @Test func varintsAndTags() {
        var writer = ProtobufWriter()
        writer.unsigned(1, 150)  // the guide's example: 08 96 01
        #expect(writer.bytes == [0x08, 0x96, 0x01])
        var negative = ProtobufWriter()
        negative.signed(3, -1)  // ten bytes of two's complement
        #expect(negative.bytes == [0x18] + Array(repeating: 0xff, count: 9) + [0x01])
        var high = ProtobufWriter()
        high.unsigned(16, 1)  // field 16 needs a two-byte tag: (16 << 3 | 0) = 128
        #expect(high.bytes == [0x80, 0x01, 0x01])
    }

    @Test func fixedWidthsAreLittleEndian() {
        var writer = ProtobufWriter()
        writer.fixed64(7, 0x0102030405060708)
        #expect(writer.bytes == [0x39, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
        var double = ProtobufWriter()
        double.double(4, 1.0)  // 0x3FF0000000000000
        #expect(double.bytes == [0x21, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f])
        var fixed32 = ProtobufWriter()
        fixed32.fixed32(16, 1)  // tag (16 << 3 | 5) = 133 = 85 01
        #expect(fixed32.bytes == [0x85, 0x01, 0x01, 0, 0, 0])
    }

    @Test func nestedMessagesCarryTheirLength() {
        var writer = ProtobufWriter()
        writer.message(1) { $0.string(1, "sonde") }
        #expect(writer.bytes == [0x0a, 0x07, 0x0a, 0x05] + Array("sonde".utf8))
        var packed = ProtobufWriter()
        packed.packedFixed64(6, [1, 2])
        #expect(packed.bytes == [0x32, 16, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0])
    }

}
