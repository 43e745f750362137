import SwiftASN1
import X509

/// A distinguished name written as Go's `pkix.Name.String()` writes it (crypto/x509, Go 1.19–1.20,
/// which blackbox_exporter 0.23 uses for `probe_ssl_last_chain_info`'s `subject` and `issuer`):
///
/// - the attributes Go parses into fields are written in Go's field order, reversed: SERIALNUMBER,
///   CN, OU, O, POSTALCODE, STREET, L, ST, C (several values of one type, e.g. two OUs, joined by `+`
///   in the certificate's order; of CN and SERIALNUMBER only the last value);
/// - every other attribute (emailAddress, DC, …) after them, last first, as `OID=#` and the hex of
///   the value re-encoded as Go encodes a string (PrintableString when every character is in its
///   set, else UTF8String);
/// - `, + " \ < > ;` escaped with a backslash anywhere, a space at the first or last byte, `#` at the first.
///
/// A value that is not a string sonde can read (BMPString, T61String, …) is written as `#` and the
/// hex of its DER as the certificate holds it.
enum GoDistinguishedName {
    /// Go's `attributeTypeNames`, in the order `Name.ToRDNSequence` appends them.
    private static let fields: [(arc: UInt, name: String)] = [
        (6, "C"), (8, "ST"), (7, "L"), (9, "STREET"), (17, "POSTALCODE"), (10, "O"), (11, "OU"), (3, "CN"), (5, "SERIALNUMBER"),
    ]

    static func string(_ name: DistinguishedName) -> String {
        var valuesByArc: [UInt: [String]] = [:]
        var others: [RelativeDistinguishedName.Attribute] = []
        for rdn in name {
            for attribute in rdn {
                if let arc = knownArc(attribute.type) {
                    guard let value = String(attribute.value) else { continue }
                    if arc == 3 || arc == 5 { valuesByArc[arc] = [value] } else { valuesByArc[arc, default: []].append(value) }
                } else {
                    others.append(attribute)
                }
            }
        }
        // Go's RDN sequence: the others first, then its fields in order; written last first.
        var sequence: [String] = others.map { attribute in
            "\(dotted(attribute.type))=#" + hex(reencoded(attribute.value))
        }
        for field in fields {
            guard let values = valuesByArc[field.arc], !values.isEmpty else { continue }
            sequence.append(values.map { "\(field.name)=" + escape($0) }.joined(separator: "+"))
        }
        return sequence.reversed().joined(separator: ",")
    }

    /// The last arc of 2.5.4.x for the types Go parses into named fields; nil for any other type.
    private static func knownArc(_ type: ASN1ObjectIdentifier) -> UInt? {
        let arcs = Array(type.oidComponents)
        guard arcs.count == 4, arcs[0] == 2, arcs[1] == 5, arcs[2] == 4 else { return nil }
        return fields.contains { $0.arc == arcs[3] } ? arcs[3] : nil
    }

    private static func dotted(_ type: ASN1ObjectIdentifier) -> String {
        type.oidComponents.map(String.init).joined(separator: ".")
    }

    /// Go's escaping of an attribute value (`RDNSequence.String`).
    static func escape(_ value: String) -> String {
        let bytes = Array(value.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for (index, byte) in bytes.enumerated() {
            let escaped: Bool
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "+"), UInt8(ascii: "\""), UInt8(ascii: "\\"),
                 UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ";"):
                escaped = true
            case UInt8(ascii: " "):
                escaped = index == 0 || index == bytes.count - 1
            case UInt8(ascii: "#"):
                escaped = index == 0
            default:
                escaped = false
            }
            if escaped { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The DER Go's `asn1.Marshal` makes of the value as a Go string; a value that is no string
    /// sonde reads keeps the certificate's own DER.
    private static func reencoded(_ value: RelativeDistinguishedName.Attribute.Value) -> [UInt8] {
        guard let text = String(value) else {
            var serializer = DER.Serializer()
            guard (try? serializer.serialize(ASN1Any(value))) != nil else { return [] }
            return serializer.serializedBytes
        }
        let content = Array(text.utf8)
        let tag: UInt8 = content.allSatisfy(isPrintable) ? 0x13 : 0x0C
        return [tag] + derLength(content.count) + content
    }

    /// Go's `isPrintable` as `Marshal` calls it for a string without an explicit type
    /// (`rejectAsterisk, rejectAmpersand`: encoding/asn1/marshal.go), so "a*b" becomes a UTF8String.
    static func isPrintable(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "'")...UInt8(ascii: ")"), UInt8(ascii: "+")...UInt8(ascii: "/"),
             UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }

    /// A DER length: short form below 128, else the long form's big-endian bytes.
    private static func derLength(_ count: Int) -> [UInt8] {
        guard count >= 128 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
