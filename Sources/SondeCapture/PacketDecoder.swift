/// One TCP segment decoded from a captured frame. Lengths come from the IP header, not from
/// the captured bytes, so a capture truncated by its snap length still counts payload correctly.
struct TCPSegment {
    var timestampNanos: Int64
    var source: Endpoint
    var destination: Endpoint
    var sequence: UInt32
    var acknowledgement: UInt32
    var flags: UInt8
    var window: UInt16
    var payloadLength: Int
    /// The payload bytes the capture holds: the first `payload.count` ≤ `payloadLength` (a snap
    /// length can cut the rest). Points into the frame: valid only while the frame is.
    var payload: UnsafeRawBufferPointer
    /// The IP packet's total length (bytes on the wire above the link layer).
    var ipLength: Int
    var options: ParsedOptions

    static let fin: UInt8 = 0x01, syn: UInt8 = 0x02, rst: UInt8 = 0x04, ack: UInt8 = 0x10

    var isSYN: Bool { flags & Self.syn != 0 }
    var isFIN: Bool { flags & Self.fin != 0 }
    var isRST: Bool { flags & Self.rst != 0 }
    var hasACK: Bool { flags & Self.ack != 0 }

    typealias Endpoint = PacketEndpoint
    typealias Address = PacketEndpoint.Address

    struct ParsedOptions {
        var mss: Int?
        var windowScale: Int?
        var sackPermitted = false
        var timestamps = false
    }
}

/// Decodes link layer → IPv4/IPv6 → TCP or UDP from raw frames. Never reads outside the captured
/// bytes; anything malformed or neither TCP nor UDP is nil (and counted by the caller as "other").
enum PacketDecoder {
    /// Link types sonde decodes (libpcap's DLT values).
    enum LinkType: Equatable {
        case ethernet, linuxSLL, linuxSLL2, raw, null

        init?(dlt: Int32) {
            switch dlt {
            case 1: self = .ethernet
            case 113: self = .linuxSLL
            case 276: self = .linuxSLL2
            case 12, 14, 101: self = .raw       // DLT_RAW (two historic values) and LINKTYPE_RAW
            case 0, 108: self = .null           // DLT_NULL and DLT_LOOP (BSD loopback)
            default: return nil
            }
        }
    }

    /// What one frame decodes to: a TCP segment or a UDP datagram.
    enum Packet {
        case tcp(TCPSegment)
        case udp(UDPDatagram)
    }

    /// The frame's TCP segment; nil for anything else (UDP included).
    static func decode(_ frame: UnsafeRawBufferPointer, link: LinkType, timestampNanos: Int64) -> TCPSegment? {
        if case .tcp(let segment)? = decodePacket(frame, link: link, timestampNanos: timestampNanos) { return segment }
        return nil
    }

    /// The frame's TCP segment or UDP datagram; nil for anything else or anything malformed.
    static func decodePacket(_ frame: UnsafeRawBufferPointer, link: LinkType, timestampNanos: Int64) -> Packet? {
        guard let (network, offset) = networkLayer(frame, link: link) else { return nil }
        let ip: IPPayload?
        switch network {
        case 4: ip = ipv4(frame, at: offset)
        case 6: ip = ipv6(frame, at: offset)
        default: ip = nil
        }
        guard let ip else { return nil }
        switch ip.transport {
        case IPPayload.tcp: return tcp(frame, ip, timestampNanos: timestampNanos).map(Packet.tcp)
        case IPPayload.udp: return udp(frame, ip, timestampNanos: timestampNanos).map(Packet.udp)
        default: return nil
        }
    }

    /// Where an IP packet's transport header starts and what the IP header says of it.
    struct IPPayload {
        static let tcp = 6, udp = 17
        /// The IP protocol / IPv6 next header of the transport: 6 (TCP) or 17 (UDP).
        var transport: Int
        /// Offset of the transport header in the frame (may be past the captured bytes).
        var offset: Int
        /// Transport header and payload bytes, from the IP header (≥ 0).
        var length: Int
        var source: PacketEndpoint.Address
        var destination: PacketEndpoint.Address
        /// The IP packet's total length (bytes on the wire above the link layer).
        var ipLength: Int
    }

    /// The IP version and where the IP header starts.
    static func networkLayer(_ frame: UnsafeRawBufferPointer, link: LinkType) -> (Int, Int)? {
        func etherType(_ type: Int, at offset: Int) -> (Int, Int)? {
            var type = type, offset = offset
            // 802.1Q / 802.1ad VLAN tags, possibly stacked (bounded).
            var tags = 0
            while (type == 0x8100 || type == 0x88A8 || type == 0x9100) && tags < 4 {
                guard let inner = u16(frame, offset + 2) else { return nil }
                type = inner
                offset += 4
                tags += 1
            }
            switch type {
            case 0x0800: return (4, offset)
            case 0x86DD: return (6, offset)
            default: return nil
            }
        }
        switch link {
        case .ethernet:
            guard let type = u16(frame, 12) else { return nil }
            return etherType(type, at: 14)
        case .linuxSLL:
            guard let type = u16(frame, 14) else { return nil }
            return etherType(type, at: 16)
        case .linuxSLL2:
            guard let type = u16(frame, 0) else { return nil }
            return etherType(type, at: 20)
        case .raw:
            guard frame.count >= 1 else { return nil }
            return (Int(frame[0] >> 4), 0)
        case .null:
            // A 4-byte address family in the writer's byte order: 2 is AF_INET; 10, 24, 28, 30 are AF_INET6.
            guard frame.count >= 4 else { return nil }
            let little = Int(frame[0]) | Int(frame[1]) << 8 | Int(frame[2]) << 16 | Int(frame[3]) << 24
            let big = Int(frame[3]) | Int(frame[2]) << 8 | Int(frame[1]) << 16 | Int(frame[0]) << 24
            let family = little < 256 ? little : big
            switch family {
            case 2: return (4, 4)
            case 10, 24, 28, 30: return (6, 4)
            default: return nil
            }
        }
    }

    static func ipv4(_ frame: UnsafeRawBufferPointer, at offset: Int) -> IPPayload? {
        guard frame.count >= offset + 20, frame[offset] >> 4 == 4 else { return nil }
        let headerLength = Int(frame[offset] & 0x0F) * 4
        let transport = Int(frame[offset + 9])
        guard headerLength >= 20, let totalLength = u16(frame, offset + 2), totalLength >= headerLength,
              let fragment = u16(frame, offset + 6), transport == IPPayload.tcp || transport == IPPayload.udp else { return nil }
        // Only the first fragment holds the transport header; sonde does not reassemble fragments.
        guard fragment & 0x1FFF == 0 else { return nil }
        return IPPayload(transport: transport, offset: offset + headerLength, length: totalLength - headerLength,
                         source: PacketEndpoint.Address(frame, at: offset + 12, isIPv6: false),
                         destination: PacketEndpoint.Address(frame, at: offset + 16, isIPv6: false), ipLength: totalLength)
    }

    static func ipv6(_ frame: UnsafeRawBufferPointer, at offset: Int) -> IPPayload? {
        guard frame.count >= offset + 40, frame[offset] >> 4 == 6, let payloadLength = u16(frame, offset + 4) else { return nil }
        var next = Int(frame[offset + 6])
        var position = offset + 40
        var remaining = payloadLength
        // Extension headers: hop-by-hop (0), routing (43), destination options (60); a fragment
        // header (44) with a non-zero offset has no transport header. Bounded walk.
        for _ in 0..<8 where next != IPPayload.tcp && next != IPPayload.udp {
            switch next {
            case 0, 43, 60:
                guard frame.count >= position + 2 else { return nil }
                let length = (Int(frame[position + 1]) + 1) * 8
                next = Int(frame[position])
                position += length
                remaining -= length
            case 44:
                guard frame.count >= position + 8, let offsetField = u16(frame, position + 2), offsetField & 0xFFF8 == 0 else { return nil }
                next = Int(frame[position])
                position += 8
                remaining -= 8
            default:
                return nil
            }
            guard remaining >= 0 else { return nil }
        }
        guard next == IPPayload.tcp || next == IPPayload.udp else { return nil }
        return IPPayload(transport: next, offset: position, length: remaining,
                         source: PacketEndpoint.Address(frame, at: offset + 8, isIPv6: true),
                         destination: PacketEndpoint.Address(frame, at: offset + 24, isIPv6: true), ipLength: payloadLength + 40)
    }

    static func tcp(_ frame: UnsafeRawBufferPointer, _ ip: IPPayload, timestampNanos: Int64) -> TCPSegment? {
        let offset = ip.offset, length = ip.length
        guard frame.count >= offset + 20, length >= 20,
              let sourcePort = u16(frame, offset), let destinationPort = u16(frame, offset + 2),
              let sequence = u32(frame, offset + 4), let acknowledgement = u32(frame, offset + 8),
              let window = u16(frame, offset + 14) else { return nil }
        let headerLength = Int(frame[offset + 12] >> 4) * 4
        guard headerLength >= 20, headerLength <= length else { return nil }
        var options = TCPSegment.ParsedOptions()
        var position = offset + 20
        let end = min(offset + headerLength, frame.count)
        while position < end {
            let kind = frame[position]
            if kind == 0 { break }
            if kind == 1 { position += 1; continue }
            guard position + 1 < end else { break }
            let size = Int(frame[position + 1])
            guard size >= 2, position + size <= end else { break }
            switch (kind, size) {
            case (2, 4): options.mss = u16(frame, position + 2)
            case (3, 3): options.windowScale = Int(frame[position + 2])
            case (4, 2): options.sackPermitted = true
            case (8, 10): options.timestamps = true
            default: break
            }
            position += size
        }
        let payloadStart = offset + headerLength
        let captured = max(0, min(frame.count - payloadStart, length - headerLength))
        let payload = captured > 0 ? UnsafeRawBufferPointer(rebasing: frame[payloadStart..<(payloadStart + captured)])
                                   : UnsafeRawBufferPointer(start: nil, count: 0)
        return TCPSegment(timestampNanos: timestampNanos,
                          source: .init(address: ip.source, port: UInt16(sourcePort)),
                          destination: .init(address: ip.destination, port: UInt16(destinationPort)),
                          sequence: sequence, acknowledgement: acknowledgement, flags: frame[offset + 13] & 0x3F,
                          window: UInt16(window), payloadLength: length - headerLength, payload: payload, ipLength: ip.ipLength, options: options)
    }

    /// The UDP header (RFC 768) at `ip.offset`; its length field must fit in the IP payload.
    static func udp(_ frame: UnsafeRawBufferPointer, _ ip: IPPayload, timestampNanos: Int64) -> UDPDatagram? {
        guard ip.length >= 8, let sourcePort = u16(frame, ip.offset), let destinationPort = u16(frame, ip.offset + 2),
              let udpLength = u16(frame, ip.offset + 4), udpLength >= 8, udpLength <= ip.length else { return nil }
        let payloadStart = ip.offset + 8
        let captured = max(0, min(frame.count - payloadStart, udpLength - 8))
        let payload = captured > 0 ? UnsafeRawBufferPointer(rebasing: frame[payloadStart..<(payloadStart + captured)])
                                   : UnsafeRawBufferPointer(start: nil, count: 0)
        return UDPDatagram(timestampNanos: timestampNanos,
                           source: .init(address: ip.source, port: UInt16(sourcePort)),
                           destination: .init(address: ip.destination, port: UInt16(destinationPort)),
                           payloadLength: udpLength - 8, payload: payload, ipLength: ip.ipLength)
    }

    static func u16(_ frame: UnsafeRawBufferPointer, _ offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= frame.count else { return nil }
        return Int(frame[offset]) << 8 | Int(frame[offset + 1])
    }

    static func u32(_ frame: UnsafeRawBufferPointer, _ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= frame.count else { return nil }
        return UInt32(frame[offset]) << 24 | UInt32(frame[offset + 1]) << 16 | UInt32(frame[offset + 2]) << 8 | UInt32(frame[offset + 3])
    }
}

/// RFC 5952 text: the longest run (≥ 2) of zero groups becomes "::".
func compressIPv6(_ groups: [String]) -> String {
    var bestStart = -1, bestLength = 0, start = -1
    for (index, group) in groups.enumerated().map({ ($0.offset, $0.element) }) + [(groups.count, "x")] {
        if group == "0" {
            if start < 0 { start = index }
        } else if start >= 0 {
            if index - start > bestLength { bestStart = start; bestLength = index - start }
            start = -1
        }
    }
    guard bestLength >= 2 else { return groups.joined(separator: ":") }
    let head = groups[..<bestStart].joined(separator: ":")
    let tail = groups[(bestStart + bestLength)...].joined(separator: ":")
    return head + "::" + tail
}
