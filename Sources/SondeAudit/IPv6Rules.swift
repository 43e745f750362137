import Foundation
import SondeCore
import SondeHTTP

/// The `ipv6` finding: whether a client on an IPv6-only (DNS64/NAT64) network, the network App
/// Review tests on, reaches the server; and the IPv4 literals the server hands out (in a
/// redirect's Location, in Alt-Svc, in the URLs of the final body). Pure: the same observations
/// give the same finding. URLs written are redacted.
enum IPv6Rules {
    static let ids = ["ipv6"]

    /// Where an IPv4 literal was handed out, one line each ("Location of the 302 from …: …").
    static func ipv4Literals(_ http: HTTPObservation?, body: BodySample.Result?) -> [String] {
        var places: [String] = []
        for hop in http?.first?.transactionMetrics ?? [] {
            guard let status = hop.response?.statusCode, (300..<400).contains(status),
                  let location = HTTPEvidence.header("Location", in: hop),
                  let host = (try? Auditor.parse(absolute(location, base: hop.request.url)))?.host,
                  HostResolver.kind(of: host) == .ipv4Literal else { continue }
            places.append("the Location of the \(status) from \(HTTPEvidence.redactor.redact(url: hop.request.url)): \(HTTPEvidence.redactor.redact(urlsIn: location))")
        }
        let responses = (http?.first?.transactionMetrics ?? []).filter { $0.response != nil }
        var altSvcSeen: Set<String> = []
        for hop in responses {
            for header in hop.response?.headers ?? [] where header.name.caseInsensitiveCompare("Alt-Svc") == .orderedSame {
                let literal = AltSvcHeader(header.value).alternatives.compactMap { $0.host }
                    .filter { HandedOutURLs.isPlainAltSvcHost($0) && HostResolver.kind(of: $0) == .ipv4Literal }
                if !literal.isEmpty, altSvcSeen.insert(header.value).inserted {
                    places.append("Alt-Svc: \(redactAltSvc(header.value)) (from \(HTTPEvidence.redactor.redact(url: hop.request.url)))")
                }
            }
        }
        if let body {
            let limit = 16
            let urls = BodySample.ipv4LiteralURLs(in: String(decoding: body.bytes, as: UTF8.self), limit: limit)
            if let first = urls.first {
                let more = urls.count > 1 ? " and \(urls.count == limit ? "at least " : "")\(urls.count - 1) more" : ""
                places.append("the body of \(HTTPEvidence.redactor.redact(url: body.url)): \(HTTPEvidence.redactor.redact(urlsIn: first))\(more)")
            }
        }
        return places
    }

    /// An Alt-Svc value as it may be written: in each quoted authority, what comes before an `@`
    /// (user-info a server put there) masked, then every URL in it redacted (`Redactor`).
    static func redactAltSvc(_ value: String) -> String {
        guard HTTPEvidence.redactor.isEnabled else { return value }
        var pieces = value.split(separator: "\"", omittingEmptySubsequences: false).map(String.init)
        for index in stride(from: 1, to: pieces.count, by: 2) {
            if let at = pieces[index].lastIndex(of: "@") { pieces[index] = Redactor.mask + pieces[index][at...] }
        }
        return HTTPEvidence.redactor.redact(urlsIn: pieces.joined(separator: "\""))
    }

    /// `location` made absolute against `base` (a relative Location names the same host).
    private static func absolute(_ location: String, base: String) -> String {
        guard let baseURL = URL(string: base), let resolved = URL(string: location, relativeTo: baseURL) else { return location }
        return resolved.absoluteString
    }

    /// Whether a failed IPv6 connect says this machine has no IPv6 path at all (not the server's doing).
    static func isLocalNoIPv6(_ message: String) -> Bool {
        let lower = message.lowercased()
        return ["network is unreachable", "cannot assign requested address", "address family not supported"].contains { lower.contains($0) }
    }

    /// One host's verdict, its sentence and its evidence lines.
    private static func judge(_ host: IPv6Observation.Host) -> (severity: AuditFinding.Severity, observed: String, evidence: [String]) {
        let name = host.kind == .ipv6Literal ? "[\(host.host)]" : host.host
        switch host.kind {
        case .ipv4Literal:
            return (.info, "\(name) is an IPv4 literal: no AAAA to look up; on an IPv6-only network it is reached only through NAT64",
                    ["\(name): an IPv4 literal"])
        case .ipv6Literal:
            guard let hop = host.literalHop, let response = hop.response else {
                return (.info, "\(name) is an IPv6 literal; not known whether it answered (\(host.notTried ?? "no response"))", [])
            }
            return (.pass, "\(name) is an IPv6 literal and answered \(response.statusCode) over IPv6" + (hop.networkProtocolName.map { " (\($0))" } ?? ""),
                    [HTTPEvidence.request(hop), HTTPEvidence.response(hop, headers: [])])
        case .name:
            guard let addresses = host.addresses else {
                return (.info, "\(name): not looked up (\(host.notTried ?? "not tried"))", [])
            }
            var evidence = ["\(name): A \(addresses.v4.isEmpty ? "none" : addresses.v4.joined(separator: " ")); AAAA "
                            + (addresses.v6.isEmpty ? "none" : addresses.v6.joined(separator: " ")) + " (\(addresses.source))"
                            + (addresses.error.map { "; \($0)" } ?? "")]
            if !addresses.reachedOnly.isEmpty {
                evidence.append("\(name): the audit's GET went to [\(addresses.reachedOnly.joined(separator: "], ["))], which the look-up did not return"
                                + (host.host.lowercased() == "localhost" ? " (libcurl answers localhost itself with ::1 and 127.0.0.1, RFC 6761 §6.3)" : ""))
            }
            if addresses.v6.isEmpty {
                let why = addresses.error.map { "not resolved (\($0))" } ?? "no AAAA"
                return (.info, "\(name): \(why); on an IPv6-only network clients reach it through DNS64/NAT64", evidence)
            }
            let synthesized = addresses.synthesizedV6
            let own = synthesized.count == addresses.v6.count ? " (all in 64:ff9b::/96: made by this network's DNS64, the host has no AAAA of its own)" : ""
            guard let task = host.connect, let hop = task.transactionMetrics.last else {
                return (.info, "\(name): AAAA \(addresses.v6.joined(separator: " "))\(own); no GET over IPv6 (\(host.notTried ?? "not sent"))", evidence)
            }
            evidence.append(HTTPEvidence.request(hop) + " over IPv6 only" + (hop.remoteAddress.map { " to [\($0)]" } ?? ""))
            evidence.append(HTTPEvidence.response(hop, headers: [], error: task.error))
            if let response = hop.response {
                return (synthesized.count == addresses.v6.count ? .info : .pass,
                        "\(name): AAAA \(addresses.v6.joined(separator: " "))\(own); answered \(response.statusCode) over IPv6"
                            + (hop.remoteAddress.map { " from [\($0)]:\(hop.remotePort.map(String.init) ?? "")" } ?? ""),
                        evidence)
            }
            let error = task.error?.message ?? "no response"
            if isLocalNoIPv6(error) {
                return (.info, "\(name): AAAA \(addresses.v6.joined(separator: " ")), but this machine has no IPv6 path (\(error)): not tested", evidence)
            }
            return (.fail, "\(name): AAAA \(addresses.v6.joined(separator: " ")) published, but no answer over IPv6: \(error)", evidence)
        }
    }

    static func finding(given url: String, http: HTTPObservation?, probes: IPv6Observation) -> AuditFinding {
        let id = "ipv6", title = "reachable over IPv6 (AAAA, a connect), and no IPv4 literals handed out"
        let judged = probes.hosts.map(judge)
        let literals = ipv4Literals(http, body: probes.body)
        let givenKind = (try? Auditor.parse(url)).map { HostResolver.kind(of: $0.host) }
        let literalSeverity: AuditFinding.Severity = literals.isEmpty || givenKind == .ipv4Literal ? .info : .warn
        let hostSeverity = judged.map(\.severity).max() ?? .info
        let severity = literals.isEmpty ? hostSeverity : max(hostSeverity, literalSeverity)
        var observed = judged.map(\.observed)
        if !literals.isEmpty {
            observed.append("IPv4 literals handed out: " + literals.joined(separator: "; ")
                            + (givenKind == .ipv4Literal ? " (the URL audited is an IPv4 literal itself)" : ""))
        }
        if observed.isEmpty { observed.append("not known: \(http?.error ?? "no host to check")") }
        var evidence = judged.flatMap(\.evidence)
        if let body = probes.body {
            evidence.append("body searched for IPv4-literal URLs: \(HTTPEvidence.bytes(Int64(body.bytes.count))) of \(HTTPEvidence.redactor.redact(url: body.url))"
                            + (body.truncated ? " (the first \(BodySample.maxBytes / 1024) KiB)" : "") + (body.error.map { ", \($0)" } ?? ""))
        } else if let why = probes.bodyNotFetched {
            evidence.append("body not searched: \(why)")
        }
        evidence += literals.map { "IPv4 literal in \($0)" }
        let client: String
        switch severity {
        case .fail:
            client = "on an IPv6-only network DNS64 passes the published AAAA on (it synthesizes one only when there is none) and URLSession and OkHttp cannot connect; on dual stack they fall back to IPv4 after Happy Eyeballs' delay"
        case .warn:
            client = "URLSession synthesizes an IPv6 address for an IPv4 literal on a NAT64 network (iOS 9.2+), sockets and IP endpoints do not; Android reaches it through 464XLAT where the network has it. Apple: don't use IP address literals: hand out host names"
        case .pass:
            client = "URLSession and OkHttp connect over IPv6 on an IPv6-only (DNS64/NAT64) network, without a translator"
        case .info:
            client = givenKind == .ipv4Literal
                ? "URLSession synthesizes an IPv6 address for an IPv4 literal URL on a NAT64 network (iOS 9.2+); an app should use a host name (Apple: don't use IP address literals)"
                : "on an IPv6-only network URLSession and OkHttp reach an IPv4-only host through DNS64/NAT64 (App Review's network has it)"
        }
        return AuditFinding(id: id, severity: severity, title: title, observed: observed.joined(separator: "; "), evidence: evidence,
                            client: client, rule: severity == .warn || givenKind == .ipv4Literal ? AuditRuleSources.ipv4Literals : AuditRuleSources.ipv6Only)
    }
}
