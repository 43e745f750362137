/// The little the emulator reads of a packet: whether it is a DNS query (IPv4, UDP or TCP, to
/// port 53), which `dns-delay` holds back. Bounds-checked: a short or odd packet is not DNS.
enum IPv4Packet {
    static func isDNSQuery(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
