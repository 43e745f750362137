/// One end of a TCP connection or a UDP flow: an IP address and a port (host byte order).
struct PacketEndpoint: Hashable {
    var address: Address
    var port: UInt16

    var addressText: String {
        let bytes = address.bytes
        if !address.isIPv6 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [String] = []
        for index in stride(from: 0, to: 16, by: 2) {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
        }
        return compressIPv6(groups)
    }

    var text: String { address.isIPv6 ? "[\(addressText)]:\(port)" : "\(addressText):\(port)" }

    /// Orders endpoints (any total order will do: it names the two sides of a connection key).
    func precedes(_ other: PacketEndpoint) -> Bool {
        (address.isIPv6 ? 1 : 0, address.high, address.low, port)
            < (other.address.isIPv6 ? 1 : 0, other.address.high, other.address.low, other.port)
    }
}

extension PacketEndpoint {
    /// An IPv4 or IPv6 address held inline (no heap allocation per packet): the 16 bytes of an
    /// IPv6 address big-endian in `high` and `low`; an IPv4 address in the low 32 bits of `low`.
    struct Address: Hashable {
        var high: UInt64
        var low: UInt64
        var isIPv6: Bool

        /// The 4 or 16 address bytes starting at `offset` (the caller has checked the bounds).
        init(_ frame: UnsafeRawBufferPointer, at offset: Int, isIPv6: Bool) {
            func word(_ start: Int, _ count: Int) -> UInt64 {
                var value: UInt64 = 0
                for index in start..<(start + count) { value = value << 8 | UInt64(frame[index]) }
                return value
            }
            self.isIPv6 = isIPv6
            high = isIPv6 ? word(offset, 8) : 0
            low = isIPv6 ? word(offset + 8, 8) : word(offset, 4)
        }

        var bytes: [UInt8] {
            let shifts: [UInt64] = isIPv6 ? [56, 48, 40, 32, 24, 16, 8, 0] : [24, 16, 8, 0]
            return (isIPv6 ? shifts.map { UInt8(truncatingIfNeeded: high >> $0) } : []) + shifts.map { UInt8(truncatingIfNeeded: low >> $0) }
        }
    }
}
