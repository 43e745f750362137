import SondeCore

/// The document `sonde audit --json` writes: the tool and TLS library that probed, and one
/// `AuditTarget` per URL, in the order given.
public struct AuditReport: Sendable, Equatable {
    /// "sonde audit".
    public var tool: String
    /// The libcurl and TLS library the probes ran on ("8.11.1", "OpenSSL/3.6.5"): what the
    /// client side could offer bounds what the audit saw.
    public var libcurl: String
    public var tlsLibrary: String?
    public var startedAt: Timestamp
    public var durationMs: Double
    public var targets: [AuditTarget]

    public init(tool: String = "sonde audit", libcurl: String, tlsLibrary: String?, startedAt: Timestamp, durationMs: Double,
                targets: [AuditTarget]) {
        self.tool = tool
        self.libcurl = libcurl
        self.tlsLibrary = tlsLibrary
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.targets = targets
    }

    /// The worst severity of every target's findings; `fail` for a target that could not be audited.
    public var worst: AuditFinding.Severity {
        targets.map { $0.error == nil ? $0.worst : .fail }.max() ?? .pass
    }
}

extension AuditReport: FieldModel {
    public static let blank = AuditReport(libcurl: "", tlsLibrary: nil, startedAt: Timestamp(microsecondsSince1970: 0), durationMs: 0, targets: [])
    public static var schemaName: String? { "auditReport" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("tool", &tool, .required)
        try v.visit("libcurl", &libcurl, .field)
        try v.visit("tlsLibrary", &tlsLibrary, .field)
        try v.visit("startedAt", &startedAt, .required)
        try v.visit("durationMs", &durationMs, .milliseconds)
        try v.visit("targets", &targets, .required)
    }
}
