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

    struct Endpoint: Hashable {
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
        func precedes(_ other: Endpoint) -> Bool {
            (address.isIPv6 ? 1 : 0, address.high, address.low, port)
                < (other.address.isIPv6 ? 1 : 0, other.address.high, other.address.low, other.port)
        }
    }

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

    struct ParsedOptions {
        var mss: Int?
        var windowScale: Int?
        var sackPermitted = false
        var timestamps = false
    }
}

/// Decodes link layer → IPv4/IPv6 → TCP from raw frames. Never reads outside the captured bytes;
/// anything malformed or not TCP is nil (and counted by the caller as "other").
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

    static func decode(_ frame: UnsafeRawBufferPointer, link: LinkType, timestampNanos: Int64) -> TCPSegment? {
        guard let (network, offset) = networkLayer(frame, link: link) else { return nil }
        switch network {
        case 4: return ipv4(frame, at: offset, timestampNanos: timestampNanos)
        case 6: return ipv6(frame, at: offset, timestampNanos: timestampNanos)
        default: return nil
        }
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

    static func ipv4(_ frame: UnsafeRawBufferPointer, at offset: Int, timestampNanos: Int64) -> TCPSegment? {
        guard frame.count >= offset + 20, frame[offset] >> 4 == 4 else { return nil }
        let headerLength = Int(frame[offset] & 0x0F) * 4
        guard headerLength >= 20, let totalLength = u16(frame, offset + 2), totalLength >= headerLength,
              let fragment = u16(frame, offset + 6), frame[offset + 9] == 6 else { return nil }
        // Only the first fragment holds the TCP header; sonde does not reassemble fragments.
        guard fragment & 0x1FFF == 0, frame.count >= offset + 20 else { return nil }
        let source = TCPSegment.Address(frame, at: offset + 12, isIPv6: false)
        let destination = TCPSegment.Address(frame, at: offset + 16, isIPv6: false)
        return tcp(frame, at: offset + headerLength, length: totalLength - headerLength, source: source,
                   destination: destination, ipLength: totalLength, timestampNanos: timestampNanos)
    }

    static func ipv6(_ frame: UnsafeRawBufferPointer, at offset: Int, timestampNanos: Int64) -> TCPSegment? {
        guard frame.count >= offset + 40, frame[offset] >> 4 == 6, let payloadLength = u16(frame, offset + 4) else { return nil }
        var next = Int(frame[offset + 6])
        var position = offset + 40
        var remaining = payloadLength
        // Extension headers: hop-by-hop (0), routing (43), destination options (60); a fragment
        // header (44) with a non-zero offset has no TCP header. Bounded walk.
        for _ in 0..<8 where next != 6 {
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
        guard next == 6 else { return nil }
        let source = TCPSegment.Address(frame, at: offset + 8, isIPv6: true)
        let destination = TCPSegment.Address(frame, at: offset + 24, isIPv6: true)
        return tcp(frame, at: position, length: remaining, source: source, destination: destination,
                   ipLength: payloadLength + 40, timestampNanos: timestampNanos)
    }

    static func tcp(_ frame: UnsafeRawBufferPointer, at offset: Int, length: Int, source: TCPSegment.Address, destination: TCPSegment.Address,
                    ipLength: Int, timestampNanos: Int64) -> TCPSegment? {
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
                          source: .init(address: source, port: UInt16(sourcePort)),
                          destination: .init(address: destination, port: UInt16(destinationPort)),
                          sequence: sequence, acknowledgement: acknowledgement, flags: frame[offset + 13] & 0x3F,
                          window: UInt16(window), payloadLength: length - headerLength, payload: payload, ipLength: ipLength, options: options)
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
