import SondeAudit
import SondeRun
import SondeSSE

extension CheckKinds {
    /// Every kind of check sonde runs: what `sonde run` and `sonde serve` read suites with, what
    /// the suite JSON Schema lists (`SuiteLoaderSchemaTests`). A new kind: one line here (and its
    /// module among SondeCLI's dependencies in Package.swift); docs/architecture.md, "Adding a
    /// check kind".
    public static let sonde = CheckKinds([
        ProbeKind.self,
        SoakKind.self,
        ResumeKind.self,
        AuditKind.self,
        SSEKind.self,
    ])
}
