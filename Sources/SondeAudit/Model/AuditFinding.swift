import SondeCore

/// One finding of `sonde audit`: a check of one target against one rule, with what was seen, the
/// lines that show it and what a mobile client would do about it.
///
/// `id` is stable and dotted (`tls.min-version`, `cert.key-size`…): `--only`/`--skip` and any
/// consumer of report.json select by it. Findings are values: made on the scanning thread, read
/// anywhere (`Sendable`).
public struct AuditFinding: Sendable, Equatable {
    /// How bad it is, in order: `pass` < `info` < `warn` < `fail`.
    public enum Severity: String, Sendable, CaseIterable, ModelValue, Comparable {
        /// The rule holds.
        case pass
        /// Worth knowing; no client fails on it.
        case info
        /// Some clients or future platform rules fail on it, or it costs the client.
        case warn
        /// A client that follows the rule (URLSession under ATS, by default) refuses the server.
        case fail

        private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// Stable dotted id (`tls.min-version`).
    public var id: String
    public var severity: Severity
    /// What was checked, in one line ("TLS 1.2 or later only").
    public var title: String
    /// What was seen ("accepts TLSv1.0, TLSv1.1").
    public var observed: String
    /// The probe results that show it, one a line (at most `maxEvidenceLines`).
    public var evidence: [String]
    /// What a URLSession (ATS) and an Android client would do.
    public var client: String
    /// Where the rule is published (a URL), nil when it is sonde's own.
    public var rule: String?
    /// How to fix it, in one line (for a `warn` or `fail`), nil when there is nothing to fix.
    public var fix: String?

    /// The most evidence lines kept.
    public static let maxEvidenceLines = 64

    public init(id: String, severity: Severity, title: String, observed: String, evidence: [String] = [],
                client: String, rule: String? = nil, fix: String? = nil) {
        self.id = id
        self.severity = severity
        self.title = title
        self.observed = observed
        self.evidence = Array(evidence.prefix(Self.maxEvidenceLines))
        self.client = client
        self.rule = rule
        self.fix = fix
    }
}

extension AuditFinding: FieldModel {
    public static let blank = AuditFinding(id: "", severity: .info, title: "", observed: "", client: "")
    public static var schemaName: String? { "auditFinding" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("id", &id, FieldRule(required: true, unit: .nonEmpty, pattern: "^[a-z0-9-]+(\\.[a-z0-9-]+)*$"))
        try v.visit("severity", &severity, .required)
        try v.visit("title", &title, .required)
        try v.visit("observed", &observed, .required)
        try v.visit("evidence", &evidence, .field)
        try v.visit("client", &client, .field)
        try v.visit("rule", &rule, .omittedWhenNil)
        try v.visit("fix", &fix, .omittedWhenNil)
    }
}
