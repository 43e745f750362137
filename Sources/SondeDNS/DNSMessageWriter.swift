/// Writes a DNS message (RFC 1035 §4.1): a header, at most one question and the records of the
/// three sections, every name uncompressed (a name's wire form from `DNSMessage.encodeName`). A
/// message longer than 65,535 bytes (TCP's length prefix) is refused: `bytes` returns nil.
public struct DNSMessageWriter {
    /// A record to write: `name` in wire form, `data` as it goes on the wire (names in it uncompressed).
    public struct Record: Equatable, Sendable {
        public var name: [UInt8]
        public var type: UInt16
        public var dnsClass: UInt16
        public var ttl: UInt32
        public var data: [UInt8]

        public init(name: [UInt8], type: UInt16, dnsClass: UInt16 = 1, ttl: UInt32, data: [UInt8]) {
            (self.name, self.type, self.dnsClass, self.ttl, self.data) = (name, type, dnsClass, ttl, data)
        }
    }

    /// The header's flag bits (the second 16 bits).
    public static let response: UInt16 = 0x8000
    public static let authoritative: UInt16 = 0x0400
    public static let truncated: UInt16 = 0x0200
    public static let recursionDesired: UInt16 = 0x0100
    public static let recursionAvailable: UInt16 = 0x0080

    /// The largest message TCP's two-byte length can carry.
    public static let maxLength = 65_535

    public var id: UInt16
    /// The flags, the rcode's 4 bits among them.
    public var flags: UInt16
    /// Name in wire form, type, class; nil for none.
    public var question: (name: [UInt8], type: UInt16, dnsClass: UInt16)?
    public var answers: [Record] = []
    public var authority: [Record] = []
    public var additional: [Record] = []

    public init(id: UInt16, flags: UInt16, question: (name: [UInt8], type: UInt16, dnsClass: UInt16)?) {
        self.id = id
        self.flags = flags
        self.question = question
    }

    /// The message's bytes, nil when it would exceed `maxLength` or a section holds more than 65,535 records.
    public var bytes: [UInt8]? {
        guard answers.count <= 65_535, authority.count <= 65_535, additional.count <= 65_535 else { return nil }
        var out: [UInt8] = Self.be16(id) + Self.be16(flags) + Self.be16(question == nil ? 0 : 1)
        out += Self.be16(UInt16(answers.count)) + Self.be16(UInt16(authority.count)) + Self.be16(UInt16(additional.count))
        if let question { out += question.name + Self.be16(question.type) + Self.be16(question.dnsClass) }
        for record in answers + authority + additional {
            guard record.data.count <= 65_535 else { return nil }
            out += record.name + Self.be16(record.type) + Self.be16(record.dnsClass)
            out += Self.be16(UInt16(record.ttl >> 16)) + Self.be16(UInt16(record.ttl & 0xFFFF))
            out += Self.be16(UInt16(record.data.count)) + record.data
            guard out.count <= Self.maxLength else { return nil }
        }
        return out.count <= Self.maxLength ? out : nil
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}
