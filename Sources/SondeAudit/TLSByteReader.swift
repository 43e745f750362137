/// A bounds-checked cursor over bytes a server sent: every read throws `TLSParseError` instead of
/// trapping when the bytes run out.
struct TLSByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
        offset = 0
    }

    var remaining: Int { bytes.count - offset }
    var atEnd: Bool { offset >= bytes.count }

    mutating func u8() throws(TLSParseError) -> UInt8 { try take(1)[0] }
    mutating func u16() throws(TLSParseError) -> UInt16 {
        let part = try take(2)
        return UInt16(part[0]) << 8 | UInt16(part[1])
    }
    mutating func u24() throws(TLSParseError) -> Int {
        let part = try take(3)
        return Int(part[0]) << 16 | Int(part[1]) << 8 | Int(part[2])
    }
    mutating func take(_ count: Int) throws(TLSParseError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw TLSParseError(reason: "truncated (\(count) bytes wanted, \(remaining) left)") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
    mutating func vector8() throws(TLSParseError) -> [UInt8] { try take(Int(try u8())) }
    mutating func vector16() throws(TLSParseError) -> [UInt8] { try take(Int(try u16())) }
    mutating func vector24() throws(TLSParseError) -> [UInt8] { try take(try u24()) }
}

/// Bytes from a server that are not the TLS message they claim to be.
struct TLSParseError: Error, Sendable, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
