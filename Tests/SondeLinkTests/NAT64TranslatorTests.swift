import Foundation
import SondeCore
@testable import SondeLink
import Testing

/// The translator against tayga (Debian's 0.9.2) as the oracle: the same packets through both.
/// `Tests/SondeCLITests/Fixtures/tayga-oracle.json` holds the corpus and what tayga wrote for each
/// (made by `tayga_oracle.py`; `taygaStillAnswersAsTheFixtureSays` re-runs tayga, as root, and checks
/// the file). tayga follows RFC 6145's DF rule, so the translator runs with `.rfc6145` here.
@Suite struct NAT64TranslatorTests {
    struct Case: Decodable {
        let name: String
        let direction: String
        let input: String
        let tayga: [String]
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SondeCLITests/Fixtures")

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    static func address6(_ text: String) -> [UInt8] {
        var storage = in6_addr()
        _ = inet_pton(AF_INET6, text, &storage)
        return withUnsafeBytes(of: storage) { Array($0) }
    }

    /// As the oracle's tayga.conf maps the link: fd64:1::2 ↔ 192.168.255.101, tayga at 192.168.255.1.
    static func oracleTranslator() -> NAT64Translator {
        NAT64Translator(client6: address6("fd64:1::2"), client4: [192, 168, 255, 101], router4: [192, 168, 255, 1], dfRule: .rfc6145)
    }

    static func corpus(_ data: Data) throws -> [String: Case] {
        let cases = try JSONDecoder().decode([Case].self, from: data)
        return Dictionary(cases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func translate(_ item: Case, _ translator: inout NAT64Translator) -> NAT64Translator.Outcome {
        item.direction == "up" ? translator.up(bytes(item.input)) : translator.down(bytes(item.input))
    }

    /// Whether an IPv6 packet's TCP, UDP or ICMPv6 checksum is valid (an IPv4 packet's header and transport too).
    static func checksumsValid(_ p: [UInt8]) -> Bool {
        if p[0] >> 4 == 6 {
            let next = p[6], body = Array(p[40...])
            return NAT64Translator.checksum(NAT64Translator.pseudo6(src: Array(p[8..<24]), dst: Array(p[24..<40]), length: body.count, next: next) + body) == 0
        }
        let headerLength = Int(p[0] & 15) * 4, body = Array(p[headerLength...])
        guard NAT64Translator.checksum(Array(p[..<headerLength])) == 0 else { return false }
        if p[9] == 1 { return NAT64Translator.checksum(body) == 0 }
        let pseudo = Array(p[12..<20]) + [0, p[9]] + NAT64Translator.be16(UInt16(body.count))
        return NAT64Translator.checksum(pseudo + body) == 0
    }

    /// The cases where tayga and the translator write the same bytes.
    static let identical = ["tcp-syn", "tcp-1440", "tcp-traffic-class", "udp-40", "udp-1452", "udp-bad-checksum", "echo-request",
                            "port-unreachable-6", "tcp-syn-ack", "tcp-1440-df", "udp-100", "echo-reply", "port-unreachable-4",
                            "tcp-port-unreachable-4", "frag-needed-548", "time-exceeded-syn"]

    /// Compares with tayga's answers in `data`: byte for byte where both translate alike, and
    /// each documented difference as what it is.
    static func compare(_ data: Data) throws {
        let cases = try corpus(data)
        #expect(cases.count == 23)
        var translator = oracleTranslator()
        for name in identical {
            let item = try #require(cases[name], "\(name)")
            let outcome = translate(item, &translator)
            let tayga = item.tayga.map(bytes)
            if name.contains("unreachable") || name.contains("exceeded") || name.contains("frag-needed") {
                #expect(outcome == .translated(tayga.first ?? []), "\(name): \(outcome)")
            } else {
                #expect(outcome == .translated(tayga.first ?? []) && tayga.count == 1, "\(name): \(outcome) vs \(item.tayga)")
            }
        }
        // Errors both originate: the same ICMP message (type, code, MTU, quoted packet); tayga
        // sends them from its own addresses.
        for name in ["tcp-1460-df", "ttl-1"] {
            let item = try #require(cases[name])
            guard case let .reply(mine) = translate(item, &translator) else { Issue.record("\(name): no reply"); continue }
            let theirs = bytes(try #require(item.tayga.first))
            #expect(Array(mine[20...]) == Array(theirs[20...]), "\(name)")
            #expect(checksumsValid(mine))
        }
        let hop = try #require(cases["hop-limit-1"])
        guard case let .reply(mine) = translate(hop, &translator) else { Issue.record("hop-limit-1: no reply"); return }
        let theirs = bytes(try #require(hop.tayga.first))
        #expect(mine[40] == 3 && theirs[40] == 3 && mine[41] == 0 && Array(mine[48...]) == Array(theirs[48...]) && checksumsValid(mine))
        // Deliberate: 127.0.0.1 is translated (tayga refuses non-global IPv4 with "unreachable").
        let loop = try #require(cases["loopback-server"])
        #expect(bytes(loop.tayga.first ?? "")[40] == 1)
        guard case let .translated(toLoopback) = translate(loop, &translator) else { Issue.record("loopback not translated"); return }
        #expect(Array(toLoopback[16..<20]) == [127, 0, 0, 1] && checksumsValid(toLoopback))
        // DF clear and over 1280: tayga fragments, the translator (MTU 1500) does not; the same UDP datagram.
        let big = try #require(cases["udp-1300-df-clear"])
        guard case let .translated(whole) = translate(big, &translator) else { Issue.record("udp-1300 dropped"); return }
        let fragments = big.tayga.map(bytes)
        #expect(fragments.count == 2 && fragments[0][6] == 44)
        #expect(Array(whole[40...]) == Array(fragments[0][48...]) + Array(fragments[1][48...]) && checksumsValid(whole))
        // A zero UDP checksum from IPv4: tayga drops, the translator computes one (RFC 7915 §4.5).
        let zero = try #require(cases["udp-zero-checksum"])
        #expect(zero.tayga.isEmpty)
        guard case let .translated(summed) = translate(zero, &translator) else { Issue.record("zero checksum dropped"); return }
        #expect(checksumsValid(summed))
        // An error quoting only 28 bytes of TCP: tayga drops it, the translator passes it on (packet too big 1420).
        let short = try #require(cases["frag-needed-28"])
        #expect(short.tayga.isEmpty)
        guard case let .translated(tooBig) = translate(short, &translator) else { Issue.record("frag-needed-28 dropped"); return }
        #expect(tooBig[40] == 2 && NAT64Translator.u32(tooBig, 44) == 1420 && checksumsValid(tooBig))
    }

    @Test func matchesTaygaOnTheCheckedInCorpus() throws {
        try Self.compare(try Data(contentsOf: Self.fixtures.appendingPathComponent("tayga-oracle.json")))
    }

    /// Runs tayga now (root, tayga installed) on the same corpus: its answers are the fixture's.
    @Test func taygaStillAnswersAsTheFixtureSays() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/tayga") else {
            print("skipped: needs root and tayga (apt-get install tayga)")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["timeout", "60", "python3", Self.fixtures.appendingPathComponent("tayga_oracle.py").path, "sonde-oracle-\(getpid())"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let live = try Self.corpus(data), checkedIn = try Self.corpus(try Data(contentsOf: Self.fixtures.appendingPathComponent("tayga-oracle.json")))
        for (name, item) in checkedIn { #expect(live[name]?.tayga == item.tayga, "\(name)") }
        try Self.compare(data)
    }

    // MARK: Without tayga

    static let link6 = address6("fd00:5e::2"), resolver6 = address6("fd00:5e::53")

    static func linkTranslator() -> NAT64Translator {
        NAT64Translator(client6: link6, client4: [198, 18, 0, 2], router4: [198, 18, 0, 1], resolver6: resolver6, resolverPort4: 40053)
    }

    /// A UDP datagram from the link with a valid checksum.
    static func udp6(to dst: [UInt8], port: UInt16, payload: [UInt8], hopLimit: UInt8 = 64) -> [UInt8] {
        var udp = NAT64Translator.be16(5353) + NAT64Translator.be16(port) + NAT64Translator.be16(UInt16(8 + payload.count)) + [0, 0] + payload
        NAT64Translator.setU16(&udp, 6, NAT64Translator.checksum(NAT64Translator.pseudo6(src: link6, dst: dst, length: udp.count, next: 17) + udp))
        return [0x60, 0, 0, 0] + NAT64Translator.be16(UInt16(udp.count)) + [17, hopLimit] + link6 + dst + udp
    }

    @Test func theResolverIsLoopbacksPortBothWays() throws {
        var translator = Self.linkTranslator()
        guard case let .translated(up) = translator.up(Self.udp6(to: Self.resolver6, port: 53, payload: Array("query".utf8))) else {
            Issue.record("not translated"); return
        }
        #expect(Array(up[16..<20]) == [127, 0, 0, 1] && NAT64Translator.u16(up, 22) == 40053 && Self.checksumsValid(up))
        #expect(up[8] == 63, "the TTL is the hop limit less one")
        // The answer: 127.0.0.1:40053 → 198.18.0.2:5353 comes back from [resolver]:53.
        var answer = up
        answer.replaceSubrange(12..<20, with: Array(up[16..<20]) + Array(up[12..<16]))
        answer.replaceSubrange(20..<24, with: Array(up[22..<24]) + Array(up[20..<22]))
        NAT64Translator.setU16(&answer, 10, 0)
        NAT64Translator.setU16(&answer, 10, NAT64Translator.checksum(Array(answer[..<20])))
        guard case let .translated(down) = translator.down(answer) else { Issue.record("answer not translated"); return }
        #expect(Array(down[8..<24]) == Self.resolver6 && NAT64Translator.u16(down, 40) == 53 && Self.checksumsValid(down))
    }

    /// The resolver's address forwards port 53 only: any other port gets ICMPv6 port unreachable
    /// from the resolver's address, quoting the packet (so nothing else of the host's loopback is reached).
    @Test func theResolversAddressAnswersOtherPortsUnreachable() throws {
        var translator = Self.linkTranslator()
        for port: UInt16 in [22, 8080, 40053] {
            let packet = Self.udp6(to: Self.resolver6, port: port, payload: Array("probe".utf8))
            guard case let .reply(unreachable) = translator.up(packet) else { Issue.record("port \(port) forwarded"); continue }
            #expect(unreachable[40] == 1 && unreachable[41] == 4 && Array(unreachable[8..<24]) == Self.resolver6 && Array(unreachable[24..<40]) == Self.link6
                    && Array(unreachable[48...]) == packet && Self.checksumsValid(unreachable), "port \(port)")
        }
        // A TCP SYN to another port: the same.
        var tcp = NAT64Translator.be16(40000) + NAT64Translator.be16(22) + [0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0]
        NAT64Translator.setU16(&tcp, 16, NAT64Translator.checksum(NAT64Translator.pseudo6(src: Self.link6, dst: Self.resolver6, length: tcp.count, next: 6) + tcp))
        let syn = [0x60, 0, 0, 0] + NAT64Translator.be16(UInt16(tcp.count)) + [6, 64] + Self.link6 + Self.resolver6 + tcp
        guard case let .reply(refused) = translator.up(syn) else { Issue.record("TCP port 22 forwarded"); return }
        #expect(refused[40] == 1 && refused[41] == 4)
        guard case .translated = translator.up(Self.udp6(to: Self.resolver6, port: 53, payload: [1])) else { Issue.record("port 53 not forwarded"); return }
    }

    @Test func corruptChecksumsStayCorrupt() throws {
        var translator = Self.linkTranslator()
        var packet = Self.udp6(to: NAT64Translator.prefix + [127, 0, 0, 1], port: 9, payload: [1, 2, 3])
        packet[46] ^= 0x01
        guard case let .translated(out) = translator.up(packet) else { Issue.record("dropped"); return }
        #expect(!Self.checksumsValid(out))
    }

    @Test func errorsTheTranslatorAnswersItself() throws {
        var translator = Self.linkTranslator()
        // Outside the prefix: ICMPv6 unreachable (no route), quoting the packet, valid.
        guard case let .reply(unreachable) = translator.up(Self.udp6(to: Self.address6("2001:db8::1"), port: 9, payload: [1])) else {
            Issue.record("no reply"); return
        }
        #expect(unreachable[40] == 1 && unreachable[41] == 0 && Array(unreachable[24..<40]) == Self.link6 && Self.checksumsValid(unreachable))
        // Hop limit 1: time exceeded.
        guard case let .reply(exceeded) = translator.up(Self.udp6(to: NAT64Translator.prefix + [127, 0, 0, 1], port: 9, payload: [1], hopLimit: 1)) else {
            Issue.record("no reply"); return
        }
        #expect(exceeded[40] == 3 && Self.checksumsValid(exceeded))
        // Too big for IPv4 (1500): packet too big, MTU 1520 (what fits once translated).
        guard case let .reply(tooBig) = translator.up(Self.udp6(to: NAT64Translator.prefix + [127, 0, 0, 1], port: 9, payload: Array(repeating: 7, count: 1480))) else {
            Issue.record("no reply"); return
        }
        #expect(tooBig[40] == 2 && NAT64Translator.u32(tooBig, 44) == 1520 && tooBig.count <= 1280 && Self.checksumsValid(tooBig))
    }

    @Test func whatItDoesNotTranslateIsDroppedByReason() {
        var translator = Self.linkTranslator()
        #expect(translator.up([0x60, 0, 0]) == .drop(.malformed))
        #expect(translator.up(Array(repeating: 0x45, count: 60)) == .drop(.malformed))
        var fromElsewhere = Self.udp6(to: NAT64Translator.prefix + [127, 0, 0, 1], port: 9, payload: [1])
        fromElsewhere[23] ^= 1
        #expect(translator.up(fromElsewhere) == .drop(.notFromLink))
        var lying = Self.udp6(to: NAT64Translator.prefix + [127, 0, 0, 1], port: 9, payload: [1])
        lying[5] = 200  // a payload length past the packet
        #expect(translator.up(lying) == .drop(.malformed))
        var fragment = Self.udp6(to: NAT64Translator.prefix + [127, 0, 0, 1], port: 9, payload: [1])
        fragment[6] = 44
        fragment.insert(contentsOf: [17, 0, 0, 0, 0, 0, 0, 1], at: 40)
        NAT64Translator.setU16(&fragment, 4, NAT64Translator.u16(fragment, 4) + 8)
        #expect(translator.up(fragment) == .drop(.fragment))
        // Neighbor solicitation: ICMPv6 informational, not translated.
        var ns = [0x60, 0, 0, 0, 0, 8, 58, 255] + Self.link6 + NAT64Translator.prefix + [127, 0, 0, 1] + [135, 0, 0, 0, 0, 0, 0, 0]
        ns[5] = 8
        #expect(translator.up(ns) == .drop(.unsupportedICMP))
        // IPv4 to another address than the link's.
        var v4 = [UInt8](repeating: 0, count: 28)
        v4[0] = 0x45; v4[3] = 28; v4[8] = 64; v4[9] = 17
        v4.replaceSubrange(12..<20, with: [127, 0, 0, 1, 10, 0, 0, 1])
        #expect(translator.down(v4) == .drop(.notToLink))
        v4.replaceSubrange(16..<20, with: [198, 18, 0, 2])
        v4[6] = 0x20  // more fragments
        #expect(translator.down(v4) == .drop(.fragment))
        v4[2] = 0xff  // total length past the packet
        #expect(translator.down(v4) == .drop(.malformed))
    }

    /// Both sides of the translator count as one connection: the IPv6 packet going up and the
    /// IPv4 answer coming down (before translation) share the IPv4 far end.
    @Test func theConnectionTableCountsBothSidesAsOneFlow() throws {
        var translator = Self.linkTranslator()
        let up = Self.udp6(to: NAT64Translator.prefix + [127, 0, 0, 1], port: 9000, payload: [1, 2, 3])
        guard case let .translated(v4) = translator.up(up) else { Issue.record("not translated"); return }
        var answer = v4
        answer.replaceSubrange(12..<20, with: Array(v4[16..<20]) + Array(v4[12..<16]))
        answer.replaceSubrange(20..<24, with: Array(v4[22..<24]) + Array(v4[20..<22]))
        var table = LinkConnectionTable()
        var delivered = LinkCounters()
        delivered.packetsIn = 1
        delivered.packetsDelivered = 1
        up.withUnsafeBytes { table.count($0, length: up.count, direction: .up, before: LinkCounters(), after: delivered) }
        answer.withUnsafeBytes { table.count($0, length: answer.count, direction: .down, before: LinkCounters(), after: delivered) }
        #expect(table.connections.count == 1, "\(table.connections)")
        let flow = try #require(table.connections.first)
        #expect(flow.protocolName == "udp" && flow.remoteAddress == "127.0.0.1" && flow.remotePort == 9000 && flow.localPort == 5353)
        #expect(flow.up.packetsIn == 1 && flow.down.packetsIn == 1)
    }

    /// Under nat64 a DNS exchange with the link's resolver is one flow: the query to `[resolver6]:53`
    /// going up and the DNS64's answer from 127.0.0.1:`resolverPort4` coming down (before translation).
    @Test func theConnectionTableCountsADNS64ExchangeAsOneFlow() throws {
        var translator = Self.linkTranslator()
        let up = Self.udp6(to: Self.resolver6, port: 53, payload: [1, 2, 3])
        guard case let .translated(v4) = translator.up(up) else { Issue.record("not translated"); return }
        var answer = v4
        answer.replaceSubrange(12..<20, with: Array(v4[16..<20]) + Array(v4[12..<16]))
        answer.replaceSubrange(20..<24, with: Array(v4[22..<24]) + Array(v4[20..<22]))
        var table = LinkConnectionTable(translator: translator)
        var delivered = LinkCounters()
        delivered.packetsIn = 1
        delivered.packetsDelivered = 1
        up.withUnsafeBytes { table.count($0, length: up.count, direction: .up, before: LinkCounters(), after: delivered) }
        answer.withUnsafeBytes { table.count($0, length: answer.count, direction: .down, before: LinkCounters(), after: delivered) }
        #expect(table.connections.count == 1, "\(table.connections)")
        let flow = try #require(table.connections.first)
        #expect(flow.protocolName == "udp" && flow.remoteAddress == "127.0.0.1" && flow.remotePort == 40053 && flow.localPort == 5353
                && flow.service == "DNS64", "\(flow)")
        #expect(flow.up.packetsIn == 1 && flow.down.packetsIn == 1, "\(flow)")
    }
}
