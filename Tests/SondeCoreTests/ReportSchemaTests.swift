import Foundation
import Testing
@testable import SondeCore

/// The report schema's definitions of the field models are the ones their field declarations
/// derive (`FieldModel.schemaDefinition`), descriptions aside: a field added to a model and not
/// to `Reports/schema/sonde-report.schema.json` fails here. `scripts/update-report-schema.sh`
/// writes the derived definitions into the file, keeping its descriptions. A soak's and its
/// attempts' (`soak`, `soakAttempt`), which hold the kind extensions' parts, are `SoakPartSchemaTests`';
/// the audit's (`audit`, `auditTarget`, …), SondeAudit's models, are `AuditSchemaTests`'.
@Suite struct ReportSchemaTests {
    static let models: [(name: String, schema: ModelSchema)] = [
        ("probeTask", ProbeTask.schemaDefinition), ("transaction", TransactionMetrics.schemaDefinition),
        ("phases", Phases.schemaDefinition), ("certificate", PeerCertificate.schemaDefinition),
        ("captureEvidence", CaptureEvidence.schemaDefinition), ("packetMark", FlowEvidence.PacketMark.schemaDefinition),
        ("error", TaskError.schemaDefinition), ("altSvc", AltSvcUse.schemaDefinition),
        ("altSvcFailure", AltSvcFailure.schemaDefinition),
        ("wsHandshake", WebSocketHandshake.schemaDefinition), ("resumeTrial", ResumeTrial.schemaDefinition),
        ("resumeInterruption", ResumeInterruption.schemaDefinition),
        ("resumeLeg", ResumeLeg.schemaDefinition), ("transferRetry", TransferRetry.schemaDefinition),
        ("distribution", DistributionSummary.schemaDefinition),
        ("summary", ProbeSummary.schemaDefinition), ("capture", CaptureReport.schemaDefinition),
        ("flow", FlowEvidence.schemaDefinition), ("flowDirection", FlowEvidence.Direction.schemaDefinition),
        ("quicFlow", QUICFlowEvidence.schemaDefinition), ("quicDirection", QUICFlowEvidence.Direction.schemaDefinition),
        ("linkUse", LinkUse.schemaDefinition), ("linkConnection", LinkConnectionCounters.schemaDefinition),
        ("omittedFlows", CaptureReport.OmittedFlows.schemaDefinition),
        ("requestFigures", ProbeSummary.RequestFigures.schemaDefinition),
    ]

    @Test func theSchemaHoldsTheDerivedDefinitions() throws {
        let check = try SchemaDefinitionsCheck(models: Self.models, schemaPath: SchemaDefinitionsCheck.reportSchemaPath(),
                                               derivedOut: ProcessInfo.processInfo.environment["SONDE_DERIVED_SCHEMA_OUT"])
        for name in check.differing {
            Issue.record("$defs.\(name) differs from its fields; run scripts/update-report-schema.sh. Derived: \(Self.models.first { $0.name == name }?.schema.render() ?? "")")
        }
        #expect(!check.held.isEmpty, "the schema file has no $defs")
    }

    /// A field's rule shows in the schema: bounds from its unit, `omitsNil` makes it optional.
    @Test func rulesBecomeBounds() throws {
        let task = ProbeTask.schemaDefinition.render()
        #expect(task.contains(#""iteration":{"type":"integer","minimum":0}"#), "\(task)")
        #expect(task.contains(#""required":["url","iteration","taskInterval","redirectCount","error","transactionMetrics"]"#), "\(task)")
        let transaction = TransactionMetrics.schemaDefinition.render()
        #expect(transaction.contains(#""remotePort":{"anyOf":[{"type":"integer","minimum":1,"maximum":65535},{"type":"null"}]}"#), "\(transaction)")
        #expect(transaction.contains(##""phases":{"$ref":"#/$defs/phases"}"##))
    }
}
