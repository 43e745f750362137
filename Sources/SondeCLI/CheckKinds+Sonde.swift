import SondeAudit
import SondeGraphQL
import SondeRun
import SondeSuite
import SondeSSE

extension CheckKinds {
    /// Every kind of check sonde runs, and the extensions of kinds: what `sonde run` and `sonde
    /// serve` read suites with, what the suite JSON Schema lists (`SuiteLoaderSchemaTests`). A new
    /// kind or kind extension: one line here (and its module among SondeCLI's dependencies in
    /// Package.swift); docs/architecture.md, "Adding a check kind", "Adding a kind extension".
    public static let sonde = CheckKinds(running: [
        ProbeKind.self,
        SoakKind.self,
        ResumeKind.self,
        AuditKind.self,
        SSEKind.self,
    ], extensions: [
        GraphQLOperationExtension.self,
        GraphQLSubscriptionExtension.self,
    ])
}
