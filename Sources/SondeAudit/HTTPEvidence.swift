import Foundation
import SondeCore

/// The request and response lines a finding shows as its evidence, redacted (`Redactor`'s
/// defaults: secret query parameters, user-info passwords, Authorization and cookie headers).
/// Pure; one line per request and per response, only the headers that matter to the finding.
enum HTTPEvidence {
    static let redactor = Redactor()

    /// `→ GET https://host/path (h2, new connection) Accept-Encoding: gzip, deflate, br`.
    static func request(_ transaction: TransactionMetrics, headers names: [String] = []) -> String {
        var line = "→ \(transaction.request.method) \(redactor.redact(url: transaction.request.url))"
        var facts: [String] = []
        if let name = transaction.networkProtocolName { facts.append(name) }
        if transaction.connectionID != nil { facts.append(transaction.isReusedConnection ? "reused connection" : "new connection") }
        if let id = transaction.connectionID { facts.append("#\(id)") }
        if !facts.isEmpty { line += " (" + facts.joined(separator: ", ") + ")" }
        let shown = redactor.redact(headers: transaction.request.headers.filter { header in
            names.contains { $0.caseInsensitiveCompare(header.name) == .orderedSame }
        })
        for header in shown { line += "; \(header.name): \(header.value)" }
        return line
    }

    /// `← 200; Content-Encoding: gzip; Vary: Accept-Encoding` with the named headers (each one
    /// shown as missing when absent, when `missing` is set), or the failure.
    static func response(_ transaction: TransactionMetrics, headers names: [String], missing: Bool = false, error: TaskError? = nil) -> String {
        guard let response = transaction.response else {
            return "← no response" + (error.map { ": \($0.message)" } ?? "")
        }
        var line = "← \(response.statusCode)"
        for name in names {
            let values = response.headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            if values.isEmpty {
                if missing { line += "; no \(name)" }
            } else {
                for header in redactor.redact(headers: values) { line += "; \(header.name): \(header.value)" }
            }
        }
        return line
    }

    /// The first response header `name` (case-insensitive), nil when absent.
    static func header(_ name: String, in transaction: TransactionMetrics?) -> String? {
        transaction?.response?.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// A byte count for people: "6 695 bytes".
    static func bytes(_ count: Int64) -> String {
        let digits = Array(String(count))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(" ") }
            text.append(digit)
        }
        return text + " bytes"
    }

    /// "TCP 0.2 ms + TLS 1.9 ms" (or "QUIC 2.3 ms" for h3) of a transaction that opened its
    /// connection; nil on a reused one.
    static func setupCost(_ transaction: TransactionMetrics) -> String? {
        guard !transaction.isReusedConnection else { return nil }
        let phases = transaction.phases
        func ms(_ value: Double?) -> String { String(format: "%.1f ms", value ?? 0) }
        if transaction.networkProtocolName == "h3" {
            return "QUIC handshake \(ms((phases.connect ?? 0) + (phases.tls ?? 0)))"
        }
        guard phases.connect != nil || phases.tls != nil else { return nil }
        return "TCP \(ms(phases.connect))" + (phases.tls.map { " + TLS \(ms($0))" } ?? "")
    }
}
