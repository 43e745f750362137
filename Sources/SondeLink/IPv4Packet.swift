/// The little the emulator reads of a packet: whether it is a DNS query (IPv4 or IPv6, UDP or TCP, to
/// port 53), which `dns-delay` holds back. Bounds-checked: a short or odd packet is not DNS.
enum IPv4Packet {
    static func isDNSQuery(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // IPv6 (a `nat64` link): UDP or TCP right after the fixed header.
        if bytes.count >= 44, bytes[0] >> 4 == 6 {
            return (bytes[6] == 17 || bytes[6] == 6) && ((UInt16(bytes[42]) << 8) | UInt16(bytes[43])) == 53
        }
        guard bytes.count >= 20, bytes[0] >> 4 == 4 else { return false }
        let headerLength = Int(bytes[0] & 0x0f) * 4
        let proto = bytes[9]
        guard headerLength >= 20, proto == 17 || proto == 6, bytes.count >= headerLength + 4 else { return false }
        // A later fragment carries no ports.
        let fragmentOffset = (UInt16(bytes[6] & 0x1f) << 8) | UInt16(bytes[7])
        guard fragmentOffset == 0 else { return false }
        let port = (UInt16(bytes[headerLength + 2]) << 8) | UInt16(bytes[headerLength + 3])
        return port == 53
    }
}
