/// A DNS message as the dns prober sends and reads it (RFC 1035 §4): the query it builds
/// (`query`), and a response decoded by `DNSWireReader` (every length range-checked) with each
/// record's presentation form (`DNSRecordText`), which blackbox's regexes are matched against.
public struct DNSMessage: Equatable {
    public struct Record: Equatable {
        public var name: String
        public var type: UInt16
        public var dnsClass: UInt16
        public var ttl: UInt32
        public var data: [UInt8]
        /// miekg/dns's `RR.String()` of the record.
        public var text: String

        public init(name: String, type: UInt16, dnsClass: UInt16, ttl: UInt32, data: [UInt8], text: String) {
            (self.name, self.type, self.dnsClass, self.ttl, self.data, self.text) = (name, type, dnsClass, ttl, data, text)
        }
    }

    public var id: UInt16
    /// The header's second 16 bits (QR, opcode, AA, TC, RD, RA, Z, RCODE).
    public var flags: UInt16
    public var questions: [(name: String, type: UInt16, dnsClass: UInt16)]
    public var answers: [Record]
    public var authority: [Record]
    public var additional: [Record]

    public init(id: UInt16, flags: UInt16, questions: [(name: String, type: UInt16, dnsClass: UInt16)], answers: [Record],
                authority: [Record], additional: [Record]) {
        (self.id, self.flags, self.questions) = (id, flags, questions)
        (self.answers, self.authority, self.additional) = (answers, authority, additional)
    }

    public static func == (a: DNSMessage, b: DNSMessage) -> Bool {
        a.id == b.id && a.flags == b.flags && a.answers == b.answers && a.authority == b.authority && a.additional == b.additional
            && a.questions.elementsEqual(b.questions, by: { $0.name == $1.name && $0.type == $1.type && $0.dnsClass == $1.dnsClass })
    }

    /// The response code: the header's 4 bits, and an OPT record's 8 extended bits above them (as miekg/dns reads it).
    public var rcode: Int {
        var code = Int(flags & 0x000F)
        if let opt = additional.first(where: { $0.type == 41 }) { code |= Int(opt.ttl >> 24) << 4 }
        return code
    }

    /// Why a query name cannot be sent.
    public struct BadName: Error {
        public var message: String
    }

    /// A query of one question, without EDNS (as blackbox's `dns.Msg`): `name` in presentation
    /// form (`\.` and `\DDD` escapes), made fully qualified.
    public static func query(id: UInt16, name: String, type: UInt16, dnsClass: UInt16, recursionDesired: Bool) throws(BadName) -> [UInt8] {
        var out: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), recursionDesired ? 0x01 : 0x00, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        out += try encodeName(name)
        out += [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(dnsClass >> 8), UInt8(dnsClass & 0xFF)]
        return out
    }

    /// A presentation-form name on the wire: labels of 1 to 63 bytes, 255 bytes in all.
    public static func encodeName(_ name: String) throws(BadName) -> [UInt8] {
        if name == "." { return [0] }
        var labels: [[UInt8]] = [[]]
        let bytes = Array(name.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count else { throw BadName(message: "'\(name)' ends in a backslash") }
                let digits = bytes[(index + 1)...].prefix(3)
                if digits.count == 3, digits.allSatisfy({ (0x30...0x39).contains($0) }) {
                    let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                    guard value <= 255 else { throw BadName(message: "'\(name)' has an escape above \\255") }
                    labels[labels.count - 1].append(UInt8(value))
                    index += 4
                } else {
                    labels[labels.count - 1].append(bytes[index + 1])
                    index += 2
                }
            } else if byte == UInt8(ascii: ".") {
                guard !(labels.last ?? []).isEmpty else { throw BadName(message: "'\(name)' has an empty label") }
                labels.append([])
                index += 1
            } else {
                labels[labels.count - 1].append(byte)
                index += 1
            }
        }
        if labels.last?.isEmpty == true { labels.removeLast() }  // the trailing dot of a fully qualified name
        var out: [UInt8] = []
        for label in labels {
            guard (1...63).contains(label.count) else { throw BadName(message: "'\(name)' has a label of \(label.count) bytes (1 to 63)") }
            out.append(UInt8(label.count))
            out += label
        }
        out.append(0)
        guard out.count <= DNSWireReader.maxNameLength else { throw BadName(message: "'\(name)' is longer than 255 bytes on the wire") }
        return out
    }

    /// The message in `bytes`; throws for anything malformed (as miekg/dns's `Unpack` refuses it).
    public static func decode(_ bytes: [UInt8]) throws(DNSWireReader.Malformed) -> DNSMessage {
        var reader = DNSWireReader(bytes)
        let id = try reader.u16("the header")
        let flags = try reader.u16("the header")
        let counts = [try reader.u16("the header"), try reader.u16("the header"), try reader.u16("the header"), try reader.u16("the header")]
        var questions: [(String, UInt16, UInt16)] = []
        // Each question takes at least 5 bytes and each record 11: a count beyond what is left is a lie, found when the bytes run out.
        for _ in 0..<counts[0] {
            questions.append((try reader.name(), try reader.u16("a question"), try reader.u16("a question")))
        }
        func records(_ count: UInt16) throws(DNSWireReader.Malformed) -> [Record] {
            var records: [Record] = []
            for _ in 0..<count {
                let name = try reader.name()
                let type = try reader.u16("a record header"), dnsClass = try reader.u16("a record header")
                let ttl = try reader.u32("a record header")
                let length = Int(try reader.u16("a record header"))
                let dataStart = reader.offset
                let data = Array(try reader.take(length, "a record's data"))
                let text = try DNSRecordText.text(name: name, type: type, dnsClass: dnsClass, ttl: ttl, message: bytes,
                                                  dataStart: dataStart, length: length)
                records.append(Record(name: name, type: type, dnsClass: dnsClass, ttl: ttl, data: data, text: text))
            }
            return records
        }
        let answers = try records(counts[1])
        let authority = try records(counts[2])
        let additional = try records(counts[3])
        return DNSMessage(id: id, flags: flags, questions: questions, answers: answers, authority: authority, additional: additional)
    }
}
