import SondeCore

/// What `sonde audit`'s `ipv6.app-review` saw of one audited URL: the network it ran on (an
/// IPv6-only one, as App Review's DNS64/NAT64 network, or not) and each URL a client meets (the
/// audited one and those the server handed out), reached or not (`AuditHandedOutURL`).
public struct AuditAppReview: Sendable, Equatable {
    /// The audit ran where no IPv4 route exists and an IPv6 one does (a `--link nat64`, an
    /// IPv6-only host): the handed-out URLs were fetched there.
    public var ipv6Only: Bool
    /// One line on the network: "IPv6-only (no IPv4 route) over the link nat64", "not IPv6-only
    /// (an IPv4 route exists): judged from DNS; fetch over an IPv6-only network with --link nat64".
    public var network: String
    /// Whether the handed-out URLs were fetched (on an IPv6-only network, or over any `--link`).
    public var fetched: Bool
    public var urls: [AuditHandedOutURL]
    /// Handed-out URLs not followed: past the `app-review-urls` bound, or names on another site
    /// not in `cdn-hosts`.
    public var notFollowed: Int
    /// What was not followed and why (one line); nil when nothing was left out.
    public var notFollowedNote: String?

    public init(ipv6Only: Bool, network: String, fetched: Bool, urls: [AuditHandedOutURL] = [], notFollowed: Int = 0, notFollowedNote: String? = nil) {
        self.ipv6Only = ipv6Only
        self.network = network
        self.fetched = fetched
        self.urls = urls
        self.notFollowed = notFollowed
        self.notFollowedNote = notFollowedNote
    }
}

extension AuditAppReview: FieldModel {
    public static let blank = AuditAppReview(ipv6Only: false, network: "", fetched: false)
    public static var schemaName: String? { "auditAppReview" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("ipv6Only", &ipv6Only, .required)
        try v.visit("network", &network, .required)
        try v.visit("fetched", &fetched, .required)
        try v.visit("urls", &urls, .required)
        try v.visit("notFollowed", &notFollowed, .count)
        try v.visit("notFollowedNote", &notFollowedNote, .omittedWhenNil)
    }
}
