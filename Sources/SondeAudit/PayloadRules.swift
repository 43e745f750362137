import Foundation
import SondeCore

/// The `http.payload-size` finding: each response's body as it crossed the wire and as the client
/// holds it after decoding (URLSessionTaskTransactionMetrics' `countOfResponseBodyBytesReceived`
/// and `countOfResponseBodyBytesAfterDecoding`), for every response of the audit's GETs. Pure.
enum PayloadRules {
    static let ids = ["http.payload-size"]

    /// The wire size of one response above which the finding warns (1 MiB): sonde's threshold, no
    /// published one; at Lighthouse's mobile throttling (1.6 Mbit/s down, `lighthouseBitsPerSecond`)
    /// it takes 5 s to arrive.
    static let warnWireBytes: Int64 = 1_048_576
    /// Lighthouse's "Slow 4G" download throughput, 1.6 × 1024 × 1024 bit/s (its docs/throttling.md
    /// and lighthouse-core's `1.6 * 1024 * 1024 / 8` bytes per second).
    static let lighthouseBitsPerSecond = 1.6 * 1024 * 1024

    /// Seconds `bytes` take at `lighthouseBitsPerSecond`, transfer alone (no round trips).
    static func secondsOnSlow4G(_ bytes: Int64) -> Double { Double(max(0, bytes)) * 8 / lighthouseBitsPerSecond }

    /// That time for people: "5.0 s", or "4 ms" under a tenth of a second.
    static func slow4GText(_ bytes: Int64) -> String {
        let seconds = secondsOnSlow4G(bytes)
        return seconds < 0.1 ? String(format: "%.0f ms", seconds * 1000) : String(format: "%.1f s", seconds)
    }

    /// One line per response: `GET url → 200: 1 234 bytes on the wire (gzip), 6 695 bytes decoded, headers 312 bytes`.
    static func line(_ label: String, _ transaction: TransactionMetrics) -> String {
        let wire = transaction.countOfResponseBodyBytesReceived
        let decoded = transaction.countOfResponseBodyBytesAfterDecoding ?? wire
        let encoding = HTTPEvidence.header("Content-Encoding", in: transaction).map { " (\($0))" } ?? ""
        let status = transaction.response.map { "\($0.statusCode)" } ?? "no response"
        return "\(label): \(transaction.request.method) \(HTTPEvidence.redactor.redact(url: transaction.request.url)) → \(status): "
            + "\(HTTPEvidence.bytes(wire)) on the wire\(encoding), \(HTTPEvidence.bytes(decoded)) decoded, headers \(HTTPEvidence.bytes(transaction.countOfResponseHeaderBytesReceived))"
    }

    static func finding(_ o: HTTPObservation) -> AuditFinding {
        let id = "http.payload-size", title = "payload size per response, on the wire and decoded"
        var labelled: [(String, TransactionMetrics)] = []
        let hops = o.first?.transactionMetrics ?? []
        for (index, hop) in hops.enumerated() {
            labelled.append((hops.count > 1 ? "GET hop \(index + 1)" : "GET", hop))
        }
        for hop in o.second?.transactionMetrics ?? [] { labelled.append(("second GET", hop)) }
        if let conditional = o.conditional?.transactionMetrics.last { labelled.append(("revalidation", conditional)) }
        let evidence = labelled.map { line($0.0, $0.1) }
        guard let final = o.final, final.response != nil else {
            return AuditFinding(id: id, severity: .info, title: title, observed: "not known: \(o.error ?? o.first?.error?.message ?? "no response")",
                                evidence: evidence, client: "", rule: AuditRuleSources.payloadThrottling)
        }
        let wire = final.countOfResponseBodyBytesReceived
        let decoded = final.countOfResponseBodyBytesAfterDecoding ?? wire
        let seconds = slow4GText(wire)
        let encoding = HTTPEvidence.header("Content-Encoding", in: final).map { " \($0)" } ?? ""
        let observed = "the response: \(HTTPEvidence.bytes(wire)) on the wire\(encoding), \(HTTPEvidence.bytes(decoded)) decoded (\(seconds) at 1.6 Mbit/s)"
        if o.first?.error != nil {
            return AuditFinding(id: id, severity: .info, title: title, observed: observed + ", incomplete: \(o.first?.error?.message ?? "")",
                                evidence: evidence, client: "", rule: AuditRuleSources.payloadThrottling)
        }
        let limit = HTTPEvidence.bytes(Self.warnWireBytes)
        if wire > Self.warnWireBytes {
            return AuditFinding(id: id, severity: .warn, title: title, observed: observed + ", over sonde's \(limit) per response",
                                evidence: evidence,
                                client: "URLSession and OkHttp download all of it before the app has the response: \(seconds) of transfer on a slow mobile link (Lighthouse's 1.6 Mbit/s), and the decoded \(HTTPEvidence.bytes(decoded)) held in memory; paginate or trim the response",
                                rule: AuditRuleSources.payloadThrottling)
        }
        return AuditFinding(id: id, severity: .pass, title: title, observed: observed + ", within sonde's \(limit) per response",
                            evidence: evidence,
                            client: "URLSession and OkHttp receive it in \(seconds) of transfer on a slow mobile link (Lighthouse's 1.6 Mbit/s), plus the round trips",
                            rule: AuditRuleSources.payloadThrottling)
    }
}
