/// Reads a DNS message's bytes with every length and offset range-checked: a read past the end
/// throws, a name's compression pointers must each point before the previous one (so that no
/// chain of them loops) and are at most `maxPointers`, and a name is at most 255 bytes on the
/// wire. Nothing the peer sends can make it trap, loop or allocate more than the message's size.
public struct DNSWireReader {
    public enum Malformed: Error, Equatable {
        /// A field runs past the end of the message (what was being read).
        case truncated(String)
        /// A name's label uses the reserved 0x40/0x80 kinds, or points forward, or loops.
        case badName(String)
        /// A record's data does not fit its type (an A record of 5 bytes).
        case badRecord(String)
    }

    /// miekg/dns's bound on the pointers one name may follow.
    public static let maxPointers = 126
    /// The longest name on the wire (RFC 1035 §2.3.4).
    public static let maxNameLength = 255

    public let bytes: [UInt8]
    /// The next byte to read; never beyond `bytes.count`.
    public private(set) var offset = 0

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = min(max(0, offset), bytes.count)
    }

    public var remaining: Int { bytes.count - offset }

    public mutating func u8(_ what: String) throws(Malformed) -> UInt8 {
        guard offset < bytes.count else { throw .truncated(what) }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func u16(_ what: String) throws(Malformed) -> UInt16 {
        guard remaining >= 2 else { throw .truncated(what) }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    public mutating func u32(_ what: String) throws(Malformed) -> UInt32 {
        guard remaining >= 4 else { throw .truncated(what) }
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    public mutating func take(_ count: Int, _ what: String) throws(Malformed) -> ArraySlice<UInt8> {
        guard count >= 0, remaining >= count else { throw .truncated(what) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// A name at the current offset, in presentation form (`www.example.com.`, `.` for the root;
    /// label bytes escaped as miekg/dns escapes them); the offset moves past it (past its first
    /// pointer when it has one).
    public mutating func name() throws(Malformed) -> String {
        var text = ""
        var position = offset
        var lowest = offset
        var resume: Int?
        var pointers = 0
        var wireLength = 0
        while true {
            guard position < bytes.count else { throw .truncated("a name") }
            let length = Int(bytes[position])
            switch length & 0xC0 {
            case 0x00:
                wireLength += length + 1
                guard wireLength <= Self.maxNameLength else { throw .badName("longer than 255 bytes") }
                if length == 0 {
                    offset = resume ?? position + 1
                    return text.isEmpty ? "." : text
                }
                guard position + 1 + length <= bytes.count else { throw .truncated("a label") }
                Self.appendLabel(bytes[(position + 1)...(position + length)], to: &text)
                position += 1 + length
            case 0xC0:
                guard position + 1 < bytes.count else { throw .truncated("a compression pointer") }
                let target = (length & 0x3F) << 8 | Int(bytes[position + 1])
                pointers += 1
                guard pointers <= Self.maxPointers else { throw .badName("more than \(Self.maxPointers) compression pointers") }
                // Each pointer points before every place this name was read from: no loop.
                guard target < lowest else { throw .badName("a compression pointer that does not point backwards") }
                if resume == nil { resume = position + 2 }
                lowest = target
                position = target
            default:
                throw .badName("a label of the reserved kind 0x\(String(length & 0xC0, radix: 16))")
            }
        }
    }

    /// miekg/dns's escaping of a label's bytes: `. ' @ ; ( ) " \` and space behind a backslash,
    /// bytes outside printable ASCII as `\DDD`; a `.` ends the label.
    public static func appendLabel(_ label: ArraySlice<UInt8>, to text: inout String) {
        for byte in label {
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: " "), UInt8(ascii: "'"), UInt8(ascii: "@"), UInt8(ascii: ";"), UInt8(ascii: "("),
                 UInt8(ascii: ")"), UInt8(ascii: "\""), UInt8(ascii: "\\"):
                text.append("\\")
                text.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x20...0x7E:
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += escapeByte(byte)
            }
        }
        text.append(".")
    }

    /// `\DDD`: three decimal digits.
    public static func escapeByte(_ byte: UInt8) -> String {
        let digits = String(byte)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
