import SondeCore

/// One audited URL inside a run (`audits[]` of report.json, an `audit` journal line): the check it
/// belongs to, the severity that fails it and the target the auditor made.
///
/// Invariant: `passed` is true exactly when the target could be audited (`error` nil) and no finding
/// reaches `failOn`; the initialiser sets it, a reader takes it as written.
public struct AuditResult: Sendable, Equatable {
    /// The suite check that ran the audit, nil outside checks (`sonde audit`).
    public var check: String?
    /// The severity that fails the audit: `fail` (default) or `warn` (`--fail-on`).
    public var failOn: AuditFinding.Severity
    public var passed: Bool
    public var target: AuditTarget
    /// The emulated link's profile the measured requests crossed (`lte`), nil on the host's network.
    public var link: String?

    public init(check: String? = nil, failOn: AuditFinding.Severity, target: AuditTarget, link: String? = nil) {
        self.check = check
        self.failOn = failOn
        self.target = target
        self.link = link
        passed = Self.passes(target, failOn: failOn)
    }

    /// Whether `target` passes at `failOn` (see the type's invariant).
    public static func passes(_ target: AuditTarget, failOn: AuditFinding.Severity) -> Bool {
        target.error == nil && !target.findings.contains { $0.severity >= failOn }
    }

    /// The findings that fail it, worst first.
    public var failing: [AuditFinding] {
        target.findings.filter { $0.severity >= failOn }.sorted { $0.severity > $1.severity }
    }
}

extension AuditResult: FieldModel {
    public static let blank = AuditResult(failOn: .fail, target: .blank)
    public static var schemaName: String? { "audit" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("check", &check, .omittedWhenNil)
        try v.visit("failOn", &failOn, FieldRule(required: true, values: ["warn", "fail"]))
        try v.visit("passed", &passed, .required)
        try v.visit("link", &link, .omittedWhenNil)
        try v.visit("target", &target, .required)
    }
}
