import SondeCore

/// What a server accepted at one TLS protocol version, as `sonde audit` probed it: one handshake
/// limited to that version, then one per cipher suite alone.
public struct AuditTLSOffer: Sendable, Equatable {
    /// "TLSv1.0", "TLSv1.1", "TLSv1.2" or "TLSv1.3".
    public var version: String
    /// Whether a handshake at this version alone completed; nil when it could not be tried (the
    /// client's TLS library refuses the version, or the time budget ran out).
    public var accepted: Bool?
    /// The cipher suites (IANA names) that completed a handshake offered alone, in the catalog's order.
    public var ciphers: [String]
    /// Suites the client could not offer (its TLS library lacks them) or did not reach in time: not
    /// known either way.
    public var untested: [String]

    public init(version: String, accepted: Bool?, ciphers: [String] = [], untested: [String] = []) {
        self.version = version
        self.accepted = accepted
        self.ciphers = ciphers
        self.untested = untested
    }
}

extension AuditTLSOffer: FieldModel {
    public static let blank = AuditTLSOffer(version: "", accepted: nil)
    public static var schemaName: String? { "auditTLSOffer" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("version", &version, FieldRule(required: true, values: ["TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"]))
        try v.visit("accepted", &accepted, .field)
        try v.visit("ciphers", &ciphers, .field)
        try v.visit("untested", &untested, .field)
    }
}
