import SondeCore

/// One simulated client's handshake with an audited server (`sonde audit`'s `tls.clients`): the
/// client's own ClientHello sent, the server's answer read (the TLS 1.3 flight decrypted), and
/// the client's certificate policy applied. One entry per client profile (`AuditTarget.clients`),
/// in the profile table's order.
public struct AuditClientSimulation: Sendable, Equatable {
    /// How the simulated handshake ended.
    public enum Outcome: String, Sendable, CaseIterable, ModelValue {
        /// The server's answer is one the client accepts (version, suite, group, scheme offered).
        case connected
        /// The server refused (an alert, a close) or chose something the client did not offer.
        case refused
        /// The handshake completed, but the client's policy refuses the certificate (ATS: RSA < 2048 …).
        case policyRefused
        /// No TCP connection.
        case unreachable
        /// No answer within the bound.
        case timedOut
        /// Not tried (the audit's time budget ran out).
        case notTried
    }

    /// The profile id ("ios-17").
    public var client: String
    /// "iOS 15.4–18 URLSession (ATS), iOS 17 among them".
    public var name: String
    /// "ios", "android", "library".
    public var platform: String
    /// In the audit's target set (`--clients`): a client that cannot connect makes `tls.clients` fail.
    public var target: Bool
    public var outcome: Outcome
    /// "TLSv1.3"; nil without a ServerHello.
    public var version: String?
    /// The IANA suite name; nil without a ServerHello.
    public var suite: String?
    /// The key-exchange group ("x25519", "DH 2048"); nil with RSA key transport or when not read.
    public var group: String?
    /// The server's signature scheme (TLS 1.3 CertificateVerify, TLS 1.2 ServerKeyExchange); nil when not read.
    public var signatureScheme: String?
    /// The leaf's key ("RSA 2048 bits", "EC P-256 (256 bits)", "Ed25519"); nil when not read.
    public var leafKey: String?
    /// The server asked for another key share (HelloRetryRequest).
    public var helloRetry: Bool
    /// The alert the server sent ("handshake_failure"); nil without one.
    public var alert: String?
    /// Why the client does not connect (nil when it does), in the client's terms.
    public var reason: String?
    /// Wall time of this client's handshake(s) (ms).
    public var durationMs: Double

    public init(client: String, name: String, platform: String, target: Bool, outcome: Outcome, version: String? = nil, suite: String? = nil,
                group: String? = nil, signatureScheme: String? = nil, leafKey: String? = nil, helloRetry: Bool = false, alert: String? = nil,
                reason: String? = nil, durationMs: Double = 0) {
        self.client = client
        self.name = name
        self.platform = platform
        self.target = target
        self.outcome = outcome
        self.version = version
        self.suite = suite
        self.group = group
        self.signatureScheme = signatureScheme
        self.leafKey = leafKey
        self.helloRetry = helloRetry
        self.alert = alert
        self.reason = reason
        self.durationMs = durationMs
    }

    public var connected: Bool { outcome == .connected }
}

extension AuditClientSimulation: FieldModel {
    public static let blank = AuditClientSimulation(client: "", name: "", platform: "", target: false, outcome: .notTried)
    public static var schemaName: String? { "auditClientSimulation" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("client", &client, FieldRule(required: true, unit: .nonEmpty))
        try v.visit("name", &name, .field)
        try v.visit("platform", &platform, FieldRule(required: true, values: ["ios", "android", "library"]))
        try v.visit("target", &target, .field)
        try v.visit("outcome", &outcome, FieldRule(required: true, values: Outcome.allCases.map(\.rawValue)))
        try v.visit("version", &version, .omittedWhenNil)
        try v.visit("suite", &suite, .omittedWhenNil)
        try v.visit("group", &group, .omittedWhenNil)
        try v.visit("signatureScheme", &signatureScheme, .omittedWhenNil)
        try v.visit("leafKey", &leafKey, .omittedWhenNil)
        try v.visit("helloRetry", &helloRetry, .field)
        try v.visit("alert", &alert, .omittedWhenNil)
        try v.visit("reason", &reason, .omittedWhenNil)
        try v.visit("durationMs", &durationMs, .milliseconds)
    }
}
