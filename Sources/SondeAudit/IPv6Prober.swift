import Foundation
import SondeCore
import SondeHTTP

/// What the `ipv6` finding's probes saw of one audited URL: each host a client goes to (the URL's,
/// and the host its redirects end on when that is another), its addresses, and a GET over IPv6;
/// and the first bytes of the final response's body (for IPv4 literals in its URLs).
struct IPv6Observation: Sendable {
    struct Host: Sendable {
        /// The host as in the URL (an IPv6 literal without brackets).
        var host: String
        var port: Int
        /// The URL fetched for this host (the given one, or the final one).
        var url: String
        var kind: HostResolver.Kind
        /// The look-up of a name; nil for a literal.
        var addresses: HostAddresses?
        /// The GET over IPv6 only (CURLOPT_IPRESOLVE v6) of a name with AAAA; nil when not sent
        /// (`notTried` says why). For an IPv6 literal the audit's own GET already went over IPv6 and
        /// is not repeated: `literalHop` is that transaction.
        var connect: ProbeTask?
        var literalHop: TransactionMetrics?
        var notTried: String?
    }

    var hosts: [Host] = []
    /// The final response's first bytes (decoded), nil when not fetched.
    var body: BodySample.Result?
    /// Why the body was not fetched.
    var bodyNotFetched: String?
}

/// Runs the `ipv6` finding's probes: at most two look-ups (each bounded by the connect timeout), at
/// most two GETs over IPv6 (one per named host with AAAA, no redirect followed), and one
/// `BodySample` of the final URL; none starts after `deadline` (monotonic µs). Blocks the calling
/// thread.
struct IPv6Prober: Sendable {
    var options: AuditOptions

    func observe(_ url: String, http: HTTPObservation?, deadline: Int64) -> IPv6Observation {
        var observation = IPv6Observation()
        var targets: [(url: String, host: String, port: Int)] = []
        if let given = try? Auditor.parse(url) { targets.append((url, given.host, given.port)) }
        if let finalURL = http?.finalURL, let final = try? Auditor.parse(finalURL),
           !targets.contains(where: { $0.host.caseInsensitiveCompare(final.host) == .orderedSame && $0.port == final.port }) {
            targets.append((finalURL, final.host, final.port))
        }
        let hops = http?.first?.transactionMetrics ?? []
        for target in targets.prefix(2) {
            var host = IPv6Observation.Host(host: target.host, port: target.port, url: target.url, kind: HostResolver.kind(of: target.host))
            switch host.kind {
            case .ipv4Literal:
                host.notTried = "an IPv4 literal has no AAAA"
            case .ipv6Literal:
                host.literalHop = hops.first { (try? Auditor.parse($0.request.url))?.host == target.host }
                if host.literalHop == nil { host.notTried = "no request of the audit went to this host" }
            case .name:
                guard monotonicMicroseconds() < deadline else {
                    host.notTried = "the audit's time budget ran out"
                    break
                }
                var addresses = HostResolver.resolve(target.host, port: target.port, entries: options.resolve, timeoutMs: options.connectTimeoutMs)
                // An IPv6 address the audit's GET already went to is the host's, whatever the look-up said.
                for hop in hops {
                    guard let parsed = try? Auditor.parse(hop.request.url), parsed.host.caseInsensitiveCompare(target.host) == .orderedSame,
                          parsed.port == target.port, let remote = hop.remoteAddress, HostResolver.kind(of: remote) == .ipv6Literal,
                          !addresses.v6.contains(where: { HostResolver.sameAddress($0, remote) }) else { continue }
                    addresses.v6.append(remote)
                    addresses.reachedOnly.append(remote)
                }
                host.addresses = addresses
                if addresses.v6.isEmpty {
                    host.notTried = addresses.error.map { "no address: \($0)" } ?? "no AAAA"
                } else {
                    host.connect = connect(target.url, deadline: deadline, notTried: &host.notTried)
                }
            }
            observation.hosts.append(host)
        }
        let finalURL = http?.finalURL ?? url
        if http?.final?.response == nil {
            observation.bodyNotFetched = "no response to the audit's GET"
        } else if monotonicMicroseconds() >= deadline {
            observation.bodyNotFetched = "the audit's time budget ran out"
        } else {
            observation.body = BodySample.fetch(finalURL, options: options)
        }
        return observation
    }

    /// One GET of `url` over IPv6 only, as URLSession's (no redirect followed: the host is what is
    /// checked).
    private func connect(_ url: String, deadline: Int64, notTried: inout String?) -> ProbeTask? {
        let prober = HTTPProber(options: options)
        var probe = prober.baseOptions()
        probe.ipVersion = .v6
        probe.maxRedirects = 0
        probe.reuseConnections = false
        switch prober.run(url, probe, deadline: deadline) {
        case .success(let tasks):
            return tasks.first
        case .failure(let error):
            notTried = error.message
            return nil
        }
    }
}
