import SondeCore
import SondeReport

/// The JUnit test cases of audited URLs: one per finding (`classname="sonde.audit"`, named
/// `<url> <id>`), failed when its severity reaches the audit's `failOn` (the failure's text: what
/// was observed, the evidence lines, what a client would do, the fix and the rule), the others
/// with that text as `system-out`; one failed case for a URL that could not be audited (`unaudited`,
/// timed by the audit). Plain text: the JUnit writer escapes every string.
enum AuditCases {
    static func cases(_ audits: [AuditResult]) -> [JUnitSectionCase] {
        var cases: [JUnitSectionCase] = []
        for audit in audits {
            let target = audit.target
            if let error = target.error {
                cases.append(JUnitSectionCase(check: audit.check, classname: "sonde.audit", name: target.url, failure: error, output: nil,
                                              failureType: "unaudited", failureDetail: error, seconds: target.durationMs / 1000))
                continue
            }
            for finding in target.findings {
                let details = ([finding.observed] + finding.evidence + (finding.client.isEmpty ? [] : ["client: " + finding.client])
                    + (finding.fix.map { ["fix: " + $0] } ?? []) + (finding.rule.map { ["rule: " + $0] } ?? [])).joined(separator: "\n")
                let name = target.url + " " + finding.id
                if finding.severity >= audit.failOn {
                    cases.append(JUnitSectionCase(check: audit.check, classname: "sonde.audit", name: name,
                                                  failure: finding.severity.rawValue + ": " + finding.observed, output: nil,
                                                  failureType: finding.severity.rawValue, failureDetail: details))
                } else {
                    cases.append(JUnitSectionCase(check: audit.check, classname: "sonde.audit", name: name, failure: nil,
                                                  output: finding.severity.rawValue + ": " + details))
                }
            }
        }
        return cases
    }
}
