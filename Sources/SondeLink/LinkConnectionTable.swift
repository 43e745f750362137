import SondeCore

/// The emulator's counters per connection (`LinkConnectionCounters`), kept by the emulator thread:
/// each packet is attributed to its IPv4 TCP or UDP flow by its addresses and ports, and counted
/// with the fate the link gave it on arrival. Bounded: past `maxConnections` flows, further ones
/// are counted together under "other". Not thread-safe: the emulator thread owns it.
///
/// Under `nat64` the link's resolver, `[resolver6]:53` inside, is keyed as the DNS64's IPv4 end
/// (127.0.0.1:`resolverPort4`, `NAT64Translator`), so a DNS exchange counts as one flow both ways,
/// its `service` "DNS64".
struct LinkConnectionTable {
    /// The most connections counted one by one.
    static let maxConnections = 4096

    /// The resolver's address inside (16 bytes) and the 127.0.0.1 port it stands for; nil without.
    private let resolver: (address6: [UInt8], port4: UInt16)?

    init(translator: NAT64Translator? = nil) {
        resolver = translator.flatMap { translator in translator.resolver6.map { ($0, translator.resolverPort4) } }
    }

    private struct Key: Hashable {
        var proto: UInt8
        var localPort: UInt16
        var remoteAddress: UInt32
        var remotePort: UInt16
    }

    private var index: [Key: Int] = [:]
    private(set) var connections: [LinkConnectionCounters] = []
    private var otherIndex: Int?

    /// Counts one packet of `length` bytes that arrived going `direction`, whose fate the link's
    /// counters show as the difference between `before` and `after` its arrival.
    mutating func count(_ packet: UnsafeRawBufferPointer, length: Int, direction: LinkDirection, before: LinkCounters, after: LinkCounters) {
        let slot = self.slot(for: packet, direction: direction)
        func update(_ counters: inout LinkCounters) {
            counters.packetsIn += 1
            counters.bytesIn += Int64(length)
            if after.droppedByLoss > before.droppedByLoss {
                counters.droppedByLoss += 1
            } else if after.droppedByQueue > before.droppedByQueue {
                counters.droppedByQueue += 1
            } else if after.droppedByOutage > before.droppedByOutage {
                counters.droppedByOutage += 1
            } else {
                counters.packetsDelivered += 1
                counters.bytesDelivered += Int64(length)
            }
        }
        if direction == .down { update(&connections[slot].down) } else { update(&connections[slot].up) }
    }

    /// The entry of the packet's flow, made on its first packet (or the "other" entry).
    private mutating func slot(for packet: UnsafeRawBufferPointer, direction: LinkDirection) -> Int {
        guard let key = Self.key(packet, direction: direction, resolver: resolver) else { return otherSlot() }
        if let slot = index[key] { return slot }
        guard connections.count < Self.maxConnections else { return otherSlot() }
        let address = key.remoteAddress
        let text = "\(address >> 24).\((address >> 16) & 255).\((address >> 8) & 255).\(address & 255)"
        let isResolver = resolver.map { address == 0x7F00_0001 && key.remotePort == $0.port4 } ?? false
        connections.append(LinkConnectionCounters(protocolName: key.proto == 6 ? "tcp" : "udp", localPort: Int(key.localPort),
                                                   remoteAddress: text, remotePort: Int(key.remotePort), service: isResolver ? "DNS64" : nil))
        index[key] = connections.count - 1
        return connections.count - 1
    }

    private mutating func otherSlot() -> Int {
        if let otherIndex { return otherIndex }
        connections.append(LinkConnectionCounters(protocolName: "other", localPort: 0, remoteAddress: "", remotePort: 0))
        otherIndex = connections.count - 1
        return connections.count - 1
    }

    /// The flow of an IPv4 TCP or UDP packet (the checked side is the source going up, the
    /// destination going down); nil for anything else, a later fragment, or a short packet.
    private static func key(_ bytes: UnsafeRawBufferPointer, direction: LinkDirection, resolver: (address6: [UInt8], port4: UInt16)?) -> Key? {
        if bytes.count >= 44, bytes[0] >> 4 == 6 { return key6(bytes, direction: direction, resolver: resolver) }
        guard bytes.count >= 20, bytes[0] >> 4 == 4 else { return nil }
        let headerLength = Int(bytes[0] & 0x0f) * 4
        let proto = bytes[9]
        guard headerLength >= 20, proto == 6 || proto == 17, bytes.count >= headerLength + 4 else { return nil }
        guard (UInt16(bytes[6] & 0x1f) << 8) | UInt16(bytes[7]) == 0 else { return nil }
        func word(_ at: Int) -> UInt32 { UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]) }
        func port(_ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
        let source = word(12), destination = word(16)
        let sourcePort = port(headerLength), destinationPort = port(headerLength + 2)
        return direction == .up
            ? Key(proto: proto, localPort: sourcePort, remoteAddress: destination, remotePort: destinationPort)
            : Key(proto: proto, localPort: destinationPort, remoteAddress: source, remotePort: sourcePort)
    }

    /// The flow of an IPv6 TCP or UDP packet of a `nat64` link (no extension headers), keyed by the
    /// IPv4 address its 64:ff9b::/96 far end embeds, or as 127.0.0.1:`port4` for `[address6]:53`
    /// (the resolver), so that both sides of the translator count as one connection; nil for
    /// anything else.
    private static func key6(_ bytes: UnsafeRawBufferPointer, direction: LinkDirection, resolver: (address6: [UInt8], port4: UInt16)?) -> Key? {
        let proto = bytes[6]
        guard proto == 6 || proto == 17 else { return nil }
        let far = direction == .up ? 24 : 8
        func port(_ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
        let (localAt, remoteAt) = direction == .up ? (40, 42) : (42, 40)
        if let resolver, (0..<16).allSatisfy({ bytes[far + $0] == resolver.address6[$0] }), port(remoteAt) == 53 {
            return Key(proto: proto, localPort: port(localAt), remoteAddress: 0x7F00_0001, remotePort: resolver.port4)
        }
        guard (0..<12).allSatisfy({ bytes[far + $0] == NAT64Translator.prefix[$0] }) else { return nil }
        let remote = UInt32(bytes[far + 12]) << 24 | UInt32(bytes[far + 13]) << 16 | UInt32(bytes[far + 14]) << 8 | UInt32(bytes[far + 15])
        return Key(proto: proto, localPort: port(localAt), remoteAddress: remote, remotePort: port(remoteAt))
    }
}
