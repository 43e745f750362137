import SondeCore
import SondeReport

/// The HTML of audited URLs (`sonde audit`, a suite's `audit` checks): first a summary with a row
/// per URL (its verdict at the audit's `failOn`, its findings counted by severity, the ids that
/// fail and those that warn, a link to its section), then per URL its section: the cipher suites the server
/// accepted (a row per suite: the versions it was accepted at, forward secrecy, ATS's list), the
/// findings worst first (severity, id, what was checked and seen, the evidence lines, what a
/// client would do, how to fix it, the rule's source), and each measured request's cold and
/// warm cost (over `--link`, the link's). Every string is escaped; a rule's source becomes a link
/// only when it is an http(s) URL. Severity cells take the page's `pass`, `warn`, `fail` and
/// `muted` (info) classes.
enum AuditSection {
    /// `audits` of one run or one check; `anchor` makes the sections' ids unique on the page (a
    /// check's name, "" for a plain `sonde audit`).
    static func render(_ audits: [AuditResult], anchor: String = "") -> String {
        guard !audits.isEmpty else { return "" }
        let ids = audits.indices.map { "audit-" + slug(anchor) + "\($0 + 1)" }
        return summary(audits, ids: ids) + zip(audits, ids).map { section($0, id: $1) }.joined()
    }

    /// Letters, digits and '-' of `name`, lowercased, with a trailing '-' ("" for "").
    static func slug(_ name: String) -> String {
        let kept = String(name.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "-" })
        return kept.isEmpty ? "" : kept + "-"
    }

    static func css(_ severity: AuditFinding.Severity) -> String {
        switch severity {
        case .fail: return "fail"
        case .warn: return "warn"
        case .info: return "muted"
        case .pass: return "pass"
        }
    }

    private static func summary(_ audits: [AuditResult], ids: [String]) -> String {
        var rows = ""
        for (audit, id) in zip(audits, ids) {
            let target = audit.target
            let counts = AuditFinding.Severity.allCases.reversed().map { severity in
                "<td class=\"\(target.findings.contains { $0.severity == severity } ? css(severity) : "muted")\">\(target.findings.filter { $0.severity == severity }.count)</td>"
            }.joined()
            func named(_ severity: AuditFinding.Severity) -> String {
                target.findings.filter { $0.severity == severity }.map { htmlEscape($0.id) }.joined(separator: " ")
            }
            let failing = target.error.map { "not audited: " + htmlEscape($0) } ?? named(.fail)
            rows += "<tr><td class=\"text mono\"><a href=\"#\(id)\">\(htmlEscape(target.url))</a></td>"
                + "<td class=\"\(audit.passed ? "pass" : "fail")\">\(audit.passed ? "passed" : "failed")</td>\(counts)"
                + "<td class=\"text fail\">\(failing)</td><td class=\"text warn\">\(named(.warn))</td></tr>\n"
        }
        let passed = audits.filter(\.passed).count
        return "<section class=\"audit-summary\"><h2>Audit summary</h2>\n"
            + "<p>\(passed) of \(audits.count) URL\(audits.count == 1 ? "" : "s") passed (fails on \(htmlEscape(audits[0].failOn.rawValue)))</p>\n"
            + "<div class=\"scroll\"><table><thead><tr><th class=\"text\">URL</th><th>verdict</th><th>fail</th><th>warn</th><th>info</th><th>pass</th>"
            + "<th class=\"text\">failing</th><th class=\"text\">warning</th></tr></thead><tbody>\n\(rows)</tbody></table></div></section>\n"
    }

    private static func section(_ audit: AuditResult, id: String) -> String {
        let target = audit.target
        var html = "<section class=\"audit\" id=\"\(id)\"><h2>Audit <code>\(htmlEscape(target.url))</code></h2>\n"
        html += "<p class=\"status \(audit.passed ? "passed" : "failed")\">\(audit.passed ? "passed" : "failed")</p>\n"
        var facts = ["\(htmlEscape(formatMs(target.durationMs))) ms", "fails on \(htmlEscape(audit.failOn.rawValue))"]
        if let link = audit.link { facts.append("measured over the emulated link <code>\(htmlEscape(link))</code>") }
        let counts = AuditFinding.Severity.allCases.reversed().map { severity in
            "\(target.findings.filter { $0.severity == severity }.count) \(htmlEscape(severity.rawValue))"
        }
        html += "<p class=\"muted\">\(facts.joined(separator: " · ")) · \(counts.joined(separator: ", "))</p>\n"
        if let error = target.error {
            return html + "<p class=\"warn\">Not audited: \(htmlEscape(error))</p>\n" + appReview(target.appReview) + "</section>\n"
        }
        html += offers(target)
        html += findings(target)
        html += clients(target.clients)
        html += appReview(target.appReview)
        html += requests(target.requests)
        return html + "</section>\n"
    }

    /// The versions (a row each), then the suites (a row each, a column per version).
    private static func offers(_ target: AuditTarget) -> String {
        guard !target.offers.isEmpty else { return "" }
        var versionRows = ""
        for offer in target.offers {
            let state = offer.accepted == true ? "accepted" : offer.accepted == false ? "not accepted" : "not tested"
            versionRows += "<tr><td class=\"mono\">\(htmlEscape(offer.version))</td><td class=\"\(offer.accepted == true && offer.version < "TLSv1.2" ? "warn" : "text")\">\(htmlEscape(state))</td>"
                + "<td>\(offer.ciphers.count)</td><td>\(offer.untested.count)</td></tr>\n"
        }
        let group = target.keyExchangeGroup.map { "<p>Key exchange group: <code>\(htmlEscape($0))</code></p>\n" } ?? ""
        var html = "<h3>TLS offered</h3>\n\(group)<div class=\"scroll\"><table><thead><tr><th>version</th><th class=\"text\">handshake</th>"
            + "<th>suites accepted</th><th>suites untested</th></tr></thead><tbody>\n\(versionRows)</tbody></table></div>\n"
        guard !target.suites.isEmpty else { return html }
        let versions = target.offers.map(\.version)
        var suiteRows = ""
        for suite in target.suites {
            let cells = versions.map { suite.versions.contains($0) ? "<td class=\"\($0 < "TLSv1.2" ? "warn" : "pass")\">yes</td>" : "<td class=\"muted\">–</td>" }.joined()
            suiteRows += "<tr><td class=\"mono\">\(htmlEscape(suite.name))</td><td class=\"mono\">\(htmlEscape(suite.codeText))</td>\(cells)"
                + "<td class=\"\(suite.forwardSecret ? "pass" : "warn")\">\(suite.forwardSecret ? "yes" : "no")</td>"
                + "<td class=\"\(suite.atsListed ? "pass" : "muted")\">\(suite.atsListed ? "yes" : suite.keyExchange == "tls13" ? "TLS 1.3" : "no")</td>"
                + "<td class=\"text mono\">\(htmlEscape(suite.encryption))</td></tr>\n"
        }
        html += "<p>Cipher suites accepted, each offered alone:</p>\n<div class=\"scroll\"><table><thead><tr><th class=\"text\">suite accepted</th><th>code</th>"
            + versions.map { "<th>\(htmlEscape($0))</th>" }.joined()
            + "<th>forward secret</th><th>ATS list</th><th class=\"text\">encryption</th></tr></thead><tbody>\n\(suiteRows)</tbody></table></div>\n"
        return html
    }

    private static func findings(_ target: AuditTarget) -> String {
        var rows = ""
        for finding in target.findings.sorted(by: { $0.severity > $1.severity }) {
            var detail = "<strong>\(htmlEscape(finding.title))</strong><br>\(htmlEscape(finding.observed))"
            if !finding.evidence.isEmpty {
                detail += "<br><span class=\"mono\">" + finding.evidence.map(htmlEscape).joined(separator: "<br>") + "</span>"
            }
            if !finding.client.isEmpty { detail += "<br>Client: \(htmlEscape(finding.client))" }
            if let fix = finding.fix { detail += "<br><strong>How to fix:</strong> \(htmlEscape(fix))" }
            if let rule = finding.rule {
                let lower = rule.lowercased()
                detail += lower.hasPrefix("https://") || lower.hasPrefix("http://")
                    ? "<br>Rule: <a href=\"\(htmlEscape(rule))\">\(htmlEscape(rule))</a>" : "<br>Rule: \(htmlEscape(rule))"
            }
            rows += "<tr><td class=\"\(css(finding.severity))\">\(htmlEscape(finding.severity.rawValue))</td><td class=\"mono\">\(htmlEscape(finding.id))</td>"
                + "<td class=\"text evidence\">\(detail)</td></tr>\n"
        }
        return "<h3>Findings</h3>\n<div class=\"scroll\"><table class=\"verdict\"><thead><tr><th>severity</th><th>finding</th>"
            + "<th class=\"text\">checked, seen, evidence, client, how to fix</th></tr></thead><tbody>\n\(rows)</tbody></table></div>\n"
    }

    /// "Handshake simulation": a row per simulated client (`tls.clients`).
    private static func clients(_ clients: [AuditClientSimulation]) -> String {
        guard !clients.isEmpty else { return "" }
        func cell(_ text: String?) -> String { "<td class=\"text mono\">\(htmlEscape(text ?? "–"))</td>" }
        var rows = ""
        for client in clients {
            let state = client.connected ? "connects" : client.outcome.rawValue
            rows += "<tr><td class=\"text\">\(htmlEscape(client.name))<br><span class=\"mono muted\">\(htmlEscape(client.client))</span></td>"
                + "<td>\(client.target ? "yes" : "no")</td>"
                + "<td class=\"\(client.connected ? "pass" : client.target ? "fail" : "warn")\">\(htmlEscape(state))\(client.helloRetry ? " (HRR)" : "")</td>"
                + cell(client.version) + cell(client.suite) + cell(client.group) + cell(client.signatureScheme) + cell(client.leafKey)
                + "<td class=\"text evidence\">\(htmlEscape(client.reason ?? ""))</td></tr>\n"
        }
        return "<h3>Handshake simulation</h3>\n<div class=\"scroll\"><table class=\"clients\"><thead><tr><th class=\"text\">client</th><th>target</th>"
            + "<th>result</th><th class=\"text\">version</th><th class=\"text\">suite</th><th class=\"text\">group</th><th class=\"text\">scheme</th>"
            + "<th class=\"text\">leaf key</th><th class=\"text\">why not</th></tr></thead><tbody>\n\(rows)</tbody></table></div>\n"
    }

    /// "App Review's network (ipv6.app-review)": the network, then a row per URL a client meets.
    /// The table's URL and DNS columns keep a minimum width (`table.app-review` in the stylesheet)
    /// and a URL wraps at its parts (`breakable`), so that it reads on a line or two.
    private static func appReview(_ review: AuditAppReview?) -> String {
        guard let review, !review.urls.isEmpty else { return "" }
        func cell(_ text: String?, _ kind: String? = nil) -> String {
            "<td class=\"text mono\(kind.map { " " + $0 } ?? "")\">\(htmlEscape(text ?? "–"))</td>"
        }
        var rows = ""
        for url in review.urls {
            let result = url.outcome.rawValue + (url.path.map { " (\($0.rawValue))" } ?? "")
            let dns = url.hostKind == .name && (url.a != nil || url.aaaa != nil)
                ? "A " + ((url.a ?? []).isEmpty ? "none" : (url.a ?? []).joined(separator: " ")) + "; AAAA " + ((url.aaaa ?? []).isEmpty ? "none" : (url.aaaa ?? []).joined(separator: " "))
                : nil
            rows += "<tr><td class=\"text mono link\">\(breakable(url.url))</td><td class=\"text found\">\(htmlEscape(url.foundIn))</td>"
                + "<td class=\"text\">\(htmlEscape(url.hostKind.rawValue))</td>"
                + "<td class=\"\(htmlEscape(url.severity.rawValue))\">\(htmlEscape(result))</td>"
                + cell(url.address, "addr") + cell(url.status.map(String.init)) + cell(dns, "dns")
                + "<td class=\"text evidence\">\(htmlEscape(url.reason ?? ""))</td></tr>\n"
        }
        return "<h3>App Review's network (ipv6.app-review)</h3>\n<p class=\"muted\">\(htmlEscape(review.network))"
            + (review.notFollowedNote.map { " · " + htmlEscape($0) } ?? "") + "</p>\n"
            + "<div class=\"scroll\"><table class=\"app-review\"><thead><tr><th class=\"text\">URL</th><th class=\"text\">found in</th>"
            + "<th class=\"text\">host</th><th>result</th><th class=\"text\">address</th><th class=\"text\">status</th><th class=\"text\">DNS</th>"
            + "<th class=\"text\">why</th></tr></thead><tbody>\n\(rows)</tbody></table></div>\n"
    }

    /// `url` escaped, with a line-break opportunity (`<wbr>`) after each `/` (but inside `//`),
    /// `?`, `&` and `=`: a long URL wraps at its parts rather than anywhere.
    static func breakable(_ url: String) -> String {
        var html = ""
        let characters = Array(url)
        for (index, character) in characters.enumerated() {
            html += htmlEscape(String(character))
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if "/?&=".contains(character), let next, next != "/" { html += "<wbr>" }
        }
        return html
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
