import SondeDNS
@testable import SondeLink
import Testing

/// The link's DNS64 rules (`DNS64Resolver`, RFC 6147 §5.1) against an in-process upstream: a table
/// of (name, type) → answer, which records every question it is asked.
@Suite struct DNS64Tests {
    /// An upstream zone: each (lower-cased name, type) has an rcode, answer records and a SOA or not.
    final class Upstream {
        struct Entry {
            var rcode: UInt16 = 0
            var answers: [DNSMessageWriter.Record] = []
            var soa: (ttl: UInt32, minimum: UInt32)?
        }

        var entries: [String: Entry] = [:]
        var asked: [(String, UInt16)] = []

        func set(_ name: String, _ type: UInt16, _ entry: Entry) { entries["\(name.lowercased())/\(type)"] = entry }

        func answer(_ query: [UInt8]) -> [UInt8]? {
            guard let message = try? DNSMessage.decode(query), let question = message.questions.first,
                  let name = try? DNSMessage.encodeName(question.name) else { return nil }
            asked.append((question.name, question.type))
            let entry = entries["\(question.name.lowercased())/\(question.type)"] ?? Entry(rcode: 3, soa: (3600, 3600))
            var response = DNSMessageWriter(id: message.id, flags: 0x8180 | entry.rcode, question: (name, question.type, question.dnsClass))
            response.answers = entry.answers
            if let soa = entry.soa {
                let zone = try! DNSMessage.encodeName("test.")
                let data = try! DNSMessage.encodeName("ns.test.") + DNSMessage.encodeName("admin.test.") + [0, 0, 0, 1, 0, 0, 0, 60, 0, 0, 0, 60, 0, 0, 0, 60]
                    + [UInt8(soa.minimum >> 24), UInt8((soa.minimum >> 16) & 255), UInt8((soa.minimum >> 8) & 255), UInt8(soa.minimum & 255)]
                response.authority = [.init(name: zone, type: 6, ttl: soa.ttl, data: data)]
            }
            return response.bytes
        }
    }

    static func name(_ text: String) -> [UInt8] { (try? DNSMessage.encodeName(text)) ?? [] }
    static func a(_ owner: String, _ address: [UInt8], ttl: UInt32 = 120) -> DNSMessageWriter.Record {
        .init(name: name(owner), type: 1, ttl: ttl, data: address)
    }
    static func cname(_ owner: String, _ target: String, ttl: UInt32 = 300) -> DNSMessageWriter.Record {
        .init(name: name(owner), type: 5, ttl: ttl, data: name(target))
    }

    /// Asks `name` of `type` with id 0x1234 and returns the decoded response.
    static func ask(_ upstream: Upstream, _ queryName: String, type: UInt16 = 28, tcp: Bool = false) throws -> (DNSMessage, [UInt8]) {
        let query = try DNSMessage.query(id: 0x1234, name: queryName, type: type, dnsClass: 1, recursionDesired: true)
        var next: UInt16 = 100
        let bytes = try #require(DNS64Resolver().respond(to: query, tcp: tcp, nextID: { next += 1; return next }) { upstream.answer($0) })
        return (try DNSMessage.decode(bytes), bytes)
    }

    static func texts(_ message: DNSMessage) -> [String] { message.answers.map(\.text) }

    @Test func anAOnlyNameGetsASynthesizedAAAAWithTheSOAMinimumAsItsTTL() throws {
        let upstream = Upstream()
        upstream.set("v4only.test.", 28, .init(soa: (300, 60)))
        upstream.set("v4only.test.", 1, .init(answers: [Self.a("v4only.test.", [127, 0, 0, 1], ttl: 120)]))
        let (response, _) = try Self.ask(upstream, "v4only.test")
        #expect(response.id == 0x1234 && response.rcode == 0 && response.flags & 0x8080 == 0x8080 && response.flags & 0x0400 == 0)
        #expect(Self.texts(response) == ["v4only.test.\t60\tIN\tAAAA\t64:ff9b::7f00:1"])
        #expect(upstream.asked.map(\.1) == [28, 1])
        // Without a SOA: min(A's TTL, 600 s).
        upstream.set("v4only.test.", 28, .init())
        upstream.set("v4only.test.", 1, .init(answers: [Self.a("v4only.test.", [192, 0, 2, 7], ttl: 7200)]))
        #expect(Self.texts(try Self.ask(upstream, "v4only.test").0) == ["v4only.test.\t600\tIN\tAAAA\t64:ff9b::c000:207"])
    }

    /// RFC 2181 §8: a TTL with the top bit set is 0, in the A records, the SOA and its minimum.
    @Test func aTTLWithTheTopBitSetIsZero() throws {
        let upstream = Upstream()
        upstream.set("huge.test.", 28, .init(soa: (UInt32.max, UInt32.max)))
        upstream.set("huge.test.", 1, .init(answers: [Self.a("huge.test.", [127, 0, 0, 9], ttl: UInt32.max)]))
        #expect(Self.texts(try Self.ask(upstream, "huge.test").0) == ["huge.test.\t0\tIN\tAAAA\t64:ff9b::7f00:9"])
        upstream.set("huge.test.", 28, .init())
        upstream.set("huge.test.", 1, .init(answers: [Self.a("huge.test.", [127, 0, 0, 9], ttl: 1 << 31)]))
        #expect(Self.texts(try Self.ask(upstream, "huge.test").0) == ["huge.test.\t0\tIN\tAAAA\t64:ff9b::7f00:9"], "not min(2^31, 600)")
        upstream.set("huge.test.", 28, .init(soa: (1 << 31, 60)))
        upstream.set("huge.test.", 1, .init(answers: [Self.a("huge.test.", [127, 0, 0, 9], ttl: (1 << 31) - 1)]))
        #expect(Self.texts(try Self.ask(upstream, "huge.test").0) == ["huge.test.\t0\tIN\tAAAA\t64:ff9b::7f00:9"], "the SOA's TTL of 2^31 is 0")
    }

    @Test func aCNAMEToAnAOnlyNameKeepsTheChain() throws {
        let upstream = Upstream()
        upstream.set("www.alias.test.", 28, .init(answers: [Self.cname("www.alias.test.", "v4only.test.")], soa: (3600, 3600)))
        upstream.set("www.alias.test.", 1, .init(answers: [Self.cname("www.alias.test.", "v4only.test."), Self.a("v4only.test.", [10, 1, 2, 3]),
                                                           Self.a("v4only.test.", [10, 1, 2, 4])]))
        let (response, _) = try Self.ask(upstream, "www.alias.test")
        #expect(Self.texts(response) == ["www.alias.test.\t300\tIN\tCNAME\tv4only.test.", "v4only.test.\t120\tIN\tAAAA\t64:ff9b::a01:203",
                                         "v4only.test.\t120\tIN\tAAAA\t64:ff9b::a01:204"])
    }

    @Test func aRealAAAAPassesThroughUnchanged() throws {
        let upstream = Upstream()
        let v6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [0x10]
        upstream.set("dual.test.", 28, .init(answers: [.init(name: Self.name("dual.test."), type: 28, ttl: 30, data: v6)]))
        upstream.set("dual.test.", 1, .init(answers: [Self.a("dual.test.", [127, 0, 0, 1])]))
        let (response, bytes) = try Self.ask(upstream, "dual.test")
        #expect(Self.texts(response) == ["dual.test.\t30\tIN\tAAAA\t2001:db8::10"])
        #expect(upstream.asked.map(\.1) == [28], "the A record must not be asked for")
        // Byte for byte what the upstream sent, but for the id.
        var expected = try #require(upstream.answer(try DNSMessage.query(id: 0x1234, name: "dual.test", type: 28, dnsClass: 1, recursionDesired: true)))
        expected[0] = 0x12
        expected[1] = 0x34
        #expect(bytes == expected)
    }

    @Test func aMappedAAAAIsNotAnAnswer() throws {
        let upstream = Upstream()
        let mapped: [UInt8] = [UInt8](repeating: 0, count: 10) + [0xff, 0xff, 127, 0, 0, 1]
        upstream.set("mapped.test.", 28, .init(answers: [.init(name: Self.name("mapped.test."), type: 28, ttl: 30, data: mapped)]))
        upstream.set("mapped.test.", 1, .init(answers: [Self.a("mapped.test.", [127, 0, 0, 2])]))
        #expect(Self.texts(try Self.ask(upstream, "mapped.test").0) == ["mapped.test.\t120\tIN\tAAAA\t64:ff9b::7f00:2"])
    }

    @Test func nxdomainIsRelayedWithoutAskingForA() throws {
        let upstream = Upstream()
        let (response, _) = try Self.ask(upstream, "missing.test")
        #expect(response.rcode == 3 && response.answers.isEmpty && response.authority.first?.type == 6)
        #expect(upstream.asked.map(\.1) == [28])
    }

    @Test func nodataForBothIsRelayed() throws {
        let upstream = Upstream()
        upstream.set("empty.test.", 28, .init(soa: (300, 60)))
        upstream.set("empty.test.", 1, .init(soa: (300, 60)))
        let (response, _) = try Self.ask(upstream, "empty.test")
        #expect(response.rcode == 0 && response.answers.isEmpty && response.authority.first?.type == 6)
        #expect(upstream.asked.map(\.1) == [28, 1])
    }

    @Test func servfailForAAAAStillSynthesizesAndServfailForBothIsRelayed() throws {
        let upstream = Upstream()
        upstream.set("flaky.test.", 28, .init(rcode: 2))
        upstream.set("flaky.test.", 1, .init(answers: [Self.a("flaky.test.", [127, 0, 0, 3])]))
        let (synthesized, _) = try Self.ask(upstream, "flaky.test")
        #expect(synthesized.rcode == 0 && Self.texts(synthesized) == ["flaky.test.\t120\tIN\tAAAA\t64:ff9b::7f00:3"])
        upstream.set("flaky.test.", 1, .init(rcode: 2))
        #expect(try Self.ask(upstream, "flaky.test").0.rcode == 2)
        // No upstream answer at all: SERVFAIL.
        let query = try DNSMessage.query(id: 7, name: "x.test", type: 28, dnsClass: 1, recursionDesired: true)
        let none = try #require(DNS64Resolver().respond(to: query, tcp: false, nextID: { 1 }) { _ in nil })
        #expect(try DNSMessage.decode(none).rcode == 2)
    }

    @Test func ipv4onlyArpaIsAnsweredLocally() throws {
        let upstream = Upstream()
        let (aaaa, _) = try Self.ask(upstream, "IPv4only.arpa")
        #expect(Self.texts(aaaa) == ["IPv4only.arpa.\t86400\tIN\tAAAA\t64:ff9b::c000:aa", "IPv4only.arpa.\t86400\tIN\tAAAA\t64:ff9b::c000:ab"])
        #expect(aaaa.flags & 0x0400 != 0)
        let (a, _) = try Self.ask(upstream, "ipv4only.arpa", type: 1)
        #expect(Self.texts(a) == ["ipv4only.arpa.\t86400\tIN\tA\t192.0.0.170", "ipv4only.arpa.\t86400\tIN\tA\t192.0.0.171"])
        #expect(upstream.asked.isEmpty)
    }

    @Test func aLongAnswerIsTruncatedOverUDPAndWholeOverTCP() throws {
        let upstream = Upstream()
        upstream.set("many.test.", 28, .init(soa: (300, 300)))
        upstream.set("many.test.", 1, .init(answers: (1...40).map { Self.a("many.test.", [10, 0, 0, UInt8($0)]) }))
        let (udp, udpBytes) = try Self.ask(upstream, "many.test")
        #expect(udp.flags & 0x0200 != 0 && udp.answers.isEmpty && udp.questions.count == 1 && udpBytes.count <= 512)
        let (tcp, _) = try Self.ask(upstream, "many.test", tcp: true)
        #expect(tcp.flags & 0x0200 == 0 && tcp.answers.count == 40 && tcp.answers.allSatisfy { $0.type == 28 })
    }

    @Test func otherTypesAreRelayedAndBadQueriesRefused() throws {
        let upstream = Upstream()
        upstream.set("v4only.test.", 1, .init(answers: [Self.a("v4only.test.", [127, 0, 0, 1])]))
        #expect(Self.texts(try Self.ask(upstream, "v4only.test", type: 1).0) == ["v4only.test.\t120\tIN\tA\t127.0.0.1"])
        let resolver = DNS64Resolver()
        // Too short: nothing. A response (QR set): nothing. Garbage after a header: FORMERR.
        #expect(resolver.respond(to: [1, 2, 3], tcp: false, nextID: { 1 }) { _ in nil } == nil)
        var response = try DNSMessage.query(id: 9, name: "v4only.test", type: 28, dnsClass: 1, recursionDesired: true)
        response[2] |= 0x80
        #expect(resolver.respond(to: response, tcp: false, nextID: { 1 }) { _ in nil } == nil)
        let garbage: [UInt8] = [0, 9, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 0xFF]
        let formerr = try #require(resolver.respond(to: garbage, tcp: false, nextID: { 1 }) { _ in nil })
        #expect(try DNSMessage.decode(formerr).rcode == 1 && formerr[0] == 0 && formerr[1] == 9)
        // An upstream answer to another question counts as none.
        let query = try DNSMessage.query(id: 5, name: "v4only.test", type: 1, dnsClass: 1, recursionDesired: true)
        let wrong = try #require(resolver.respond(to: query, tcp: false, nextID: { 1 }) { _ in upstream.answer(try! DNSMessage.query(id: 1, name: "other.test", type: 1, dnsClass: 1, recursionDesired: true)) })
        #expect(try DNSMessage.decode(wrong).rcode == 2)
    }

    @Test func resolvConfKeepsSearchAndOptionsAndReadsNumericNameservers() {
        let conf = LinkResolvConf.parse("# c\nnameserver 127.0.0.53\nnameserver fe80::1%eth0\nnameserver ::1\nsearch example.com\noptions edns0 trust-ad\nnameserver 10.0.0.1\nnameserver 10.0.0.2\nnameserver bogus\n")
        #expect(conf.upstreams == [.init(address: "127.0.0.53", family: 4), .init(address: "::1", family: 6), .init(address: "10.0.0.1", family: 4)])
        #expect(conf.linkFile.hasSuffix("nameserver fd53:6f6e:6465::53\nsearch example.com\noptions edns0 trust-ad\n"))
    }
}
