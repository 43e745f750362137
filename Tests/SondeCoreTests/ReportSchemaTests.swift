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

    static let schemaPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reports/schema/sonde-report.schema.json").path

    /// `value` without any `description` member, at any depth.
    static func withoutDescriptions(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return object.filter { $0.key != "description" }.mapValues(withoutDescriptions)
        }
        if let array = value as? [Any] { return array.map(withoutDescriptions) }
        return value
    }

    @Test func theSchemaHoldsTheDerivedDefinitions() throws {
        var derived: [String: Any] = [:]
        for model in Self.models {
            derived[model.name] = try JSONSerialization.jsonObject(with: Data(model.schema.render().utf8))
        }
        if let path = ProcessInfo.processInfo.environment["SONDE_DERIVED_SCHEMA_OUT"] {
            try JSONSerialization.data(withJSONObject: derived, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        }
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.schemaPath))) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        for model in Self.models {
            let held = definitions[model.name].map(Self.withoutDescriptions) as? NSDictionary
            #expect(held == derived[model.name] as? NSDictionary,
                    "$defs.\(model.name) differs from its fields; run scripts/update-report-schema.sh. Derived: \(model.schema.render())")
        }
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
