/// A record in miekg/dns's presentation form (`RR.String()`), the text blackbox_exporter's
/// `validate_*_rrs` regexes are matched against: `name<TAB>ttl<TAB>class<TAB>type<TAB>data`.
/// The data is written as miekg writes it for A, AAAA, NS, CNAME, PTR, DNAME, MB, MG, MR, MD,
/// MF, MX, KX, RT, AFSDB, TXT, SPF, HINFO, SOA, SRV, CAA, NAPTR and OPT; any other type in RFC
/// 3597's generic form (`name ttl CLASSn TYPEn \# length hex`), as miekg writes a type it does
/// not know (for a type it knows, such as DS or TLSA, its own form differs from this).
public enum DNSRecordText {
    public static func text(name: String, type: UInt16, dnsClass: UInt16, ttl: UInt32, message: [UInt8], dataStart: Int,
                     length: Int) throws(DNSWireReader.Malformed) -> String {
        let end = dataStart + length
        var reader = DNSWireReader(message, offset: dataStart)
        let header = "\(name)\t\(ttl)\t\(DNSCodes.className(dnsClass))\t\(DNSCodes.typeName(type))\t"
        func check() throws(DNSWireReader.Malformed) {
            guard reader.offset <= end else { throw .badRecord("\(DNSCodes.typeName(type)) data longer than its length") }
        }
        func strings() throws(DNSWireReader.Malformed) -> [ArraySlice<UInt8>] {
            var parts: [ArraySlice<UInt8>] = []
            while reader.offset < end {
                let count = Int(try reader.u8("a character string"))
                parts.append(try reader.take(count, "a character string"))
                try check()
            }
            return parts
        }
        switch type {
        case 1:  // A
            guard length == 4 else { throw .badRecord("an A record of \(length) bytes") }
            return header + message[dataStart..<end].map(String.init).joined(separator: ".")
        case 28:  // AAAA
            guard length == 16 else { throw .badRecord("an AAAA record of \(length) bytes") }
            return header + ipv6Text(Array(message[dataStart..<end]))
        case 2, 5, 12, 39, 7, 8, 9, 3, 4:  // NS, CNAME, PTR, DNAME, MB, MG, MR, MD, MF
            let target = try reader.name()
            try check()
            return header + target
        case 15, 36, 21, 18:  // MX, KX, RT, AFSDB: a number and a name
            let preference = try reader.u16("the preference")
            let target = try reader.name()
            try check()
            return header + "\(preference) \(target)"
        case 16, 99:  // TXT, SPF
            return header + (try strings()).map { quoted($0) }.joined(separator: " ")
        case 13:  // HINFO
            return header + (try strings()).map { quoted($0) }.joined(separator: " ")
        case 6:  // SOA
            let ns = try reader.name(), mbox = try reader.name()
            let numbers = [try reader.u32("SOA"), try reader.u32("SOA"), try reader.u32("SOA"), try reader.u32("SOA"), try reader.u32("SOA")]
            try check()
            return header + "\(ns) \(mbox) " + numbers.map(String.init).joined(separator: " ")
        case 33:  // SRV
            let priority = try reader.u16("SRV"), weight = try reader.u16("SRV"), port = try reader.u16("SRV")
            let target = try reader.name()
            try check()
            return header + "\(priority) \(weight) \(port) \(target)"
        case 257:  // CAA
            let flag = try reader.u8("CAA")
            let tagLength = Int(try reader.u8("CAA"))
            let tag = try reader.take(tagLength, "the CAA tag")
            try check()
            let value = try reader.take(end - reader.offset, "the CAA value")
            return header + "\(flag) \(String(decoding: tag, as: UTF8.self)) " + quoted(value)
        case 35:  // NAPTR
            let order = try reader.u16("NAPTR"), preference = try reader.u16("NAPTR")
            var texts: [String] = []
            for _ in 0..<3 {
                let count = Int(try reader.u8("NAPTR"))
                texts.append(quoted(try reader.take(count, "NAPTR")))
            }
            let replacement = try reader.name()
            try check()
            return header + "\(order) \(preference) " + texts.joined(separator: " ") + " \(replacement)"
        case 41:  // OPT: the pseudo-record's flags (the class is the UDP size, the TTL the extended rcode, version and DO)
            let version = (ttl >> 16) & 0xFF, dnssecOK = ttl & 0x8000 != 0
            return "\n;; OPT PSEUDOSECTION:\n; EDNS: version \(version); flags: \(dnssecOK ? "do" : ""); udp: \(dnsClass)"
        default:
            let hex = message[dataStart..<end].map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            return "\(name)\t\(ttl)\tCLASS\(dnsClass)\tTYPE\(type)\t\\# \(length) \(hex)"
        }
    }

    /// A character string as miekg writes it: in quotes, `"` and `\` behind a backslash, bytes
    /// outside printable ASCII as `\DDD`.
    public static func quoted(_ bytes: ArraySlice<UInt8>) -> String {
        var out = "\""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append("\\")
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
            default: out += DNSWireReader.escapeByte(byte)
            }
        }
        return out + "\""
    }

    /// An IPv6 address as Go writes it (RFC 5952: lowercase, no leading zeros, the first longest
    /// run of two or more zero groups as `::`); an IPv4-mapped one as `::ffff:a.b.c.d` (miekg's AAAA).
    public static func ipv6Text(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return "" }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return "::ffff:" + bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = (0..<8).map { Int(bytes[2 * $0]) << 8 | Int(bytes[2 * $0 + 1]) }
        var bestStart = -1, bestLength = 0, runStart = -1
        for index in 0...8 {
            if index < 8 && groups[index] == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                if index - runStart > bestLength { bestStart = runStart; bestLength = index - runStart }
                runStart = -1
            }
        }
        if bestLength < 2 { bestStart = -1 }
        var out = ""
        var index = 0
        while index < 8 {
            if index == bestStart {
                out += "::"
                index += bestLength
                continue
            }
            if !out.isEmpty && !out.hasSuffix(":") { out += ":" }
            out += String(groups[index], radix: 16)
            index += 1
        }
        return out
    }
}
