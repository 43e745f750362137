import SondeCore

/// One audited URL: what its server offers over TLS, the certificates it served and the findings.
public struct AuditTarget: Sendable, Equatable {
    /// The URL as given, its secrets redacted (`Redactor`: `url.secrets` names them).
    public var url: String
    public var host: String
    public var port: Int
    /// Wall time of this target's checks (ms).
    public var durationMs: Double
    /// Why the target could not be audited at all (unreachable, not TLS), nil when it was.
    public var error: String?
    /// One entry per protocol version probed, oldest first.
    public var offers: [AuditTLSOffer]
    /// Every suite accepted at any version, once, with its facts (the catalog's order).
    public var suites: [AuditCipherSuite] = []
    /// The key exchange group of a default handshake ("x25519"), nil when none or not read.
    public var keyExchangeGroup: String?
    /// The certificates the server sent, leaf first.
    public var certificates: [PeerCertificate]
    public var findings: [AuditFinding]
    /// The measured requests' cold and warm cost (`AuditRequestCost`): over `--link`, the link's.
    public var requests: [AuditRequestCost] = []
    /// The simulated clients' handshakes (`tls.clients`), in the profile table's order; empty when not simulated.
    public var clients: [AuditClientSimulation] = []
    /// `ipv6.app-review`'s URLs (the audited one and those handed out) and the network; nil when not made.
    public var appReview: AuditAppReview?

    public init(url: String, host: String, port: Int, durationMs: Double = 0, error: String? = nil, offers: [AuditTLSOffer] = [],
                keyExchangeGroup: String? = nil, certificates: [PeerCertificate] = [], findings: [AuditFinding] = []) {
        self.url = url
        self.host = host
        self.port = port
        self.durationMs = durationMs
        self.error = error
        self.offers = offers
        self.keyExchangeGroup = keyExchangeGroup
        self.certificates = certificates
        self.findings = findings
    }

    /// The worst severity among the findings (`pass` without any).
    public var worst: AuditFinding.Severity { findings.map(\.severity).max() ?? .pass }
}

extension AuditTarget: FieldModel {
    public static let blank = AuditTarget(url: "", host: "", port: 0)
    public static var schemaName: String? { "auditTarget" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("url", &url, .required)
        try v.visit("host", &host, .required)
        try v.visit("port", &port, FieldRule(required: true, unit: .port))
        try v.visit("durationMs", &durationMs, .milliseconds)
        try v.visit("error", &error, .omittedWhenNil)
        try v.visit("offers", &offers, .field)
        try v.visit("suites", &suites, .field)
        try v.visit("keyExchangeGroup", &keyExchangeGroup, .field)
        try v.visit("certificates", &certificates, .field)
        try v.visit("findings", &findings, .required)
        try v.visit("requests", &requests, .field)
        try v.visit("clients", &clients, .field)
        try v.visit("appReview", &appReview, .omittedWhenNil)
    }
}
