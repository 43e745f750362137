import SondeCore

/// The JUnit test cases of audited URLs: one per finding (`classname="sonde.audit"`, named
/// `<url> <id>`), failed when its severity reaches the audit's `failOn`, with what was observed,
/// the evidence lines and what a client would do; one failed case for a URL that could not be
/// audited. Every string goes through `xmlEscape`.
enum AuditCases {
    /// Test cases and failures of `audits`, for a suite's counts.
    static func counts(_ audits: [AuditResult]) -> (tests: Int, failures: Int) {
        audits.reduce((0, 0)) { sum, audit in
            if audit.target.error != nil { return (sum.0 + 1, sum.1 + 1) }
            return (sum.0 + audit.target.findings.count, sum.1 + audit.failing.count)
        }
    }

    static func cases(_ audits: [AuditResult]) -> String {
        var text = ""
        for audit in audits {
            let target = audit.target
            if let error = target.error {
                text += #"    <testcase classname="sonde.audit" name="\#(xmlEscape(target.url))" time="\#(JUnitWriter.seconds(target.durationMs / 1000))">"#
                    + #"<failure message="\#(xmlEscape(error))" type="unaudited">\#(xmlEscape(error))</failure></testcase>"# + "\n"
                continue
            }
            for finding in target.findings {
                let details = ([finding.observed] + finding.evidence + (finding.client.isEmpty ? [] : ["client: " + finding.client])
                    + (finding.fix.map { ["fix: " + $0] } ?? []) + (finding.rule.map { ["rule: " + $0] } ?? [])).joined(separator: "\n")
                text += #"    <testcase classname="sonde.audit" name="\#(xmlEscape(target.url + " " + finding.id))" time="0">"#
                if finding.severity >= audit.failOn {
                    text += #"<failure message="\#(xmlEscape(finding.severity.rawValue + ": " + finding.observed))" "#
                        + #"type="\#(xmlEscape(finding.severity.rawValue))">\#(xmlEscape(details))</failure>"#
                } else {
                    text += "<system-out>\(xmlEscape(finding.severity.rawValue + ": " + details))</system-out>"
                }
                text += "</testcase>\n"
            }
        }
        return text
    }
}
