import SondeSuite

// The keys of an audit check (`sonde audit`, `kind: audit`) that no other kind has.

extension SpecKey {
    public static let auditURLs = SpecKey("urls", .textList, summary: "http or https URLs to audit, at least one",
                                          help: "http or https URLs to audit.")
    public static let only = SpecKey(
        "only", .textList, valueName: "ids",
        summary: "Keep only these finding ids (an item may hold several, comma-separated)",
        help: "Keep only these finding ids (comma-separated or repeated): \(AuditOptions.findingIDs.joined(separator: ", ")).")
    public static let skip = SpecKey(
        "skip", .textList, valueName: "ids", summary: "Leave out these finding ids (an item may hold several, comma-separated)",
        help: "Leave out these finding ids (comma-separated or repeated).")
    public static let failOn = SpecKey(
        "fail-on", .text, choices: ["fail", "warn"], summary: "The severity that fails the audit: fail (default) or warn",
        help: "The severity that fails the audit (exit 1): fail (the default) or warn.")
    public static let clients = SpecKey(
        "clients", .text, valueName: "set",
        summary: "The clients whose failed handshake fails tls.clients, e.g. ios>=15,android>=13 (default: the versions their vendors still support)",
        help: "The simulated clients whose failed handshake makes tls.clients fail (the others are info): \(ClientTargetSet.syntax), e.g. ios>=15,android>=10 (default \(ClientTargetSet.vendorSupported), the versions their vendors still patch).")
    public static let appReviewURLs = SpecKey(
        "app-review-urls", .integer, bound: .integer(AuditOptions.handedOutLimitRange), valueName: "n",
        summary: "Handed-out URLs ipv6.app-review follows per audited URL (default \(AuditOptions.defaultHandedOutLimit))",
        help: "The most URLs a response hands out (Location, Alt-Svc, URLs in the JSON body) that ipv6.app-review checks per audited URL (0…100, default \(AuditOptions.defaultHandedOutLimit)).")
    public static let cdnHosts = SpecKey(
        "cdn-hosts", .textList, valueName: "hosts",
        summary: "Hosts on other sites whose handed-out URLs ipv6.app-review follows too (names or *.suffix)",
        help: "Hosts on other sites (a CDN, a media host) whose handed-out URLs ipv6.app-review follows too: names or *.suffix, comma-separated or repeated (the audited URL's own site is always followed).")
    public static let budget = SpecKey(
        "budget", .duration, bound: .duration(0.1...600), valueName: "duration",
        summary: "Time budget of one URL's TLS scan, and apart from it of its HTTP probes (default 8s, or 3 × timeout when longer)",
        help: "Time budget of one URL's TLS scan, and apart from it of its HTTP probes, e.g. 8s (0.1s…600s; the default 8s, or 3 × --timeout when that is longer).")
}
