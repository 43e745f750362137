import SondeCore

/// One cipher suite a server accepted, as `sonde audit` probed it (each suite offered alone), with
/// what the audit's rules ask of it: at which protocol versions it was accepted, whether it is
/// forward secret and whether it is among the suites Apple's ATS lists. One entry per suite
/// (`AuditTarget.suites`), in the catalog's order; the per-version lists are `AuditTLSOffer.ciphers`.
public struct AuditCipherSuite: Sendable, Equatable {
    /// The IANA name ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256").
    public var name: String
    /// The two-byte IANA code point (0…65535).
    public var code: Int
    /// "ecdhe", "dhe", "rsa", "tls13", …: how the keys are agreed.
    public var keyExchange: String
    /// OpenSSL's encryption column ("AESGCM(128)").
    public var encryption: String
    public var forwardSecret: Bool
    /// Among the 11 TLS 1.2 suites ATS lists (TLS 1.3 suites are not in that list).
    public var atsListed: Bool
    /// The versions it was accepted at ("TLSv1.2"), oldest first.
    public var versions: [String]

    public init(name: String, code: Int, keyExchange: String, encryption: String, forwardSecret: Bool, atsListed: Bool, versions: [String]) {
        self.name = name
        self.code = code
        self.keyExchange = keyExchange
        self.encryption = encryption
        self.forwardSecret = forwardSecret
        self.atsListed = atsListed
        self.versions = versions
    }

    /// "0xC02F".
    public var codeText: String {
        let hex = String(code, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

extension AuditCipherSuite: FieldModel {
    public static let blank = AuditCipherSuite(name: "", code: 0, keyExchange: "", encryption: "", forwardSecret: false, atsListed: false, versions: [])
    public static var schemaName: String? { "auditCipherSuite" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("name", &name, FieldRule(required: true, unit: .nonEmpty))
        try v.visit("code", &code, FieldRule(required: true, unit: .count))
        try v.visit("keyExchange", &keyExchange, .field)
        try v.visit("encryption", &encryption, .field)
        try v.visit("forwardSecret", &forwardSecret, .field)
        try v.visit("atsListed", &atsListed, .field)
        try v.visit("versions", &versions, .field)
    }
}
