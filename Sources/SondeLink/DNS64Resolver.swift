import SondeDNS

/// The answers of a link's DNS64 (RFC 6147 §5.1, prefix 64:ff9b::/96): a pure function of a
/// client's query and what `upstream` answers; no sockets (`DNS64Server` has them).
///
/// Rules:
/// - An AAAA query (class IN) goes upstream. Its answer is relayed unchanged when it holds a
///   AAAA record outside ::ffff:0:0/96 (§5.1.4) or is NXDOMAIN (§5.1.2).
/// - Otherwise (NODATA, or an rcode other than NOERROR and NXDOMAIN, or no answer at all) the A
///   query for the same name goes upstream; when it answers A records, the response is
///   synthesized: its CNAME records as they came (the chain to the A records' owner), each A
///   record `a.b.c.d` as AAAA `64:ff9b::a.b.c.d` with TTL = min(A's TTL, the AAAA negative
///   answer's SOA TTL and minimum), or min(A's TTL, 600 s) without a SOA (§5.1.7), each TTL of
///   2^31 or more read as 0 first (RFC 2181 §8); rcode NOERROR,
///   RA set, AA clear. When the A query brings no A record, the AAAA answer is relayed (or
///   SERVFAIL when there was none).
/// - `ipv4only.arpa` (RFC 7050, RFC 8880 §7.2) is answered locally: A 192.0.0.170 and .171, AAAA
///   their synthesized forms, TTL `ipv4onlyTTL`, AA set; its other types go upstream.
/// - Every other query is relayed (with the client's id).
/// - Upstream queries are sonde's own (one question, RD set, no EDNS), so a client's EDNS
///   options and DO/CD bits do not reach the upstream (no DNSSEC through the DNS64).
/// - A malformed query gets FORMERR, one with QR set nothing, an opcode other than QUERY NOTIMP;
///   an upstream answer that does not decode, or answers another question, counts as none
///   (SERVFAIL).
/// - A response longer than `limit` bytes (512 over UDP, or the client's EDNS size up to 4096)
///   is cut to its header and question with TC set, so the client asks again over TCP (RFC 1035
///   §4.2.1, RFC 7766).
///
/// Threading: a value, callable from any thread; `upstream` is called on the caller's thread.
public struct DNS64Resolver: Sendable {
    /// Asks the upstream `query` (whose id is the resolver's own) and returns its answer's bytes,
    /// nil for none (every upstream failed or timed out).
    public typealias Upstream = (_ query: [UInt8]) -> [UInt8]?

    /// 64:ff9b::/96's first 12 bytes.
    public let prefix: [UInt8]
    /// RFC 8880 §7.2's TTL for ipv4only.arpa's records (s).
    public static let ipv4onlyTTL: UInt32 = 86_400
    /// §5.1.7: a synthesized record's TTL when the AAAA answer brought no SOA (s).
    public static let ttlWithoutSOA: UInt32 = 600
    /// The largest UDP response for a client without EDNS, and the largest EDNS size honoured.
    public static let udpLimit = 512
    public static let ednsLimit = 4096

    public init(prefix: [UInt8] = NAT64Translator.prefix) {
        precondition(prefix.count == 12)
        self.prefix = prefix
    }

    /// The response to `query` (nil: send nothing), cut to the limit of `tcp` or UDP.
    /// - Parameter nextID: the id of the next upstream query (the caller's random source).
    public func respond(to query: [UInt8], tcp: Bool, nextID: () -> UInt16, upstream: Upstream) -> [UInt8]? {
        guard query.count >= 12 else { return nil }
        let id = UInt16(query[0]) << 8 | UInt16(query[1])
        let flags = UInt16(query[2]) << 8 | UInt16(query[3])
        guard flags & DNSMessageWriter.response == 0 else { return nil }
        let rd = flags & DNSMessageWriter.recursionDesired
        guard let message = try? DNSMessage.decode(query) else { return Self.error(id: id, rd: rd, rcode: 1, question: nil) }
        guard (flags >> 11) & 0xF == 0 else { return Self.error(id: id, rd: rd, rcode: 4, question: nil) }
        guard message.questions.count == 1, let asked = message.questions.first,
              let nameWire = try? DNSMessage.encodeName(asked.name) else { return Self.error(id: id, rd: rd, rcode: 1, question: nil) }
        let question = (name: nameWire, type: asked.type, dnsClass: asked.dnsClass)
        let limit = tcp ? DNSMessageWriter.maxLength : Self.udpLimit(of: message)
        let response = answer(id: id, rd: rd, name: asked.name, question: question, nextID: nextID, upstream: upstream)
        guard response.count > limit else { return response }
        var cut = DNSMessageWriter(id: id, flags: (UInt16(response[2]) << 8 | UInt16(response[3])) | DNSMessageWriter.truncated, question: question)
        cut.flags |= DNSMessageWriter.response
        return cut.bytes
    }

    private func answer(id: UInt16, rd: UInt16, name: String, question: (name: [UInt8], type: UInt16, dnsClass: UInt16),
                        nextID: () -> UInt16, upstream: Upstream) -> [UInt8] {
        let servfail = Self.error(id: id, rd: rd, rcode: 2, question: question) ?? []
        if question.dnsClass == 1, question.type == 1 || question.type == 28, name.lowercased() == "ipv4only.arpa." {
            var local = DNSMessageWriter(id: id, flags: DNSMessageWriter.response | DNSMessageWriter.authoritative | rd
                                         | DNSMessageWriter.recursionAvailable, question: question)
            for last: UInt8 in [170, 171] {
                let v4: [UInt8] = [192, 0, 0, last]
                local.answers.append(.init(name: question.name, type: question.type, ttl: Self.ipv4onlyTTL,
                                           data: question.type == 1 ? v4 : prefix + v4))
            }
            return local.bytes ?? servfail
        }
        func ask(_ type: UInt16) -> (bytes: [UInt8], message: DNSMessage)? {
            guard let query = try? DNSMessage.query(id: nextID(), name: name, type: type, dnsClass: question.dnsClass, recursionDesired: true),
                  let bytes = upstream(query), bytes.count >= 12, let message = try? DNSMessage.decode(bytes),
                  message.flags & DNSMessageWriter.response != 0, bytes[0] == query[0], bytes[1] == query[1],
                  message.questions.count == 1, let echoed = message.questions.first,
                  echoed.type == type, echoed.dnsClass == question.dnsClass, echoed.name.lowercased() == name.lowercased()
            else { return nil }
            return (bytes, message)
        }
        func relay(_ bytes: [UInt8]) -> [UInt8] {
            var out = bytes
            out[0] = UInt8(id >> 8)
            out[1] = UInt8(id & 0xFF)
            out[2] = out[2] & ~UInt8(DNSMessageWriter.recursionDesired >> 8) | UInt8(rd >> 8)
            return out
        }
        guard question.type == 28, question.dnsClass == 1 else {
            return ask(question.type).map { relay($0.bytes) } ?? servfail
        }
        let aaaa = ask(28)
        if let aaaa {
            if aaaa.message.rcode == 3 { return relay(aaaa.bytes) }
            if aaaa.message.rcode == 0, aaaa.message.answers.contains(where: { $0.type == 28 && !Self.isMapped($0.data) }) {
                return relay(aaaa.bytes)
            }
        }
        guard let a = ask(1), a.message.rcode == 0, a.message.answers.contains(where: { $0.type == 1 && $0.data.count == 4 }) else {
            return aaaa.map { relay($0.bytes) } ?? servfail
        }
        let soa = aaaa?.message.authority.first { $0.type == 6 }
        let ceiling = soa.map { min(Self.ttl($0.ttl), Self.ttl(Self.soaMinimum($0) ?? $0.ttl)) } ?? Self.ttlWithoutSOA
        let flags = DNSMessageWriter.response | rd | DNSMessageWriter.recursionAvailable
        var synthesized = DNSMessageWriter(id: id, flags: flags, question: question)
        for record in a.message.answers {
            guard let owner = try? DNSMessage.encodeName(record.name) else { return servfail }
            if record.type == 5, let target = Self.lastField(record.text), let targetWire = try? DNSMessage.encodeName(target) {
                synthesized.answers.append(.init(name: owner, type: 5, dnsClass: record.dnsClass, ttl: Self.ttl(record.ttl), data: targetWire))
            } else if record.type == 1, record.dnsClass == 1, record.data.count == 4 {
                synthesized.answers.append(.init(name: owner, type: 28, ttl: min(Self.ttl(record.ttl), ceiling), data: prefix + record.data))
            }
        }
        return synthesized.bytes ?? servfail
    }

    /// A TTL as RFC 2181 §8 reads it: one with the top bit set (≥ 2^31) is 0.
    static func ttl(_ raw: UInt32) -> UInt32 { raw >= 1 << 31 ? 0 : raw }

    /// The UDP size a query allows: 512, or its OPT record's size (512…4096).
    static func udpLimit(of query: DNSMessage) -> Int {
        guard let opt = query.additional.first(where: { $0.type == 41 }) else { return udpLimit }
        return min(max(Int(opt.dnsClass), udpLimit), ednsLimit)
    }

    /// An address in ::ffff:0:0/96 (IPv4-mapped), which §5.1.4 does not count as a AAAA answer.
    static func isMapped(_ data: [UInt8]) -> Bool {
        data.count == 16 && data[0..<10].allSatisfy { $0 == 0 } && data[10] == 0xFF && data[11] == 0xFF
    }

    /// A SOA record's minimum (its last field in presentation form).
    static func soaMinimum(_ record: DNSMessage.Record) -> UInt32? {
        record.text.split(separator: " ").last.flatMap { UInt32($0) }
    }

    /// The data of a record's presentation form (after its last tab; tabs inside names are escaped).
    static func lastField(_ text: String) -> String? {
        text.split(separator: "\t", omittingEmptySubsequences: false).last.map(String.init)
    }

    static func error(id: UInt16, rd: UInt16, rcode: UInt16, question: (name: [UInt8], type: UInt16, dnsClass: UInt16)?) -> [UInt8]? {
        DNSMessageWriter(id: id, flags: DNSMessageWriter.response | rd | DNSMessageWriter.recursionAvailable | rcode, question: question).bytes
    }
}
