import SondeCore
import SondeReport

/// The Prometheus series of audited URLs (`PrometheusWriter`, `sonde serve`'s `/metrics`), every
/// one labelled with the URL (redacted, as the report holds it) after the check's own labels:
///
/// - `sonde_audit_finding{url,id,severity}`: one series per finding; its value is the severity's
///   rank (0 pass, 1 info, 2 warn, 3 fail), so `sonde_audit_finding >= 2` selects what needs work
///   and a finding that changes severity keeps its value comparable.
/// - `sonde_audit_findings{url,severity}`: the findings of each severity, zeros included.
/// - `sonde_audit_success{url}`: 1 when no finding reaches the audit's `fail-on` and the URL could
///   be audited, else 0 (blackbox's `probe_success` for one audit).
/// - `sonde_audit_duration_seconds{url}`: the audit's wall time.
/// - `sonde_audit_request_seconds{url,request,connection}`: each measured request's time, `cold`
///   (a new connection) and `warm` (the next request); over a link, the link's.
/// - `sonde_audit_client_handshake{url,client}`: 1 when the simulated client (`tls.clients`)
///   connects, else 0.
/// - `sonde_audit_app_review_urls{url,outcome}`: `ipv6.app-review`'s URLs (the audited one and
///   those handed out) by outcome (`reached`, `failed`, `judged`), zeros included; `failed` counts
///   each IPv4 literal handed out.
/// - `sonde_audit_cert_expiry_timestamp_seconds{url}`: the earliest notAfter among the served
///   certificates (blackbox's `probe_ssl_earliest_cert_expiry`), when one was read.
enum AuditMetrics {
    typealias Sample = PrometheusFamilies.Sample

    static func add(_ audits: [AuditResult], metric: (String, String, String, [Sample]) -> Void) {
        metric("sonde_audit_success", "gauge", "Whether the audited URL has no finding at or above the audit's fail-on severity (1) or has (0).",
               audits.map { audit -> Sample in ([("url", audit.target.url)], audit.passed ? 1 : 0) })
        metric("sonde_audit_finding", "gauge",
               "One series per audit finding; the value is its severity's rank: 0 pass, 1 info, 2 warn, 3 fail.",
               audits.flatMap { audit -> [Sample] in
                   audit.target.findings.map { finding -> Sample in
                       ([("url", audit.target.url), ("id", finding.id), ("severity", finding.severity.rawValue)], rank(finding.severity))
                   }
               })
        metric("sonde_audit_findings", "gauge", "Audit findings of each severity.",
               audits.flatMap { audit -> [Sample] in
                   AuditFinding.Severity.allCases.map { severity -> Sample in
                       ([("url", audit.target.url), ("severity", severity.rawValue)],
                        Double(audit.target.findings.filter { $0.severity == severity }.count))
                   }
               })
        metric("sonde_audit_duration_seconds", "gauge", "Wall time of the audit of the URL.",
               audits.map { audit -> Sample in ([("url", audit.target.url)], audit.target.durationMs / 1000) })
        metric("sonde_audit_request_seconds", "gauge",
               "Time of each measured request of the audit: cold (on a new connection) and warm (the next request, on the connection kept).",
               audits.flatMap { audit -> [Sample] in
                   audit.target.requests.flatMap { request -> [Sample] in
                       let legs: [(String, AuditConnectionCost?)] = [("cold", request.cold), ("warm", request.warm)]
                       return legs.compactMap { leg -> Sample? in
                           guard let cost = leg.1 else { return nil }
                           return ([("url", audit.target.url), ("request", request.name), ("connection", leg.0)], cost.totalMs / 1000)
                       }
                   }
               })
        metric("sonde_audit_client_handshake", "gauge", "Whether the simulated client's handshake (tls.clients) succeeds (1) or not (0).",
               audits.flatMap { audit -> [Sample] in
                   audit.target.clients.map { client -> Sample in ([("url", audit.target.url), ("client", client.client)], client.connected ? 1 : 0) }
               })
        metric("sonde_audit_app_review_urls", "gauge", "URLs ipv6.app-review checked (the audited one and those handed out), by outcome: reached, failed, judged (from DNS).",
               audits.flatMap { audit -> [Sample] in
                   guard let review = audit.target.appReview else { return [] }
                   return AuditHandedOutURL.Outcome.allCases.map { outcome -> Sample in
                       ([("url", audit.target.url), ("outcome", outcome.rawValue)], Double(review.urls.filter { $0.outcome == outcome }.count))
                   }
               })
        metric("sonde_audit_cert_expiry_timestamp_seconds", "gauge", "Earliest notAfter of the certificates the server sent, in Unix seconds.",
               audits.compactMap { audit -> Sample? in
                   guard let expiry = earliestExpiry(audit.target) else { return nil }
                   return ([("url", audit.target.url)], expiry)
               })
    }

    static func rank(_ severity: AuditFinding.Severity) -> Double {
        Double(AuditFinding.Severity.allCases.firstIndex(of: severity) ?? 0)
    }

    private static func earliestExpiry(_ target: AuditTarget) -> Double? {
        target.certificates.compactMap { certificate in certificate.notAfter.map { Double($0.microsecondsSince1970) / 1e6 } }.min()
    }
}
