import Foundation
import SondeCore

/// The `retry-after` finding: whether a 429 (Too Many Requests) or 503 (Service Unavailable) tells
/// the client when to come back. Judged on the responses the audit's own requests got; the audit
/// sends no extra request to provoke a limit (hammering a server until it says 429 is neither
/// bounded nor polite): to check an endpoint's limit, audit a URL that answers 429 or 503 (a
/// rate-limited route, a maintenance page). Pure.
enum RetryAfterRules {
    static let ids = ["retry-after"]

    /// `responses`: every transaction the audit made, each with the label of the probe it belongs to.
    static func finding(_ responses: [(label: String, transaction: TransactionMetrics)]) -> AuditFinding {
        let id = "retry-after", title = "429 and 503 responses say when to retry (Retry-After)"
        let limited = responses.filter { [429, 503].contains($0.transaction.response?.statusCode ?? 0) }
        let seen = responses.filter { $0.transaction.response != nil }.count
        guard !limited.isEmpty else {
            return AuditFinding(id: id, severity: .info, title: title,
                                observed: "not judged: none of the audit's \(seen) responses was a 429 or 503 (sonde sends nothing to provoke a limit: audit a URL that answers 429 or 503 to check it)",
                                evidence: [], client: "", rule: AuditRuleSources.retryAfter)
        }
        var evidence: [String] = []
        var missing: [String] = [], invalid: [String] = [], dates: [String] = [], good: [String] = []
        for (label, transaction) in limited {
            let status = transaction.response?.statusCode ?? 0
            evidence.append(HTTPEvidence.request(transaction) + " (\(label))")
            evidence.append(HTTPEvidence.response(transaction, headers: ["Retry-After"], missing: true))
            guard let header = HTTPEvidence.header("Retry-After", in: transaction) else {
                missing.append("\(status)")
                continue
            }
            switch RetryAfter(parsing: header) {
            case .seconds(let seconds)?: good.append("\(status) with Retry-After: \(seconds) s")
            case .date?: dates.append("\(status) with Retry-After: \(header) (an HTTP-date)")
            case nil: invalid.append("\(status) with Retry-After: \(header) (neither seconds nor an HTTP-date)")
            }
        }
        let parts = good + dates + invalid + missing.map { "\($0) without Retry-After" }
        // The same answer from several probes is said once, with its count.
        var counted: [(String, Int)] = []
        for part in parts {
            if let index = counted.firstIndex(where: { $0.0 == part }) { counted[index].1 += 1 } else { counted.append((part, 1)) }
        }
        let observed = counted.map { $0.1 > 1 ? "\($0.0) (\($0.1) responses)" : $0.0 }.joined(separator: "; ")
        if !missing.isEmpty || !invalid.isEmpty {
            return AuditFinding(id: id, severity: .warn, title: title, observed: observed, evidence: evidence,
                                client: "URLSession hands the 429/503 to the app and never retries on its own; OkHttp retries a 503 at once only on Retry-After: 0 and hands everything else to the app: without a delay to honour, apps retry on their own guess (or at once, all together)",
                                rule: AuditRuleSources.retryAfter)
        }
        let dateNote = dates.isEmpty ? "" : "; OkHttp reads only delay-seconds (an HTTP-date counts as \"not now\"), so seconds serve both stacks"
        return AuditFinding(id: id, severity: .pass, title: title, observed: observed, evidence: evidence,
                            client: "URLSession and OkHttp hand the 429/503 to the app (OkHttp retries a 503 itself only on Retry-After: 0); the app's backoff can wait as long as the server asks" + dateNote,
                            rule: AuditRuleSources.retryAfter)
    }
}
