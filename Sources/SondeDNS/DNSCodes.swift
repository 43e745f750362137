/// DNS's numbers by the names blackbox_exporter's dns prober takes and writes (miekg/dns's
/// `StringToType`, `StringToClass`, `StringToRcode`): the configuration's `query_type`,
/// `query_class` and `valid_rcodes`, and the presentation form of a received record.
public enum DNSCodes {
    /// Record types by name (RFC 1035 and later; the meta types IXFR, AXFR, ANY among them).
    public static let types: [String: UInt16] = [
        "A": 1, "NS": 2, "MD": 3, "MF": 4, "CNAME": 5, "SOA": 6, "MB": 7, "MG": 8, "MR": 9, "NULL": 10, "PTR": 12, "HINFO": 13,
        "MINFO": 14, "MX": 15, "TXT": 16, "RP": 17, "AFSDB": 18, "X25": 19, "ISDN": 20, "RT": 21, "NSAPPTR": 23, "SIG": 24, "KEY": 25,
        "PX": 26, "GPOS": 27, "AAAA": 28, "LOC": 29, "NXT": 30, "EID": 31, "NIMLOC": 32, "SRV": 33, "ATMA": 34, "NAPTR": 35, "KX": 36,
        "CERT": 37, "DNAME": 39, "OPT": 41, "APL": 42, "DS": 43, "SSHFP": 44, "RRSIG": 46, "NSEC": 47, "DNSKEY": 48, "DHCID": 49,
        "NSEC3": 50, "NSEC3PARAM": 51, "TLSA": 52, "SMIMEA": 53, "HIP": 55, "NINFO": 56, "RKEY": 57, "TALINK": 58, "CDS": 59,
        "CDNSKEY": 60, "OPENPGPKEY": 61, "CSYNC": 62, "ZONEMD": 63, "SVCB": 64, "HTTPS": 65, "SPF": 99, "UINFO": 100, "UID": 101,
        "GID": 102, "UNSPEC": 103, "NID": 104, "L32": 105, "L64": 106, "LP": 107, "EUI48": 108, "EUI64": 109, "TKEY": 249,
        "TSIG": 250, "IXFR": 251, "AXFR": 252, "MAILB": 253, "MAILA": 254, "ANY": 255, "URI": 256, "CAA": 257, "AVC": 258,
        "AMTRELAY": 260, "TA": 32768, "DLV": 32769,
    ]
    /// Names by type number; a number without a name is written `TYPE<n>` (RFC 3597).
    public static let typeNames: [UInt16: String] = Dictionary(types.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })

    /// Classes by name.
    public static let classes: [String: UInt16] = ["IN": 1, "CS": 2, "CH": 3, "HS": 4, "NONE": 254, "ANY": 255]
    public static let classNames: [UInt16: String] = Dictionary(classes.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })

    /// Response codes by name (the extended ones of EDNS and TSIG among them; BADSIG and BADVERS share 16).
    public static let rcodes: [String: Int] = [
        "NOERROR": 0, "FORMERR": 1, "SERVFAIL": 2, "NXDOMAIN": 3, "NOTIMP": 4, "REFUSED": 5, "YXDOMAIN": 6, "YXRRSET": 7,
        "NXRRSET": 8, "NOTAUTH": 9, "NOTZONE": 10, "BADSIG": 16, "BADVERS": 16, "BADKEY": 17, "BADTIME": 18, "BADMODE": 19,
        "BADNAME": 20, "BADALG": 21, "BADTRUNC": 22, "BADCOOKIE": 23,
    ]

    /// `TYPE<n>` for a type without a name, as miekg/dns writes it.
    public static func typeName(_ type: UInt16) -> String { typeNames[type] ?? "TYPE\(type)" }

    /// `CLASS<n>` for a class without a name.
    public static func className(_ dnsClass: UInt16) -> String { classNames[dnsClass] ?? "CLASS\(dnsClass)" }

    /// The name of a response code, or its number.
    public static func rcodeName(_ rcode: Int) -> String {
        if rcode == 16 { return "BADSIG" }
        return rcodes.first { $0.value == rcode }?.key ?? String(rcode)
    }
}
