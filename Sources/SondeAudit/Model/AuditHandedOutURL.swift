import SondeCore

/// One URL of `sonde audit`'s `ipv6.app-review`: the audited URL or one the server handed out (a
/// redirect's Location, an Alt-Svc alternative, a URL in the JSON body), where it was found, and
/// whether a client on an IPv6-only (DNS64/NAT64) network reaches it. One entry per URL
/// (`AuditAppReview.urls`), the audited one first, then in the order found. The URL is redacted.
public struct AuditHandedOutURL: Sendable, Equatable {
    /// What the host of the URL is.
    public enum HostKind: String, Sendable, CaseIterable, ModelValue {
        case ipv4Literal = "ipv4-literal"
        case ipv6Literal = "ipv6-literal"
        case name
    }

    /// Whether the URL was reached.
    public enum Outcome: String, Sendable, CaseIterable, ModelValue {
        /// A response came back (`path` says over what).
        case reached
        /// It cannot be reached from an IPv6-only network, or the fetch failed (`reason`).
        case failed
        /// Not fetched over an IPv6-only network: judged from DNS (`reason` says why not fetched).
        case judged
    }

    /// How a reached URL was reached, from the address connected to.
    public enum Path: String, Sendable, CaseIterable, ModelValue {
        /// An address in 64:ff9b::/96 (RFC 6052): through a NAT64 translator.
        case nat64
        /// Any other IPv6 address: the server's own IPv6.
        case ipv6
        /// An IPv4 address: the audit was not on an IPv6-only network.
        case ipv4
    }

    /// The URL, redacted.
    public var url: String
    /// Where it was found: "the URL audited", "Location of the 302 from URL", "Alt-Svc of URL
    /// (h2)", "JSON $.items[0].url of URL", "the body of URL (not JSON)".
    public var foundIn: String
    public var hostKind: HostKind
    public var outcome: Outcome
    /// How it was reached; nil unless `outcome` is `reached`.
    public var path: Path?
    /// Why it failed, or how it was judged without a fetch; nil when reached.
    public var reason: String?
    /// The address connected to (or tried), as text; nil when no connection was tried.
    public var address: String?
    /// The name's A addresses (DNS), for a name; nil when not looked up.
    public var a: [String]?
    /// The name's AAAA addresses (DNS; inside an IPv6-only link, those of its DNS64), nil when not looked up.
    public var aaaa: [String]?
    /// The HTTP status of the fetch; nil without a response.
    public var status: Int?
    /// This URL's severity (the finding's is the worst of them).
    public var severity: AuditFinding.Severity

    public init(url: String, foundIn: String, hostKind: HostKind, outcome: Outcome, path: Path? = nil, reason: String? = nil,
                address: String? = nil, a: [String]? = nil, aaaa: [String]? = nil, status: Int? = nil, severity: AuditFinding.Severity) {
        self.url = url
        self.foundIn = foundIn
        self.hostKind = hostKind
        self.outcome = outcome
        self.path = path
        self.reason = reason
        self.address = address
        self.a = a
        self.aaaa = aaaa
        self.status = status
        self.severity = severity
    }
}

extension AuditHandedOutURL: FieldModel {
    public static let blank = AuditHandedOutURL(url: "", foundIn: "", hostKind: .name, outcome: .judged, severity: .info)
    public static var schemaName: String? { "auditHandedOutURL" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("url", &url, FieldRule(required: true, unit: .nonEmpty))
        try v.visit("foundIn", &foundIn, .required)
        try v.visit("hostKind", &hostKind, FieldRule(required: true, values: HostKind.allCases.map(\.rawValue)))
        try v.visit("outcome", &outcome, FieldRule(required: true, values: Outcome.allCases.map(\.rawValue)))
        try v.visit("path", &path, FieldRule(omitsNil: true, values: Path.allCases.map(\.rawValue)))
        try v.visit("reason", &reason, .omittedWhenNil)
        try v.visit("address", &address, .omittedWhenNil)
        try v.visit("a", &a, .omittedWhenNil)
        try v.visit("aaaa", &aaaa, .omittedWhenNil)
        try v.visit("status", &status, .omittedWhenNil)
        try v.visit("severity", &severity, .required)
    }
}
