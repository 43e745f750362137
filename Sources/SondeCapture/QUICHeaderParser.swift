/// Reads the cleartext headers of the QUIC packets in one UDP datagram (RFC 9000 §17, RFC 8999
/// invariants, RFC 9369 for version 2's type codes). No decryption: only the header form, the
/// long header's type, version, connection IDs and Length, which say where a coalesced packet
/// ends (§12.2). Everything read is bounded by the captured bytes and by the datagram's length:
/// a truncated header or an absurd Length stops the walk with a `problem`, never a trap.
enum QUICHeaderParser {
    /// A QUIC packet's kind as its cleartext header shows it.
    enum PacketType: String, Sendable, CaseIterable {
        case initial, zeroRTT = "0rtt", handshake, retry, versionNegotiation = "versionNegotiation"
        /// A short-header packet: 1-RTT (its header says nothing more without the keys).
        case oneRTT = "1rtt"
        /// A long header of a version sonde does not know: its layout past the invariants is unknown.
        case unknownVersion
    }

    /// One packet's cleartext header.
    struct Header: Equatable {
        var type: PacketType
        /// The long header's version (nil for short headers).
        var version: UInt32?
        /// The long header's destination and source connection IDs (empty for short headers).
        var destinationID: [UInt8] = []
        var sourceID: [UInt8] = []
        /// The packet's bytes in the datagram (header included).
        var length: Int
    }

    /// What one datagram holds: its packets in order, the bytes after a long-header packet that
    /// are zero padding (not a packet), and why the walk stopped early, if it did.
    struct Datagram: Equatable {
        var packets: [Header] = []
        var paddingBytes = 0
        var problem: String?
    }

    static let version1: UInt32 = 0x0000_0001
    static let version2: UInt32 = 0x6B33_43CF
    /// Coalesced packets walked per datagram at most (a real datagram holds a handful).
    static let packetLimit = 32

    /// Whether `version` has RFC 9000's long-header layout: v1, v2 and the IETF drafts 29–34.
    static func isKnown(_ version: UInt32) -> Bool {
        version == version1 || version == version2 || (0xFF00_001D...0xFF00_0022).contains(version)
    }

    /// The packets of a datagram of `length` bytes whose first `bytes.count` the capture holds.
    static func parse(_ bytes: UnsafeRawBufferPointer, length: Int) -> Datagram {
        var result = Datagram()
        var offset = 0
        let end = min(length, bytes.count)
        while offset < length {
            guard result.packets.count < packetLimit else {
                result.problem = "more than \(packetLimit) coalesced packets"
                break
            }
            guard offset < end else {
                result.problem = "the capture holds \(bytes.count) of the datagram's \(length) bytes"
                break
            }
            let first = bytes[offset]
            if first & 0x80 == 0 {
                // A short header runs to the datagram's end (§12.2), unless it follows a long-header
                // packet and is a zero byte: then it is padding after the coalesced packets.
                if offset > 0 && first == 0 {
                    result.paddingBytes = length - offset
                } else {
                    result.packets.append(Header(type: .oneRTT, length: length - offset))
                }
                break
            }
            switch longHeader(bytes, at: offset, end: end, datagramLength: length) {
            case .success(let header):
                result.packets.append(header)
                offset += header.length
            case .failure(let problem):
                result.problem = problem.reason
                offset = length
            }
        }
        return result
    }

    struct Problem: Error { var reason: String }

    /// The long-header packet at `offset`: its header and how many bytes it takes (§17.2).
    /// - Parameters: end: the captured bytes' end (≤ `datagramLength`); datagramLength: the UDP payload's.
    static func longHeader(_ bytes: UnsafeRawBufferPointer, at offset: Int, end: Int,
                           datagramLength: Int) -> Result<Header, Problem> {
        var reader = Reader(bytes: bytes, position: offset, end: end)
        guard let first = reader.byte(), let version = reader.uint32(),
              let destinationLength = reader.byte(), let destination = reader.bytes(Int(destinationLength)),
              let sourceLength = reader.byte(), let source = reader.bytes(Int(sourceLength)) else {
            return .failure(Problem(reason: "a long header cut short at byte \(offset)"))
        }
        let rest = datagramLength - offset
        var header = Header(type: .unknownVersion, version: version, destinationID: destination, sourceID: source, length: rest)
        if version == 0 {
            header.type = .versionNegotiation  // a list of versions to the datagram's end (§17.2.1)
            return .success(header)
        }
        guard isKnown(version) else { return .success(header) }
        guard destinationLength <= 20, sourceLength <= 20 else {
            return .failure(Problem(reason: "a connection ID longer than 20 bytes at byte \(offset)"))
        }
        header.type = packetType(bits: (first >> 4) & 0x03, version: version)
        switch header.type {
        case .retry:
            return .success(header)  // a token and an integrity tag to the datagram's end (§17.2.5)
        case .initial:
            guard let tokenLength = reader.varint(), reader.skip(tokenLength) else {
                return .failure(Problem(reason: "an Initial token cut short at byte \(offset)"))
            }
        default:
            break
        }
        guard let payloadLength = reader.varint() else {
            return .failure(Problem(reason: "a Length field cut short at byte \(offset)"))
        }
        let headerBytes = reader.position - offset
        guard payloadLength <= rest - headerBytes else {
            return .failure(Problem(reason: "a Length of \(payloadLength) past the datagram's end at byte \(offset)"))
        }
        header.length = headerBytes + payloadLength
        return .success(header)
    }

    /// The long-header type bits: v1 and the drafts 0 Initial, 1 0-RTT, 2 Handshake, 3 Retry;
    /// v2 (RFC 9369 §3.2) 1 Initial, 2 0-RTT, 3 Handshake, 0 Retry.
    static func packetType(bits: UInt8, version: UInt32) -> PacketType {
        let v1Bits = version == version2 ? (bits &+ 3) & 0x03 : bits
        switch v1Bits {
        case 0: return .initial
        case 1: return .zeroRTT
        case 2: return .handshake
        default: return .retry
        }
    }

    /// A cursor over `bytes[position..<end]` whose reads return nil past `end`.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position: Int
        let end: Int

        mutating func byte() -> UInt8? {
            guard position < end else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func uint32() -> UInt32? {
            guard end - position >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 { value = value << 8 | UInt32(bytes[position]); position += 1 }
            return value
        }

        /// `count` bytes (0…`end - position`), copied.
        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count >= 0, end - position >= count else { return nil }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        /// Steps over `count` bytes (0…`end - position`); false when they are not all there.
        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, end - position >= count else { return false }
            position += count
            return true
        }

        /// A variable-length integer (§16): 1, 2, 4 or 8 bytes by its top two bits. nil when cut
        /// short or larger than `Int32.max` (no datagram holds more; keeps later arithmetic safe).
        mutating func varint() -> Int? {
            guard let first = byte() else { return nil }
            let extra = (1 << Int(first >> 6)) - 1
            guard end - position >= extra else { return nil }
            var value = UInt64(first & 0x3F)
            for _ in 0..<extra { value = value << 8 | UInt64(bytes[position]); position += 1 }
            return value <= UInt64(Int32.max) ? Int(value) : nil
        }
    }
}
