import Foundation
import SondeCore
import SondeHTTP

/// What the `http.coalescing` probes saw: the other names the server's certificate covers, where
/// each resolves, and for those a client could coalesce onto the audited connection, the answer
/// to a request for that name sent as a coalescing client sends it.
struct CoalescingObservation: Sendable {
    struct Candidate: Sendable {
        /// A DNS name or an IP address from the leaf's subjectAltName.
        var name: String
        var isAddress: Bool
        /// Its addresses (an IP SAN is its own), nil when not looked up.
        var addresses: HostAddresses?
        /// It resolves to the address the audited connection went to (OkHttp's "the routes must
        /// share an IP address"; the port is the URL's for both).
        var sharesAddress: Bool
        /// The request for `name` on a connection to that address, nil when not sent.
        var request: ProbeTask?
        var notSent: String?
    }

    /// The audited connection: the final URL's transaction (its protocol and address).
    var connection: TransactionMetrics?
    /// Where the names came from: the audited connection's own leaf, or the TLS scan's.
    var namesSource: String?
    /// SAN entries that cannot be a request's host (wildcards) and are not looked up.
    var wildcards: [String] = []
    var candidates: [Candidate] = []
    /// Names left out by the bounds.
    var leftOut = 0
    /// Why nothing was probed (not h2, no certificate…), nil when probed.
    var notProbed: String?
}

/// The connection-coalescing probes (RFC 9113 §9.1.1: a connection may be reused for another origin
/// whose name the certificate covers, "if the origin server is authoritative", which clients
/// approximate by the name resolving to the connection's address, as OkHttp's
/// `RealConnection.isEligible` requires). sonde cannot see which names an app will ask for, so the
/// candidates are the certificate's own: its DNS names (wildcards skipped) and IP addresses, other
/// than the audited host.
///
/// For each candidate that shares the address, one GET of the final URL's path is sent on a new
/// connection to that same address, with SNI and TLS as for the audited host and `Host` (HTTP/2's
/// `:authority`) naming the candidate: on the wire that is a coalesced request (a connection set
/// up for one name carrying a request for another). A 421 Misdirected Request says the server
/// refuses it. It is a new connection, not the audited one, because the probe engine keeps no
/// connection across runs; the server sees the same SNI, certificate and authority either way.
///
/// Bounds: at most `maxCandidates` names looked up (each within the connect timeout), at most
/// `maxRequests` requests (each within the probe timeout), none started after `deadline`.
/// Blocks the calling thread.
struct CoalescingProber: Sendable {
    var options: AuditOptions
    static let maxCandidates = 8
    static let maxRequests = 4

    /// `leaf`: the TLS scan's, of `scannedHost:scannedPort`; used only when the audited connection's
    /// own certificate (`connection.peerCertificates`, CURLINFO_CERTINFO) was not read and the scan
    /// was of the final URL's host and port (after a redirect to another host it is not that
    /// connection's certificate).
    func observe(finalURL: String, connection: TransactionMetrics?, leaf: LeafCertificate?, scanned: (host: String, port: Int)?,
                 deadline: Int64) -> CoalescingObservation {
        var observation = CoalescingObservation(connection: connection)
        guard let connection, connection.response != nil else {
            observation.notProbed = "no response to the audit's GET"
            return observation
        }
        guard let parsed = try? Auditor.parse(finalURL), parsed.scheme == "https" else {
            observation.notProbed = "a cleartext URL: no certificate, no HTTP/2"
            return observation
        }
        guard connection.networkProtocolName == "h2" else {
            observation.notProbed = "\(connection.networkProtocolName ?? "an unknown protocol"), not h2: only HTTP/2 connections are coalesced"
            return observation
        }
        let names: (dns: [String], ip: [String])
        if let own = connection.peerCertificates.first, own.dnsNames != nil || own.ipAddresses != nil {
            names = (own.dnsNames ?? [], own.ipAddresses ?? [])
            observation.namesSource = "the audited connection's certificate"
        } else if let leaf, let scanned, scanned.host.caseInsensitiveCompare(parsed.host) == .orderedSame, scanned.port == parsed.port {
            names = (leaf.dnsNames ?? [], leaf.ipAddresses ?? [])
            observation.namesSource = "the TLS scan's leaf certificate"
        } else {
            observation.notProbed = "the audited connection's certificate names were not read"
            return observation
        }
        guard let address = connection.remoteAddress else {
            observation.notProbed = "the connection's address is not known"
            return observation
        }
        let host = parsed.host.lowercased()
        var candidates: [(String, Bool)] = []
        for name in names.dns {
            let lower = name.lowercased()
            if lower.hasPrefix("*.") {
                observation.wildcards.append(lower)
            } else if lower != host, !candidates.contains(where: { $0.0 == lower }) {
                candidates.append((lower, false))
            }
        }
        for ip in names.ip where !HostResolver.sameAddress(ip, host) && !candidates.contains(where: { $0.0 == ip }) {
            candidates.append((ip, true))
        }
        observation.leftOut = max(0, candidates.count - Self.maxCandidates)
        var requests = 0
        for (name, isAddress) in candidates.prefix(Self.maxCandidates) {
            var candidate = CoalescingObservation.Candidate(name: name, isAddress: isAddress, sharesAddress: false)
            guard monotonicMicroseconds() < deadline else {
                candidate.notSent = "the audit's time budget ran out"
                observation.candidates.append(candidate)
                continue
            }
            let addresses = isAddress
                ? HostAddresses(v4: HostResolver.kind(of: name) == .ipv4Literal ? [name] : [], v6: HostResolver.kind(of: name) == .ipv6Literal ? [name] : [],
                                source: "an IP address in the certificate")
                : HostResolver.resolve(name, port: parsed.port, entries: options.resolve, timeoutMs: options.connectTimeoutMs)
            candidate.addresses = addresses
            candidate.sharesAddress = (addresses.v4 + addresses.v6).contains { HostResolver.sameAddress($0, address) }
            if candidate.sharesAddress {
                if requests < Self.maxRequests {
                    requests += 1
                    candidate.request = coalescedRequest(finalURL, host: parsed.host, port: parsed.port, address: address, authority: name,
                                                        deadline: deadline, notSent: &candidate.notSent)
                } else {
                    candidate.notSent = "over the \(Self.maxRequests) requests this check sends"
                }
            }
            observation.candidates.append(candidate)
        }
        return observation
    }

    /// `name` as a Host value for `port` (IPv6 in brackets, the port left out when it is 443).
    static func authority(_ name: String, port: Int) -> String {
        let host = HostResolver.kind(of: name) == .ipv6Literal ? "[\(name)]" : name
        return port == 443 ? host : "\(host):\(port)"
    }

    /// The final URL on a new connection to `address` (pinned with a resolve entry when the host
    /// is a name), `Host: authority`.
    private func coalescedRequest(_ url: String, host: String, port: Int, address: String, authority name: String, deadline: Int64,
                                  notSent: inout String?) -> ProbeTask? {
        let prober = HTTPProber(options: options)
        var probe = prober.baseOptions()
        probe.maxRedirects = 0
        probe.reuseConnections = false
        probe.headers = [HeaderField(name: "Host", value: Self.authority(name, port: port))]
        if HostResolver.kind(of: host) == .name {
            let pinned = HostResolver.kind(of: address) == .ipv6Literal ? "[\(address)]" : address
            probe.resolve = options.resolve.filter { HostResolver.addresses(in: [$0], host: host, port: port) == nil } + ["\(host):\(port):\(pinned)"]
        }
        switch prober.run(url, probe, deadline: deadline) {
        case .success(let tasks): return tasks.first
        case .failure(let error):
            notSent = error.message
            return nil
        }
    }
}
