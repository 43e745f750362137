import Foundation
import SondeCore
import SondeHTTP

/// What `ipv6.app-review`'s probes saw of one audited URL: the network's routes, and for each
/// URL a client meets (`HandedOutURLs`) its DNS addresses and a fetch.
struct AppReviewObservation: Sendable {
    /// A GET's outcome as the rules need it.
    struct Fetch: Sendable, Equatable {
        var status: Int?
        /// The address connected to (or tried), nil when none.
        var remoteAddress: String?
        /// libcurl's error, nil with a response.
        var error: String?
        /// "the audit's GET" or "a GET of its own".
        var by: String
    }

    struct Item: Sendable {
        var target: HandedOutURL
        /// A name's look-up (nil for a literal, or when the budget ran out).
        var addresses: HostAddresses?
        var fetch: Fetch?
        /// Why it was not fetched, when it was not.
        var notFetched: String?
    }

    var routes: IPRoutes
    /// The link the audit ran over (its profile name), nil without one.
    var link: String?
    /// Whether the handed-out URLs were fetched (`AppReviewProber.fetches`).
    var fetched: Bool
    var items: [Item] = []
    var discovery: HandedOutURLs.Discovery
}

/// Runs `ipv6.app-review`'s probes: a look-up of each named host (bounded by the connect timeout)
/// and, on an IPv6-only network or over any `--link`, one GET per handed-out URL but IPv4
/// literals and IPv6 literals of the host's own networks (`LiteralScope.whyNotFetched`) (no redirect
/// followed, at most `handedOutBodyBytes` of its body read, each within the connect and probe
/// timeouts). A redirect's Location was already fetched by the audit's GET: that hop is used.
/// None starts after `deadline` (monotonic µs). Runs on the calling thread, so inside the link
/// when the audit entered one. Blocks the calling thread.
struct AppReviewProber: Sendable {
    var options: AuditOptions
    /// The most body bytes a handed-out URL's GET reads (16 KiB): its reach is checked, not its content.
    static let handedOutBodyBytes = 16 * 1024

    /// Whether handed-out URLs are fetched: on an IPv6-only network (the point), or over a link
    /// (its conditions apply; the path says whether it was IPv6-only). Elsewhere they are judged
    /// from DNS, and no request goes to another host than the audited one's redirects.
    static func fetches(routes: IPRoutes, link: String?) -> Bool { routes.isIPv6Only || link != nil }

    func observe(_ url: String, http: HTTPObservation?, body: BodySample.Result?, deadline: Int64) -> AppReviewObservation {
        let routes = IPRoutes.current()
        let fetching = Self.fetches(routes: routes, link: options.link)
        let discovery = HandedOutURLs.discover(url, http: http, body: body, limit: options.handedOutLimit, cdnHosts: options.cdnHosts)
        var observation = AppReviewObservation(routes: routes, link: options.link, fetched: fetching, discovery: discovery)
        let hops = http?.first?.transactionMetrics ?? []
        let auditedHost = discovery.urls.first { $0.source == .audited }?.host
        for target in discovery.urls {
            var item = AppReviewObservation.Item(target: target)
            // Never a request to an IPv4 literal or to the auditing host's own networks (LiteralScope).
            let refused = target.source == .audited ? nil : LiteralScope.whyNotFetched(target, auditedHost: auditedHost)
            let inTime = monotonicMicroseconds() < deadline
            if target.kind == .name {
                if inTime {
                    item.addresses = HostResolver.resolve(target.host, port: target.port, entries: options.resolve, timeoutMs: options.connectTimeoutMs)
                }
            }
            switch target.source {
            case .audited:
                if let hop = hops.first {
                    item.fetch = Self.fetch(hop, task: http?.first, last: hops.count == 1)
                } else {
                    item.notFetched = http?.error ?? "the audit's GET did not run"
                }
            case .location(let index):
                if index + 1 < hops.count, hops[index + 1].request.url == target.url {
                    item.fetch = Self.fetch(hops[index + 1], task: http?.first, last: index + 2 == hops.count)
                } else if fetching, refused == nil {
                    item.fetch = get(target.url, connectTo: nil, deadline: deadline, notFetched: &item.notFetched)
                } else {
                    item.notFetched = refused ?? "the audit's GET did not follow it"
                }
            case .altSvc(let origin, let protocolID):
                if let refused {
                    item.notFetched = refused
                } else if !fetching {
                    item.notFetched = Self.notOnIPv6Only
                } else if protocolID == "h3" || protocolID.hasPrefix("h3-") {
                    item.notFetched = "an h3 alternative is reached over QUIC (h3.works tries it), not fetched here"
                } else if let from = try? Auditor.parse(origin) {
                    let authority = target.kind == .ipv6Literal ? "[\(target.host)]" : target.host
                    item.fetch = get(origin, connectTo: "\(from.host):\(from.port):\(authority):\(target.port)", deadline: deadline,
                                     notFetched: &item.notFetched)
                }
            case .body:
                if let refused {
                    item.notFetched = refused
                } else if fetching {
                    item.fetch = get(target.url, connectTo: nil, deadline: deadline, notFetched: &item.notFetched)
                } else {
                    item.notFetched = Self.notOnIPv6Only
                }
            }
            observation.items.append(item)
        }
        return observation
    }

    static let notOnIPv6Only = "not fetched: the audit was not on an IPv6-only network (run it with --link nat64)"

    /// A transaction of the audit's own GET as a fetch (the task's error on its last, failed hop).
    private static func fetch(_ hop: TransactionMetrics, task: ProbeTask?, last: Bool) -> AppReviewObservation.Fetch {
        AppReviewObservation.Fetch(status: hop.response?.statusCode, remoteAddress: hop.remoteAddress,
                                   error: hop.response == nil ? (last ? task?.error?.message : nil) ?? "no response" : nil, by: "the audit's GET")
    }

    /// One GET of `url` (no redirect followed, at most `handedOutBodyBytes` read).
    private func get(_ url: String, connectTo: String?, deadline: Int64, notFetched: inout String?) -> AppReviewObservation.Fetch? {
        guard monotonicMicroseconds() < deadline else {
            notFetched = "the audit's time budget ran out"
            return nil
        }
        let result = BodySample.fetch(url, options: options, maxBytes: Self.handedOutBodyBytes, connectTo: connectTo)
        return AppReviewObservation.Fetch(status: result.status, remoteAddress: result.remoteAddress,
                                          error: result.status == nil ? result.error ?? "no response" : nil, by: "a GET of its own")
    }
}
