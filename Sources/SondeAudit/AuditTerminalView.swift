import SondeCore
import SondeReport

/// The terminal view of one audited URL: the offered versions and suites, the key exchange
/// group, one line per finding (worst first; what a client would do under those at `warn` and
/// above), one line per simulated client (`tls.clients`), one per URL `ipv6.app-review` checked, then each measured request's cold and warm cost. The URL and the findings' text come
/// from the report, which redacted them; every line goes through `TerminalText.sanitized` (a
/// server's header cannot send escape sequences to the terminal).
public enum AuditTerminalView {
    public static func render(_ audit: AuditResult) -> String {
        let target = audit.target
        var lines = ["\(target.url)  (\(Int(target.durationMs.rounded())) ms)"
            + (audit.link.map { ", over the emulated link \($0)" } ?? "") + ": " + (audit.passed ? "passed" : "FAILED")]
        if let error = target.error {
            lines.append("  error: \(error)")
            lines += appReview(target.appReview)
            return lines.map { TerminalText.sanitized($0) }.joined(separator: "\n")
        }
        for offer in target.offers {
            let state = offer.accepted == true ? "accepted" : offer.accepted == false ? "not accepted" : "not tested"
            var line = "  \(offer.version): \(state)"
            if !offer.ciphers.isEmpty { line += " — " + offer.ciphers.joined(separator: " ") }
            if !offer.untested.isEmpty { line += " (\(offer.untested.count) suite\(offer.untested.count == 1 ? "" : "s") untested)" }
            lines.append(line)
        }
        if let group = target.keyExchangeGroup { lines.append("  key exchange: \(group)") }
        for finding in target.findings.sorted(by: { $0.severity > $1.severity }) {
            lines.append("  \(finding.severity.rawValue.uppercased().padding(toLength: 4, withPad: " ", startingAt: 0)) \(finding.id): \(finding.observed)")
            if finding.severity >= .warn, !finding.client.isEmpty { lines.append("       client: \(finding.client)") }
            if let fix = finding.fix { lines.append("       fix: \(fix)") }
        }
        if !target.clients.isEmpty { lines.append("  handshake simulation (tls.clients; * = in the target set):") }
        for client in target.clients {
            let mark = (client.connected ? "✓" : "✗") + (client.target ? "*" : " ")
            let facts = client.connected
                ? [client.version, client.suite, client.group, client.signatureScheme, client.leafKey].compactMap { $0 }.joined(separator: " ")
                    + (client.helloRetry ? " (HelloRetryRequest)" : "")
                : "no connection: \(client.reason ?? client.outcome.rawValue)"
            lines.append("    \(mark) \(client.client.padding(toLength: 18, withPad: " ", startingAt: 0)) \(facts)")
        }
        lines += appReview(target.appReview)
        for request in target.requests {
            lines.append("  cost \(request.name) \(request.request)")
            if let cold = request.cold { lines.append("       cold: \(cold.text)") }
            if let warm = request.warm { lines.append("       warm: \(warm.text)") }
        }
        return lines.map { TerminalText.sanitized($0) }.joined(separator: "\n")
    }

    /// `ipv6.app-review`'s URLs, one line each: ✓ reached (how), ✗ failed (why), · judged from DNS.
    static func appReview(_ review: AuditAppReview?) -> [String] {
        guard let review, !review.urls.isEmpty else { return [] }
        var lines = ["  App Review's network (ipv6.app-review): \(review.network)"]
        for url in review.urls {
            let mark = url.outcome == .reached ? "✓" : url.outcome == .failed ? "✗" : "·"
            var line = "    \(mark) \(url.severity.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0)) \(url.url) — \(url.foundIn): \(url.outcome.rawValue)"
            if let path = url.path { line += " (\(path.rawValue))" }
            if let address = url.address { line += " \(address)" }
            if let reason = url.reason { line += "; \(reason)" }
            lines.append(line)
        }
        if let note = review.notFollowedNote { lines.append("    \(note)") }
        return lines
    }
}
