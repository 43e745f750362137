import Foundation
import SondeCore

/// The `ipv6.app-review` finding: whether each URL a client meets (the audited one and those the
/// server hands out: redirects, Alt-Svc alternatives, URLs in the JSON body) is reached from an
/// IPv6-only (DNS64/NAT64) network, the network App Review tests on. Pure: the same observation
/// gives the same result. URLs written are redacted.
///
/// Per URL (docs/audit.md states the same):
/// - an IPv4 literal handed out: `fail` (an IPv6-only client cannot connect to it; Apple: don't
///   use IP address literals), never fetched (`LiteralScope`); the audited URL itself an IPv4
///   literal: `info` (the URL given is the user's choice, as the `ipv6` finding judges it);
/// - reached through NAT64 (the address connected to is in 64:ff9b::/96) or over native IPv6: `pass`;
/// - reached over IPv4 (the network was not IPv6-only): `info`, saying so;
/// - a name with neither AAAA nor A (nothing for DNS64 to synthesise from): `warn`;
/// - a fetch that failed on the way (connect, TLS): `fail` for the audited URL, `warn` for a
///   handed-out one;
/// - not fetched (no IPv6-only network, or an IPv6 literal of the auditing host's own networks):
///   judged from DNS, `info`, saying why.
/// The finding's severity is the worst of its URLs'.
enum AppReviewRules {
    static let ids = ["ipv6.app-review"]
    /// The `foundIn` of the audited URL.
    static let auditedFoundIn = "the URL audited"
    static let title = "every URL a client meets is reached from an IPv6-only (DNS64/NAT64) network, as App Review's"

    static func judge(_ observation: AppReviewObservation) -> AuditAppReview {
        let network: String
        if observation.routes.isIPv6Only {
            network = "IPv6-only (no IPv4 route, an IPv6 one)" + (observation.link.map { " over the link \($0)" } ?? "")
        } else if let link = observation.link {
            network = "not IPv6-only: the link \(link) has an IPv4 route; fetched over it, IPv4 answers are not App Review's network (use --link nat64)"
        } else {
            network = "not IPv6-only (an IPv4 route exists): the handed-out URLs were judged from DNS, not fetched (run with --link nat64 to fetch them over an IPv6-only network)"
        }
        var review = AuditAppReview(ipv6Only: observation.routes.isIPv6Only, network: network, fetched: observation.fetched)
        let auditedIsLiteral = observation.items.contains { $0.target.source == .audited && $0.target.kind == .ipv4Literal }
        review.urls = observation.items.map { judge($0, ipv6Only: observation.routes.isIPv6Only, auditedIsLiteral: auditedIsLiteral) }
        let discovery = observation.discovery
        review.notFollowed = discovery.otherSite.count + discovery.zoneID.count + discovery.pastLimit
        // A capped scan may have left more out: its counts are lower bounds.
        let atLeast = discovery.capped ? "at least " : ""
        var notes: [String] = []
        if discovery.pastLimit > 0 { notes.append("\(atLeast)\(discovery.pastLimit) past the bound of app-review-urls") }
        if !discovery.otherSite.isEmpty {
            notes.append("\(atLeast)\(discovery.otherSite.count) on other sites (\(Self.some(discovery.otherSite)); name them in cdn-hosts to follow them)")
        }
        if !discovery.zoneID.isEmpty {
            notes.append("\(atLeast)\(discovery.zoneID.count) with a zone id (\(Self.some(discovery.zoneID)); a zone id names an interface of the client's own)")
        }
        if let partial = discovery.partialScan { notes.append(partial) }
        review.notFollowedNote = notes.isEmpty ? nil : "not followed: " + notes.joined(separator: "; ")
        return review
    }

    /// The first five distinct of `hosts`, then "…" when there are more.
    private static func some(_ hosts: [String]) -> String {
        var distinct: [String] = []
        var seen: Set<String> = []
        for host in hosts where seen.insert(host).inserted {
            guard distinct.count < 5 else { return distinct.joined(separator: ", ") + ", …" }
            distinct.append(host)
        }
        return distinct.joined(separator: ", ")
    }

    /// One URL's verdict.
    /// `auditedIsLiteral`: the audited URL is an IPv4 literal itself, so the literals it hands
    /// out are `info` (as the `ipv6` finding judges them): audit it by name to judge them.
    static func judge(_ item: AppReviewObservation.Item, ipv6Only: Bool, auditedIsLiteral: Bool = false) -> AuditHandedOutURL {
        let target = item.target
        let audited = target.source == .audited
        var result = AuditHandedOutURL(url: HTTPEvidence.redactor.redact(url: target.url), foundIn: target.foundIn, hostKind: kind(target.kind),
                                       outcome: .judged, address: item.fetch?.remoteAddress, a: item.addresses?.v4, aaaa: item.addresses?.v6,
                                       status: item.fetch?.status, severity: .info)
        let fetchNote = item.fetch.map { fetch in
            fetch.status.map { "answered \($0)" } ?? "failed: \(fetch.error ?? "no response")"
        }
        switch target.kind {
        case .ipv4Literal:
            result.outcome = .failed
            result.severity = audited || auditedIsLiteral ? .info : .fail
            var reason = "an IPv4 literal: an IPv6-only client cannot connect to it (URLSession synthesises a NAT64 address only for a literal URL it is given, sockets and OkHttp do not)"
            if let fetch = item.fetch {
                reason += fetch.status != nil && !ipv6Only
                    ? "; reached here over IPv4 (\(fetch.by)), which an IPv6-only network does not have"
                    : "; \(fetch.by) \(fetchNote ?? "")"
            } else if let why = item.notFetched {
                reason += "; \(why)"
            }
            if audited {
                reason += "; the URL audited is an IPv4 literal itself: audit it by its name"
            } else if auditedIsLiteral {
                reason += "; info only: the URL audited is an IPv4 literal itself (audit it by its name)"
            }
            result.reason = reason
            return result
        case .ipv6Literal, .name:
            break
        }
        if let addresses = item.addresses, addresses.v4.isEmpty, addresses.v6.isEmpty {
            result.outcome = .failed
            result.severity = audited ? .fail : .warn
            result.reason = "no AAAA and no A (\(addresses.error ?? "empty answer")): nothing for DNS64 to synthesise from, no client reaches it"
            return result
        }
        if let fetch = item.fetch {
            if fetch.status != nil, let address = fetch.remoteAddress {
                result.outcome = .reached
                switch HostResolver.kind(of: address) {
                case .ipv4Literal:
                    result.path = .ipv4
                    result.severity = .info
                    result.reason = "reached over IPv4 (\(fetch.by)): the audit was not on an IPv6-only network, so this says nothing of App Review's (run with --link nat64)"
                case .ipv6Literal where HostResolver.isNAT64WellKnown(address):
                    result.path = .nat64
                    result.severity = .pass
                    result.reason = nil
                default:
                    result.path = .ipv6
                    result.severity = .pass
                    result.reason = nil
                }
                return result
            }
            if fetch.status != nil {
                result.outcome = .reached
                result.severity = ipv6Only ? .pass : .info
                result.reason = "answered; the address connected to was not read"
                return result
            }
            result.outcome = .failed
            result.severity = audited ? .fail : .warn
            result.reason = "\(fetch.by) failed\(ipv6Only ? " on the IPv6-only network" : ""): \(fetch.error ?? "no response")"
            return result
        }
        // Not fetched: judged from DNS.
        result.outcome = .judged
        result.severity = .info
        let why = item.notFetched ?? "not fetched"
        if target.kind == .ipv6Literal {
            result.reason = "an IPv6 literal: an IPv6-only client connects to it directly; \(why)"
        } else if let addresses = item.addresses {
            let own = addresses.v6.filter { !HostResolver.isNAT64WellKnown($0) }
            result.reason = own.isEmpty
                ? "A only: an IPv6-only client reaches it through DNS64/NAT64; \(why)"
                : "AAAA \(own.joined(separator: " ")): an IPv6-only client reaches it over IPv6; \(why)"
        } else {
            result.reason = "not looked up; \(why)"
        }
        return result
    }

    static func kind(_ kind: HostResolver.Kind) -> AuditHandedOutURL.HostKind {
        switch kind {
        case .ipv4Literal: .ipv4Literal
        case .ipv6Literal: .ipv6Literal
        case .name: .name
        }
    }

    /// The finding over a review: its worst URL, every IPv4 literal named with where it was found,
    /// one evidence line per URL.
    static func finding(_ review: AuditAppReview) -> AuditFinding {
        let severity = review.urls.map(\.severity).max() ?? .info
        let reached = review.urls.filter { $0.outcome == .reached }
        let failed = review.urls.filter { $0.outcome == .failed }
        let judged = review.urls.filter { $0.outcome == .judged }
        var counts: [String] = []
        if !reached.isEmpty {
            let paths = AuditHandedOutURL.Path.allCases.compactMap { path -> String? in
                let n = reached.filter { $0.path == path }.count
                guard n > 0 else { return nil }
                return "\(n) \(path == .nat64 ? "through NAT64" : path == .ipv6 ? "over native IPv6" : "over IPv4")"
            }
            counts.append("\(reached.count) reached (\(paths.joined(separator: ", ")))")
        }
        if !failed.isEmpty { counts.append("\(failed.count) failed") }
        if !judged.isEmpty { counts.append("\(judged.count) judged from DNS") }
        var observed = "\(review.urls.count) URL\(review.urls.count == 1 ? "" : "s") (the audited one and \(review.urls.count - 1) handed out): "
            + (counts.isEmpty ? "none" : counts.joined(separator: ", "))
        let literals = review.urls.filter { $0.hostKind == .ipv4Literal && $0.foundIn != AppReviewRules.auditedFoundIn }
        if !literals.isEmpty {
            observed += "; IPv4 literals handed out: " + literals.map { "\($0.url) (\($0.foundIn))" }.joined(separator: "; ")
        }
        if review.urls.first.map({ $0.hostKind == .ipv4Literal && $0.foundIn == AppReviewRules.auditedFoundIn }) == true {
            observed += "; the URL audited is an IPv4 literal itself"
        }
        let others = failed.filter { $0.hostKind != .ipv4Literal }
        if !others.isEmpty { observed += "; failed: " + others.map { "\($0.url) (\($0.reason ?? ""))" }.joined(separator: "; ") }
        observed += "; network: \(review.network)"
        var evidence = review.urls.map(line)
        if let note = review.notFollowedNote { evidence.append(note) }
        let client: String
        switch severity {
        case .fail:
            client = literals.isEmpty
                ? "on App Review's IPv6-only network the app's request fails and the review is rejected"
                : "on an IPv6-only network (App Review's) a client cannot connect to an IPv4 literal: the redirect, media or alternative it names fails; Apple: don't use IP address literals, hand out host names"
        case .warn:
            client = "a URL the app is handed does not load on an IPv6-only network: what it names (a page, media) is missing"
        case .pass:
            client = "URLSession and OkHttp reach every URL on an IPv6-only (DNS64/NAT64) network"
        case .info:
            client = review.fetched ? "reached, but not over an IPv6-only network: App Review's network is not shown" : "judged from DNS only: fetch over an IPv6-only network with --link nat64"
        }
        return AuditFinding(id: ids[0], severity: severity, title: title, observed: observed, evidence: evidence, client: client,
                            rule: literals.isEmpty ? AuditRuleSources.ipv6Only : AuditRuleSources.ipv4Literals)
    }

    /// "✗ fail http://127.0.0.1:8080/a (Location of the 302 from …): an IPv4 literal …; address 127.0.0.1".
    static func line(_ url: AuditHandedOutURL) -> String {
        let mark = url.outcome == .reached ? "✓" : url.outcome == .failed ? "✗" : "·"
        var text = "\(mark) \(url.severity.rawValue) \(url.url) (\(url.foundIn)): \(url.outcome.rawValue)"
        if let path = url.path { text += " \(path == .nat64 ? "through NAT64" : path == .ipv6 ? "over IPv6" : "over IPv4")" }
        if let status = url.status { text += ", \(status)" }
        if let address = url.address { text += ", address \(address)" }
        if url.hostKind == .name, url.a != nil || url.aaaa != nil {
            text += ", A \((url.a ?? []).isEmpty ? "none" : (url.a ?? []).joined(separator: " ")), AAAA \((url.aaaa ?? []).isEmpty ? "none" : (url.aaaa ?? []).joined(separator: " "))"
        }
        if let reason = url.reason { text += "; \(reason)" }
        return text
    }
}
