/// A stateless IP/ICMP translator (SIIT, RFC 7915) between an IPv6-only link and the host's IPv4,
/// with RFC 6052's well-known prefix 64:ff9b::/96: a server at IPv4 `a.b.c.d` is `64:ff9b::a.b.c.d`
/// inside, and the link's one IPv6 address (`client6`) is mapped 1:1 to its IPv4 address
/// (`client4`, 198.18.x.2). A pure value: bytes in, an `Outcome` out; no system calls.
///
/// Deliberate deviation: RFC 6052 §3.1 says the well-known prefix must not represent non-global
/// IPv4 addresses. sonde's servers are on 127/8, a LAN or docker, so every IPv4 address is
/// translated (tayga refuses 127/8 and the private ranges; see docs/link.md "IPv6-only links").
///
/// What it translates: the IPv4 and IPv6 headers (§4.1, §5.1: traffic class ↔ TOS, hop limit ↔
/// TTL decremented, flow label 0, DF and Identification by `dfRule`); TCP and UDP with their
/// checksums updated incrementally (RFC 1624, so a corrupt checksum stays corrupt); ICMP echo ↔
/// ICMPv6 echo (the pseudo-header added or removed); ICMP errors ↔ ICMPv6 errors (§4.2, §5.2:
/// unreachable, fragmentation-needed ↔ packet-too-big with MTU ∓ 20, time-exceeded,
/// parameter-problem) with the quoted packet translated too. It originates time-exceeded for hop
/// limit / TTL ≤ 1, packet-too-big / fragmentation-needed for a packet the other side's MTU cannot
/// hold, and ICMPv6 unreachable (no route) for a destination outside the prefix. A UDP datagram
/// from IPv4 with a zero checksum gets one computed (§4.5). One more mapping, the link's resolver:
/// `[resolver6]:53` is `127.0.0.1:resolverPort4` (the link's DNS64 on the host's loopback,
/// `DNS64Server`); any other port or protocol to `resolver6` (but echo) gets ICMPv6 port
/// unreachable, so the resolver's address reaches nothing else of the host's loopback.
///
/// Not translated (dropped, counted by reason): fragments both ways, extension headers other
/// than hop-by-hop, destination options and routing with no segments left, ICMP informational
/// messages other than echo (ND, MLD, …), IPv4 options (dropped from the header, as §4.1 says).
///
/// Threading: a value; the emulator thread owns one (its Identification counter mutates).
public struct NAT64Translator: Sendable {
    /// What became of a packet.
    public enum Outcome: Sendable, Equatable {
        /// The packet in the other family, to go on in its direction.
        case translated([UInt8])
        /// An ICMP error the translator answers with itself, in the sender's family, to go back
        /// toward the sender.
        case reply([UInt8])
        case drop(DropReason)
    }

    /// Why a packet was not translated.
    public enum DropReason: String, Sendable, CaseIterable {
        case malformed = "malformed"
        case notFromLink = "not from the link's address"
        case notToLink = "not to the link's address"
        case fragment = "fragment"
        case unsupportedHeader = "unsupported header"
        case unsupportedICMP = "unsupported ICMP"
    }

    /// How the 6→4 direction sets DF and Identification.
    public enum DFRule: Sendable, Equatable {
        /// RFC 7915 §5.1: up to 1260 bytes DF clear with a generated Identification, larger DF set, Identification 0.
        case rfc7915
        /// RFC 6145 (tayga 0.9.2): DF set and Identification 0 always.
        case rfc6145
    }

    /// 64:ff9b::/96's first 12 bytes.
    public static let prefix: [UInt8] = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]

    public let client6: [UInt8]
    public let client4: [UInt8]
    /// The address that originates the translator's ICMPv4 errors (the host side's TUN, 198.18.x.1).
    public let router4: [UInt8]
    /// The resolver address inside (`[resolver6]:53`), and the port of 127.0.0.1 it stands for; nil for none.
    public let resolver6: [UInt8]?
    public let resolverPort4: UInt16
    public let mtu4: Int
    public let mtu6: Int
    public var dfRule: DFRule
    private var identification: UInt16 = 0

    /// - Parameters: addresses in network byte order (16 and 4 bytes); `mtu4` the largest IPv4
    ///   packet toward the host, `mtu6` the largest IPv6 packet toward the link.
    public init(client6: [UInt8], client4: [UInt8], router4: [UInt8], resolver6: [UInt8]? = nil, resolverPort4: UInt16 = 0,
                mtu4: Int = 1500, mtu6: Int = 1500, dfRule: DFRule = .rfc7915) {
        precondition(client6.count == 16 && client4.count == 4 && router4.count == 4 && (resolver6?.count ?? 16) == 16)
        self.client6 = client6
        self.client4 = client4
        self.router4 = router4
        self.resolver6 = resolver6
        self.resolverPort4 = resolverPort4
        self.mtu4 = mtu4
        self.mtu6 = mtu6
        self.dfRule = dfRule
    }

    static let loopback4: [UInt8] = [127, 0, 0, 1]

    // MARK: IPv6 → IPv4 (up: from the link toward the host)

    /// Translates a packet the link sent (IPv6) into IPv4.
    public mutating func up(_ p: [UInt8]) -> Outcome {
        guard p.count >= 40, p[0] >> 4 == 6 else { return .drop(.malformed) }
        let payloadLength = Int(Self.u16(p, 4))
        guard 40 + payloadLength <= p.count else { return .drop(.malformed) }
        let src = Array(p[8..<24]), dst = Array(p[24..<40])
        guard src == client6 else { return .drop(.notFromLink) }
        guard let (next, offset) = Self.skipExtensions(p, end: 40 + payloadLength) else { return .drop(.unsupportedHeader) }
        if next == 44 { return .drop(.fragment) }
        var destination4: [UInt8]
        var portRewrite: UInt16?
        if let resolver6, dst == resolver6 {
            // Only the resolver's port 53 (UDP, TCP) and echo: anything else to it is port unreachable.
            let toPort53 = (next == 6 || next == 17) && offset + 4 <= 40 + payloadLength && Self.u16(p, offset + 2) == 53
            let echo = next == 58 && offset < 40 + payloadLength && p[offset] == 128
            guard toPort53 || echo else { return .reply(icmp6Error(quoting: p, type: 1, code: 4, rest: [0, 0, 0, 0], source: resolver6)) }
            destination4 = Self.loopback4
            portRewrite = resolverPort4
        } else if Array(dst[0..<12]) == Self.prefix {
            destination4 = Array(dst[12..<16])
        } else {
            return .reply(icmp6Error(quoting: p, type: 1, code: 0, rest: [0, 0, 0, 0]))
        }
        let hopLimit = p[7]
        if hopLimit <= 1 { return .reply(icmp6Error(quoting: p, type: 3, code: 0, rest: [0, 0, 0, 0])) }
        var data = Array(p[offset..<(40 + payloadLength)])
        let proto: UInt8
        switch next {
        case 58:
            proto = 1
            guard let icmp = icmp6to4(data, src: src, dst: dst) else { return .drop(.unsupportedICMP) }
            data = icmp
        case 6, 17:
            proto = next
            guard Self.updateTransport(&data, proto: next, removed: src + dst, added: client4 + destination4) else { return .drop(.malformed) }
            if let portRewrite, data.count >= 4, Self.u16(data, 2) == 53 { Self.setPort(&data, at: 2, to: portRewrite, proto: next) }
        default:
            proto = next
        }
        let total = 20 + data.count
        if total > mtu4 {
            return .reply(icmp6Error(quoting: p, type: 2, code: 0, rest: Self.be32(UInt32(mtu4 + 20))))
        }
        let header = ipv4Header(tos: Self.trafficClass(p), total: total, ttl: hopLimit - 1, proto: proto, src: client4, dst: destination4)
        return .translated(header + data)
    }

    /// ICMPv6 (echo or an error) → ICMPv4; nil when it has no IPv4 form.
    private mutating func icmp6to4(_ d: [UInt8], src: [UInt8], dst: [UInt8]) -> [UInt8]? {
        guard d.count >= 8 else { return nil }
        let type = d[0], code = d[1]
        switch type {
        case 128, 129:
            let newType: UInt8 = type == 128 ? 8 : 0
            var out = d
            out[0] = newType
            let pseudo = Self.pseudo6(src: src, dst: dst, length: d.count, next: 58)
            Self.setU16(&out, 2, Self.adjust(Self.u16(d, 2), removed: pseudo + [type, code], added: [newType, code]))
            return out
        case 1, 2, 3, 4:
            var newType: UInt8, newCode: UInt8, rest: [UInt8] = [0, 0, 0, 0]
            switch (type, code) {
            case (1, 0), (1, 2), (1, 3): (newType, newCode) = (3, 1)
            case (1, 1): (newType, newCode) = (3, 10)
            case (1, 4): (newType, newCode) = (3, 3)
            case (2, _):
                (newType, newCode) = (3, 4)
                let mtu = min(Int(Self.u32(d, 4)) - 20, mtu4)
                rest = [0, 0] + Self.be16(UInt16(clamping: max(mtu, 68)))
            case (3, _): (newType, newCode) = (11, code)
            case (4, 0):
                (newType, newCode) = (12, 0)
                guard let pointer = Self.pointer6to4(Self.u32(d, 4)) else { return nil }
                rest = [pointer, 0, 0, 0]
            case (4, 1): (newType, newCode) = (3, 2)
            default: return nil
            }
            guard let inner = quoted6to4(Array(d[8...])) else { return nil }
            var body = [newType, newCode, 0, 0] + rest + inner
            if body.count > 576 - 20 { body = Array(body.prefix(576 - 20)) }
            Self.setU16(&body, 2, Self.checksum(body))
            return body
        default:
            return nil
        }
    }

    /// The packet an ICMPv6 error quotes (it went toward the link: server → client) in IPv4.
    private func quoted6to4(_ p: [UInt8]) -> [UInt8]? {
        guard p.count >= 40, p[0] >> 4 == 6 else { return nil }
        let src = Array(p[8..<24]), dst = Array(p[24..<40])
        guard let src4 = address4(src), let dst4 = address4(dst) else { return nil }
        guard let (next, offset) = Self.skipExtensions(p, end: p.count), next != 44 else { return nil }
        var data = Array(p[offset...])
        let proto: UInt8 = next == 58 ? 1 : next
        if next == 58 {
            guard data.count >= 4, data[0] == 128 || data[0] == 129 else { return nil }
            let type = data[0], newType: UInt8 = type == 128 ? 8 : 0
            let pseudo = Self.pseudo6(src: src, dst: dst, length: Int(Self.u16(p, 4)) - (offset - 40), next: 58)
            data[0] = newType
            Self.setU16(&data, 2, Self.adjust(Self.u16(data, 2), removed: pseudo + [type, data[1]], added: [newType, data[1]]))
        } else if next == 6 || next == 17 {
            _ = Self.updateTransport(&data, proto: next, removed: src + dst, added: src4 + dst4)
        }
        var header: [UInt8] = [0x45, Self.trafficClass(p)] + Self.be16(UInt16(clamping: 20 + Int(Self.u16(p, 4)) - (offset - 40)))
        header += [0, 0, 0x40, 0, p[7], proto, 0, 0] + src4 + dst4
        Self.setU16(&header, 10, Self.checksum(header))
        return header + data
    }

    /// An address of a quoted IPv6 packet in IPv4: the link's, the resolver's or one in the prefix.
    private func address4(_ a: [UInt8]) -> [UInt8]? {
        if a == client6 { return client4 }
        if let resolver6, a == resolver6 { return Self.loopback4 }
        if Array(a[0..<12]) == Self.prefix { return Array(a[12..<16]) }
        return nil
    }

    /// An ICMPv6 error the translator sends back to the link about `p` (its IPv6 packet), from
    /// `source` (default: the prefix's form of `router4`), cut to 1280 bytes.
    private func icmp6Error(quoting p: [UInt8], type: UInt8, code: UInt8, rest: [UInt8], source: [UInt8]? = nil) -> [UInt8] {
        let from = source ?? Self.prefix + router4
        var body = [type, code, 0, 0] + rest + p
        if body.count > 1280 - 40 { body = Array(body.prefix(1280 - 40)) }
        Self.setU16(&body, 2, Self.checksum(Self.pseudo6(src: from, dst: client6, length: body.count, next: 58) + body))
        return [0x60, 0, 0, 0] + Self.be16(UInt16(body.count)) + [58, 64] + from + client6 + body
    }

    // MARK: IPv4 → IPv6 (down: from the host toward the link)

    /// Translates a packet for the link (IPv4, to `client4`) into IPv6.
    public mutating func down(_ p: [UInt8]) -> Outcome {
        guard p.count >= 20, p[0] >> 4 == 4 else { return .drop(.malformed) }
        let headerLength = Int(p[0] & 0x0f) * 4
        let total = Int(Self.u16(p, 2))
        guard headerLength >= 20, total >= headerLength, total <= p.count else { return .drop(.malformed) }
        let src4 = Array(p[12..<16]), dst4 = Array(p[16..<20])
        guard dst4 == client4 else { return .drop(.notToLink) }
        if Self.u16(p, 6) & 0x3fff != 0 { return .drop(.fragment) }
        let ttl = p[8], proto = p[9]
        if ttl <= 1 { return .reply(icmp4Error(quoting: p, type: 11, code: 0, rest: [0, 0, 0, 0])) }
        var src6 = Self.prefix + src4
        var data = Array(p[headerLength..<total])
        if proto == 17 || proto == 6, data.count >= 8, let resolver6, src4 == Self.loopback4, Self.u16(data, 0) == resolverPort4 {
            src6 = resolver6
        }
        let next: UInt8
        switch proto {
        case 1:
            next = 58
            guard let icmp = icmp4to6(data, src6: src6) else { return .drop(.unsupportedICMP) }
            data = icmp
        case 6, 17:
            next = proto
            if proto == 17, data.count >= 8, Self.u16(data, 6) == 0 {
                // §4.5: an unfragmented UDP datagram without a checksum gets one (IPv6 requires it).
                Self.setU16(&data, 6, 0)
                var sum = Self.checksum(Self.pseudo6(src: src6, dst: client6, length: data.count, next: 17) + data)
                if sum == 0 { sum = 0xffff }
                Self.setU16(&data, 6, sum)
            } else {
                guard Self.updateTransport(&data, proto: proto, removed: src4 + dst4, added: src6 + client6) else { return .drop(.malformed) }
            }
            if src6 == resolver6 { Self.setPort(&data, at: 0, to: 53, proto: proto) }
        default:
            next = proto
        }
        if 40 + data.count > mtu6 {
            if Self.u16(p, 6) & 0x4000 != 0 {
                return .reply(icmp4Error(quoting: p, type: 3, code: 4, rest: [0, 0] + Self.be16(UInt16(mtu6 - 20))))
            }
            return .drop(.fragment)
        }
        let header = [0x60 | (p[1] >> 4), (p[1] & 0x0f) << 4, 0, 0] + Self.be16(UInt16(data.count)) + [next, ttl - 1] + src6 + client6
        return .translated(header + data)
    }

    /// ICMPv4 (echo or an error) → ICMPv6; nil when it has no IPv6 form.
    private func icmp4to6(_ d: [UInt8], src6: [UInt8]) -> [UInt8]? {
        guard d.count >= 8 else { return nil }
        let type = d[0], code = d[1]
        switch type {
        case 0, 8:
            let newType: UInt8 = type == 8 ? 128 : 129
            var out = d
            out[0] = newType
            let pseudo = Self.pseudo6(src: src6, dst: client6, length: d.count, next: 58)
            Self.setU16(&out, 2, Self.adjust(Self.u16(d, 2), removed: [type, code], added: pseudo + [newType, code]))
            return out
        case 3, 11, 12:
            var newType: UInt8, newCode: UInt8, rest: [UInt8] = [0, 0, 0, 0]
            switch (type, code) {
            case (3, 4):
                (newType, newCode) = (2, 0)
                var mtu = Int(Self.u16(d, 6))
                if mtu == 0 { mtu = mtu4 }  // a router of RFC 1191's era: no MTU given
                rest = Self.be32(UInt32(min(mtu + 20, mtu6)))
            case (3, 2): (newType, newCode, rest) = (4, 1, Self.be32(6))
            case (3, 0), (3, 1), (3, 5), (3, 6), (3, 7), (3, 8), (3, 11), (3, 12): (newType, newCode) = (1, 0)
            case (3, 3): (newType, newCode) = (1, 4)
            case (3, 9), (3, 10), (3, 13), (3, 15): (newType, newCode) = (1, 1)
            case (11, _): (newType, newCode) = (3, code)
            case (12, 0), (12, 2):
                (newType, newCode) = (4, 0)
                guard let pointer = Self.pointer4to6(d[4]) else { return nil }
                rest = Self.be32(UInt32(pointer))
            default: return nil
            }
            guard let inner = quoted4to6(Array(d[8...])) else { return nil }
            var body = [newType, newCode, 0, 0] + rest + inner
            if body.count > 1280 - 40 { body = Array(body.prefix(1280 - 40)) }
            Self.setU16(&body, 2, Self.checksum(Self.pseudo6(src: src6, dst: client6, length: body.count, next: 58) + body))
            return body
        default:
            return nil
        }
    }

    /// The packet an ICMPv4 error quotes (it went from the link: client → server) in IPv6. It
    /// needs the transport's checksum (tayga drops one quoting less than the TCP header).
    private func quoted4to6(_ p: [UInt8]) -> [UInt8]? {
        guard p.count >= 20, p[0] >> 4 == 4 else { return nil }
        let headerLength = Int(p[0] & 0x0f) * 4
        guard headerLength >= 20, p.count >= headerLength else { return nil }
        let proto = p[9]
        let src4 = Array(p[12..<16]), dst4 = Array(p[16..<20])
        let src6 = src4 == client4 ? client6 : Self.prefix + src4
        var data = Array(p[headerLength...])
        // Only the link resolver's own port of 127.0.0.1 stands for `[resolver6]:53`; any other port
        // of the host's loopback is `64:ff9b::127.0.0.1` (a closed UDP port's error must match the
        // client's socket, which sent to 64:ff9b::7f00:1).
        let toResolver = resolver6 != nil && dst4 == Self.loopback4 && (proto == 6 || proto == 17) && data.count >= 4
            && Self.u16(data, 2) == resolverPort4
        let dst6 = dst4 == client4 ? client6 : toResolver ? (resolver6 ?? Self.prefix + dst4) : Self.prefix + dst4
        let innerPayload = Int(Self.u16(p, 2)) - headerLength
        let next: UInt8 = proto == 1 ? 58 : proto
        if proto == 1 {
            guard data.count >= 4, data[0] == 8 || data[0] == 0 else { return nil }
            let type = data[0], newType: UInt8 = type == 8 ? 128 : 129
            data[0] = newType
            let pseudo = Self.pseudo6(src: src6, dst: dst6, length: innerPayload, next: 58)
            Self.setU16(&data, 2, Self.adjust(Self.u16(data, 2), removed: [type, data[1]], added: pseudo + [newType, data[1]]))
        } else if proto == 6 || proto == 17 {
            guard Self.updateTransport(&data, proto: proto, removed: src4 + dst4, added: src6 + dst6) else { return nil }
            if toResolver { Self.setPort(&data, at: 2, to: 53, proto: proto) }
        }
        let header = [0x60 | (p[1] >> 4), (p[1] & 0x0f) << 4, 0, 0] + Self.be16(UInt16(clamping: max(innerPayload, 0))) + [next, p[8]] + src6 + dst6
        return header + data
    }

    /// An ICMPv4 error the translator sends back toward the host about `p` (its IPv4 packet),
    /// from `router4`, cut to 576 bytes.
    private mutating func icmp4Error(quoting p: [UInt8], type: UInt8, code: UInt8, rest: [UInt8]) -> [UInt8] {
        var body = [type, code, 0, 0] + rest + p
        if body.count > 576 - 20 { body = Array(body.prefix(576 - 20)) }
        Self.setU16(&body, 2, Self.checksum(body))
        let header = ipv4Header(tos: 0, total: 20 + body.count, ttl: 64, proto: 1, src: router4, dst: Array(p[12..<16]), forceDF: false)
        return header + body
    }

    // MARK: Headers

    private mutating func ipv4Header(tos: UInt8, total: Int, ttl: UInt8, proto: UInt8, src: [UInt8], dst: [UInt8], forceDF: Bool? = nil) -> [UInt8] {
        var id: UInt16 = 0, flags: UInt16 = 0x4000
        if forceDF == false || (forceDF == nil && dfRule == .rfc7915 && total <= 1260) {
            identification &+= 1
            id = identification
            flags = 0
        }
        var header: [UInt8] = [0x45, tos] + Self.be16(UInt16(total)) + Self.be16(id) + Self.be16(flags) + [ttl, proto, 0, 0] + src + dst
        Self.setU16(&header, 10, Self.checksum(header))
        return header
    }

    /// The upper-layer protocol and its offset after the skippable extension headers (hop-by-hop,
    /// destination options, routing with no segments left); nil for any other (or a broken) chain.
    /// A fragment header (44) is returned as the protocol, for the caller to refuse.
    static func skipExtensions(_ p: [UInt8], end: Int) -> (UInt8, Int)? {
        var next = p[6], offset = 40
        for _ in 0..<8 {
            switch next {
            case 0, 60, 43:
                guard offset + 8 <= end else { return nil }
                if next == 43, p[offset + 3] != 0 { return nil }
                let length = (Int(p[offset + 1]) + 1) * 8
                next = p[offset]
                offset += length
                guard offset <= end else { return nil }
            default:
                return (next, offset)
            }
        }
        return nil
    }

    /// §5.4's map of an ICMPv6 parameter-problem pointer to ICMPv4's (nil: no IPv4 field).
    static func pointer6to4(_ pointer: UInt32) -> UInt8? {
        switch pointer {
        case 0: return 0
        case 1: return 1
        case 4, 5: return 2
        case 6: return 9
        case 7: return 8
        case 8...23: return 12
        case 24...39: return 16
        default: return nil
        }
    }

    /// §4.2's map of an ICMPv4 parameter-problem pointer to ICMPv6's (nil: no IPv6 field).
    static func pointer4to6(_ pointer: UInt8) -> Int? {
        switch pointer {
        case 0: return 0
        case 1: return 1
        case 2, 3: return 4
        case 8: return 7
        case 9: return 6
        case 12...15: return 8
        case 16...19: return 24
        default: return nil
        }
    }

    // MARK: Checksums (RFC 1071, RFC 1624)

    /// Updates a TCP or UDP checksum for new pseudo-header addresses; false when the header is
    /// cut short (a quoted packet may hold only 8 bytes of TCP: then it is left alone and true).
    static func updateTransport(_ data: inout [UInt8], proto: UInt8, removed: [UInt8], added: [UInt8]) -> Bool {
        let offset = proto == 6 ? 16 : 6
        guard data.count >= offset + 2 else { return data.count >= 8 }
        let old = u16(data, offset)
        if proto == 17 && old == 0 { return true }
        var new = adjust(old, removed: removed, added: added)
        if proto == 17 && new == 0 { new = 0xffff }
        setU16(&data, offset, new)
        return true
    }

    /// Sets a port (at `offset`: 0 source, 2 destination) and updates the checksum.
    static func setPort(_ data: inout [UInt8], at offset: Int, to port: UInt16, proto: UInt8) {
        let old = be16(u16(data, offset))
        setU16(&data, offset, port)
        _ = updateTransport(&data, proto: proto, removed: old, added: be16(port))
    }

    /// RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m').
    static func adjust(_ old: UInt16, removed: [UInt8], added: [UInt8]) -> UInt16 {
        let sum = UInt32(~old) + UInt32(fold(sum16(added))) + UInt32(~fold(sum16(removed)))
        return ~fold(sum)
    }

    static func sum16(_ bytes: [UInt8]) -> UInt32 {
        var sum: UInt32 = 0
        var index = 0
        while index + 1 < bytes.count {
            sum &+= UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
            index += 2
        }
        if index < bytes.count { sum &+= UInt32(bytes[index]) << 8 }
        return sum
    }

    static func fold(_ value: UInt32) -> UInt16 {
        var sum = value
        while sum >> 16 != 0 { sum = (sum & 0xffff) + (sum >> 16) }
        return UInt16(sum)
    }

    /// The Internet checksum of `bytes` (0 when they hold a valid one).
    public static func checksum(_ bytes: [UInt8]) -> UInt16 { ~fold(sum16(bytes)) }

    /// IPv6's pseudo-header.
    static func pseudo6(src: [UInt8], dst: [UInt8], length: Int, next: UInt8) -> [UInt8] {
        src + dst + be32(UInt32(clamping: max(length, 0))) + [0, 0, 0, next]
    }

    static func trafficClass(_ p: [UInt8]) -> UInt8 { (p[0] & 0x0f) << 4 | p[1] >> 4 }
    static func u16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(u16(b, i)) << 16 | UInt32(u16(b, i + 2)) }
    static func setU16(_ b: inout [UInt8], _ i: Int, _ v: UInt16) { b[i] = UInt8(v >> 8); b[i + 1] = UInt8(v & 0xff) }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
}
