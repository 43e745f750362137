import Foundation
import SondeCore

/// The `http.coalescing` finding: would a client that already holds an HTTP/2 connection to the
/// audited host reuse it for the other names the certificate covers, and would the server answer
/// those requests there. Pure.
enum CoalescingRules {
    static let ids = ["http.coalescing"]

    static func finding(_ o: CoalescingObservation) -> AuditFinding {
        let id = "http.coalescing", title = "other names of the certificate served on the same HTTP/2 connection"
        var evidence: [String] = []
        if let connection = o.connection {
            evidence.append(HTTPEvidence.request(connection) + (connection.remoteAddress.map { " to \($0)" } ?? ""))
        }
        if let source = o.namesSource { evidence.append("names from \(source)") }
        if let why = o.notProbed {
            return AuditFinding(id: id, severity: .info, title: title, observed: "not judged: \(why)", evidence: evidence,
                                client: o.connection?.networkProtocolName == "h2" ? "" : "URLSession and OkHttp open a connection per host name",
                                rule: AuditRuleSources.coalescing)
        }
        let address = o.connection?.remoteAddress ?? "?"
        for candidate in o.candidates {
            var line = "\(candidate.name): "
            if let addresses = candidate.addresses {
                let all = addresses.v4 + addresses.v6
                line += all.isEmpty ? "no address" + (addresses.error.map { " (\($0))" } ?? "") : all.joined(separator: " ")
                line += " (\(addresses.source))"
            }
            line += candidate.sharesAddress ? ", shares \(address)" : ", not \(address)"
            evidence.append(line)
            if let task = candidate.request, let hop = task.transactionMetrics.last {
                evidence.append(HTTPEvidence.request(hop, headers: ["Host"]))
                evidence.append(HTTPEvidence.response(hop, headers: [], error: task.error))
            } else if let why = candidate.notSent {
                evidence.append("\(candidate.name): not sent: \(why)")
            }
        }
        if !o.wildcards.isEmpty { evidence.append("wildcards not looked up (no name to ask for): " + o.wildcards.joined(separator: ", ")) }
        if o.leftOut > 0 { evidence.append("\(o.leftOut) more names left out (at most \(CoalescingProber.maxCandidates) looked up)") }

        guard !o.candidates.isEmpty else {
            return AuditFinding(id: id, severity: .info, title: title,
                                observed: "the certificate names no other host" + (o.wildcards.isEmpty ? "" : " than its wildcards (\(o.wildcards.joined(separator: ", ")))"),
                                evidence: evidence, client: "nothing to coalesce", rule: AuditRuleSources.coalescing)
        }
        let sharing = o.candidates.filter(\.sharesAddress)
        guard !sharing.isEmpty else {
            return AuditFinding(id: id, severity: .info, title: title,
                                observed: "none of \(o.candidates.map(\.name).joined(separator: ", ")) resolves to \(address): each is its own connection",
                                evidence: evidence,
                                client: "OkHttp coalesces only names that resolve to the connection's address (RealConnection.isEligible): a connection, and a handshake, per name",
                                rule: AuditRuleSources.coalescing)
        }
        let answered = sharing.compactMap { candidate in candidate.request?.transactionMetrics.last?.response.map { (candidate.name, $0.statusCode) } }
        let misdirected = answered.filter { $0.1 == 421 }
        let unanswered = sharing.filter { $0.request?.transactionMetrics.last?.response == nil && $0.request != nil }
        let notSent = sharing.filter { $0.request == nil }
        let names = sharing.map(\.name).joined(separator: ", ")
        if !misdirected.isEmpty || !unanswered.isEmpty {
            var parts: [String] = []
            if !misdirected.isEmpty { parts.append(misdirected.map(\.0).joined(separator: ", ") + " answered 421 Misdirected Request") }
            if !unanswered.isEmpty {
                parts.append(unanswered.map { "\($0.name) got no answer (\($0.request?.error?.message ?? "no response"))" }.joined(separator: ", "))
            }
            return AuditFinding(id: id, severity: .warn, title: title,
                                observed: "\(names) \(sharing.count == 1 ? "shares" : "share") \(address) and the certificate, so a client coalesces \(sharing.count == 1 ? "it" : "them") onto this connection, but " + parts.joined(separator: "; "),
                                evidence: evidence,
                                client: "OkHttp sends the request on the coalesced connection, gets 421 and retries it on a new connection (RetryAndFollowUpInterceptor): a wasted round trip plus a handshake; serve every name in the certificate on every connection, or send an ORIGIN frame / narrow the certificate",
                                rule: AuditRuleSources.misdirected)
        }
        guard !answered.isEmpty else {
            return AuditFinding(id: id, severity: .info, title: title,
                                observed: "\(names) \(sharing.count == 1 ? "shares" : "share") \(address); the coalesced request was not sent (\(notSent.compactMap(\.notSent).first ?? "time budget"))",
                                evidence: evidence, client: "", rule: AuditRuleSources.coalescing)
        }
        let shown = answered.map { "\($0.0) (\($0.1))" }.joined(separator: ", ")
        return AuditFinding(id: id, severity: .pass, title: title,
                            observed: "\(shown) answered on a connection to \(address) set up for the audited host: coalescing works",
                            evidence: evidence,
                            client: "OkHttp reuses the HTTP/2 connection for these names (same address, covered by the certificate) without a new handshake; sonde found no Apple document saying whether URLSession coalesces",
                            rule: AuditRuleSources.coalescing)
    }
}
