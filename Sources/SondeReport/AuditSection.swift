import SondeCore

/// The HTML of audited URLs (`sonde audit`, a suite's `audit` checks): per URL its verdict at the
/// audit's `failOn`, the TLS versions and suites the server accepted, the findings worst first
/// (severity, id, what was checked and seen, the evidence lines, what a client would do, the rule's
/// source), and each measured request's cold and warm cost (over `--link`, the link's).
/// Every string is escaped; a rule's source becomes a link only when it is an http(s) URL.
enum AuditSection {
    static func render(_ audits: [AuditResult]) -> String {
        audits.map(section).joined()
    }

    private static func section(_ audit: AuditResult) -> String {
        let target = audit.target
        var html = "<section class=\"audit\"><h2>Audit <code>\(htmlEscape(target.url))</code></h2>\n"
        html += "<p class=\"status \(audit.passed ? "passed" : "failed")\">\(audit.passed ? "passed" : "failed")</p>\n"
        var facts = ["\(htmlEscape(formatMs(target.durationMs))) ms", "fails on \(htmlEscape(audit.failOn.rawValue))"]
        if let link = audit.link { facts.append("measured over the emulated link <code>\(htmlEscape(link))</code>") }
        let counts = AuditFinding.Severity.allCases.reversed().map { severity in
            "\(target.findings.filter { $0.severity == severity }.count) \(htmlEscape(severity.rawValue))"
        }
        html += "<p class=\"muted\">\(facts.joined(separator: " · ")) · \(counts.joined(separator: ", "))</p>\n"
        if let error = target.error {
            return html + "<p class=\"warn\">Not audited: \(htmlEscape(error))</p></section>\n"
        }
        html += offers(target)
        html += findings(target, failOn: audit.failOn)
        html += requests(target.requests)
        return html + "</section>\n"
    }

    private static func offers(_ target: AuditTarget) -> String {
        guard !target.offers.isEmpty else { return "" }
        var rows = ""
        for offer in target.offers {
            let state = offer.accepted == true ? "accepted" : offer.accepted == false ? "not accepted" : "not tested"
            rows += "<tr><td class=\"mono\">\(htmlEscape(offer.version))</td><td>\(htmlEscape(state))</td>"
                + "<td class=\"text mono\">\(htmlEscape(offer.ciphers.joined(separator: " ")))</td>"
                + "<td>\(offer.untested.count)</td></tr>\n"
        }
        let group = target.keyExchangeGroup.map { "<p>Key exchange group: <code>\(htmlEscape($0))</code></p>\n" } ?? ""
        return "<h3>TLS offered</h3>\n\(group)<div class=\"scroll\"><table><thead><tr><th>version</th><th>handshake</th>"
            + "<th class=\"text\">suites accepted</th><th>untested</th></tr></thead><tbody>\n\(rows)</tbody></table></div>\n"
    }

    private static func findings(_ target: AuditTarget, failOn: AuditFinding.Severity) -> String {
        var rows = ""
        for finding in target.findings.sorted(by: { $0.severity > $1.severity }) {
            let css = finding.severity >= failOn ? "fail" : finding.severity == .pass ? "pass" : "muted"
            var detail = "<strong>\(htmlEscape(finding.title))</strong><br>\(htmlEscape(finding.observed))"
            if !finding.evidence.isEmpty {
                detail += "<br><span class=\"mono\">" + finding.evidence.map(htmlEscape).joined(separator: "<br>") + "</span>"
            }
            if !finding.client.isEmpty { detail += "<br>Client: \(htmlEscape(finding.client))" }
            if let rule = finding.rule {
                let lower = rule.lowercased()
                detail += lower.hasPrefix("https://") || lower.hasPrefix("http://")
                    ? "<br>Rule: <a href=\"\(htmlEscape(rule))\">\(htmlEscape(rule))</a>" : "<br>Rule: \(htmlEscape(rule))"
            }
            rows += "<tr><td class=\"\(css)\">\(htmlEscape(finding.severity.rawValue))</td><td class=\"mono\">\(htmlEscape(finding.id))</td>"
                + "<td class=\"text evidence\">\(detail)</td></tr>\n"
        }
        return "<h3>Findings</h3>\n<div class=\"scroll\"><table class=\"verdict\"><thead><tr><th>severity</th><th>finding</th>"
            + "<th class=\"text\">checked, seen, evidence, client</th></tr></thead><tbody>\n\(rows)</tbody></table></div>\n"
    }

    private static func requests(_ requests: [AuditRequestCost]) -> String {
        guard !requests.isEmpty else { return "" }
        func cell(_ cost: AuditConnectionCost?) -> String { "<td class=\"text\">\(htmlEscape(cost?.text ?? "–"))</td>" }
        var rows = ""
        for request in requests {
            rows += "<tr><td class=\"mono\">\(htmlEscape(request.name))</td><td class=\"text evidence\">\(htmlEscape(request.request))</td>"
                + cell(request.cold) + cell(request.warm) + "</tr>\n"
        }
        return "<h3>Requests: cold and warm cost</h3>\n<div class=\"scroll\"><table><thead><tr><th>request</th><th class=\"text\">sent</th>"
            + "<th class=\"text\">cold (new connection)</th><th class=\"text\">warm (next request)</th></tr></thead><tbody>\n"
            + rows + "</tbody></table></div>\n"
    }
}
