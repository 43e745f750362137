import Foundation
@testable import SondeDNS
import Testing

/// The dns prober's message codec: the query blackbox sends, responses read with every length
/// checked (compression pointers that loop, point forward or run past the end are refused), and
/// each record written as miekg/dns writes it, the text blackbox's regexes see.
@Suite struct DNSMessageTests {
    @Test func queryIsOneQuestionWithoutEDNS() throws {
        let query = try DNSMessage.query(id: 0xBEEF, name: "www.Example.com", type: 28, dnsClass: 1, recursionDesired: true)
        #expect(query == [0xBE, 0xEF, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
                          3, 119, 119, 119, 7, 69, 120, 97, 109, 112, 108, 101, 3, 99, 111, 109, 0, 0, 28, 0, 1])
        #expect(try DNSMessage.encodeName(".") == [0])
        #expect(try DNSMessage.encodeName("a\\.b.c.") == [3, 97, 46, 98, 1, 99, 0])
        #expect(try DNSMessage.encodeName("\\255x") == [2, 255, 120, 0])
        for bad in ["a..b", String(repeating: "x", count: 64) + ".com", Array(repeating: "abcdefghi", count: 30).joined(separator: "."), "x\\"] {
            #expect(throws: DNSMessage.BadName.self, "\(bad)") { try DNSMessage.encodeName(bad) }
        }
    }

    /// A response with compressed names and one record of each type written specially.
    static func response() -> [UInt8] {
        var m: [UInt8] = [0x12, 0x34, 0x81, 0x80, 0, 1, 0, 6, 0, 1, 0, 1]
        m += [7] + Array("example".utf8) + [3] + Array("com".utf8) + [0, 0, 255, 0, 1]  // question at 12, name at 12
        func record(_ type: UInt16, _ data: [UInt8], ttl: UInt32 = 300) -> [UInt8] {
            [0xC0, 12, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1] + [UInt8(ttl >> 24), UInt8(ttl >> 16 & 0xFF), UInt8(ttl >> 8 & 0xFF), UInt8(ttl & 0xFF)]
                + [UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        }
        m += record(1, [192, 0, 2, 1])
        m += record(28, [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        m += record(15, [0, 10, 4] + Array("mail".utf8) + [0xC0, 12])
        m += record(16, [5] + Array("v=a\"b".utf8) + [2, 0x00, 0xFF])
        m += record(33, [0, 1, 0, 2, 0x01, 0xBB, 0xC0, 12])
        m += record(257, [0, 5] + Array("issue".utf8) + Array("ca.example".utf8))
        m += record(6, [2] + Array("ns".utf8) + [0xC0, 12, 4] + Array("host".utf8) + [0xC0, 12, 0, 0, 0, 42, 0, 0, 0x0E, 0x10, 0, 0, 0x02, 0x58, 0, 0x09, 0x3A, 0x80, 0, 0, 0, 60])
        m += [0xC0, 12, 0x12, 0x34, 0, 1, 0, 0, 0, 5, 0, 2, 0xAB, 0xCD]  // TYPE4660, unknown
        return m
    }

    @Test func recordsReadAsMiekgWritesThem() throws {
        let message = try DNSMessage.decode(Self.response())
        #expect(message.id == 0x1234 && message.rcode == 0 && message.questions.count == 1 && message.questions[0].name == "example.com.")
        #expect(message.answers.map(\.text) == [
            "example.com.\t300\tIN\tA\t192.0.2.1",
            "example.com.\t300\tIN\tAAAA\t2001:db8::1",
            "example.com.\t300\tIN\tMX\t10 mail.example.com.",
            "example.com.\t300\tIN\tTXT\t\"v=a\\\"b\" \"\\000\\255\"",
            "example.com.\t300\tIN\tSRV\t1 2 443 example.com.",
            "example.com.\t300\tIN\tCAA\t0 issue \"ca.example\"",
        ])
        #expect(message.authority.map(\.text) == ["example.com.\t300\tIN\tSOA\tns.example.com. host.example.com. 42 3600 600 604800 60"])
        #expect(message.additional.map(\.text) == ["example.com.\t5\tCLASS1\tTYPE4660\t\\# 2 abcd"])
    }

    @Test func hostileResponsesAreRefusedNotFollowed() {
        let header: [UInt8] = [0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0]
        let cases: [(String, [UInt8])] = [
            ("a pointer to itself", header + [0xC0, 12, 0, 1, 0, 1]),
            ("a pointer forward", header + [0xC0, 14, 1, 97, 0, 0, 1, 0, 1]),
            ("two pointers to each other", header + [1, 97, 0xC0, 16, 0xC0, 12, 0, 1, 0, 1]),
            ("a label past the end", header + [40, 97, 98]),
            ("a reserved label kind", header + [0x40, 0, 0, 1, 0, 1]),
            ("a count that lies", [0, 1, 0x81, 0x80, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0]),
            ("an A record of 5 bytes", Array(header.prefix(6)) + [0, 1, 0, 0, 0, 0] + [0, 0, 1, 0, 1] + [0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5]),
            ("a short header", [0, 1, 0x81]),
        ]
        for (name, bytes) in cases {
            #expect(throws: DNSWireReader.Malformed.self, "\(name)") { try DNSMessage.decode(Array(bytes)) }
        }
        // A chain of 130 pointers, each to the one before (in an unknown record's data), and a
        // second record whose name starts at the last: more than miekg's bound of 126.
        let pointers = 130
        var data: [UInt8] = [1, 97, 0]
        for index in 0..<pointers {
            let target = index == 0 ? 23 : 26 + 2 * (index - 1)
            data += [0xC0 | UInt8(target >> 8), UInt8(target & 0xFF)]
        }
        var chain: [UInt8] = [0, 1, 0x81, 0x80, 0, 0, 0, 2, 0, 0, 0, 0]
        chain += [0, 0x12, 0x34, 0, 1, 0, 0, 0, 0, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        let last = 26 + 2 * (pointers - 1)
        chain += [0xC0 | UInt8(last >> 8), UInt8(last & 0xFF), 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4]
        #expect(throws: DNSWireReader.Malformed.badName("more than 126 compression pointers")) { try DNSMessage.decode(chain) }
        // The same chain of 100 pointers is a name like any other.
        var short: [UInt8] = [1, 97, 0]
        for index in 0..<100 { short += [0xC0, UInt8(index == 0 ? 23 : 26 + 2 * (index - 1))] }
        var fine: [UInt8] = [0, 1, 0x81, 0x80, 0, 0, 0, 2, 0, 0, 0, 0]
        fine += [0, 0x12, 0x34, 0, 1, 0, 0, 0, 0, UInt8(short.count >> 8), UInt8(short.count & 0xFF)] + short
        let lastShort = 26 + 2 * 99
        fine += [0xC0 | UInt8(lastShort >> 8), UInt8(lastShort & 0xFF), 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4]
        #expect((try? DNSMessage.decode(fine))?.answers.last?.text == "a.\t0\tIN\tA\t1.2.3.4")
    }

    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let valid = Self.response()
        let started = Date()
        for round in 0..<20_000 {
            var bytes = valid
            // Flip a few bytes of a valid response, or take random bytes of random length.
            if round % 2 == 0 {
                for _ in 0..<3 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            } else {
                bytes = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            _ = try? DNSMessage.decode(bytes)
        }
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test func ipv6AsGoWritesIt() {
        func text(_ groups: [UInt16]) -> String { DNSRecordText.ipv6Text(groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }) }
        #expect(text([0, 0, 0, 0, 0, 0, 0, 1]) == "::1")
        #expect(text([0, 0, 0, 0, 0, 0, 0, 0]) == "::")
        #expect(text([0x2001, 0xdb8, 0, 1, 0, 0, 0, 1]) == "2001:db8:0:1::1")
        #expect(text([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1]) == "2001:db8::1:0:0:1", "the first of two equal runs")
        #expect(text([0x2001, 0, 1, 2, 3, 4, 5, 6]) == "2001:0:1:2:3:4:5:6", "a single zero group is not ::")
        #expect(text([0, 0, 0, 0, 0, 0xFFFF, 0xC000, 0x0201]) == "::ffff:192.0.2.1")
        #expect(text([0, 0, 0, 0, 0, 0, 0xC000, 0x0201]) == "::c000:201", "Go does not write IPv4-compatible addresses dotted")
    }
}
