import Foundation
import Testing
@testable import SondeAudit
@testable import SondeCore

/// The report schema's definitions of the audit's models (`audits[]` items and their parts,
/// SondeAudit's field models) are the ones their field declarations derive, descriptions aside,
/// as `ReportSchemaTests` checks SondeCore's: `scripts/update-report-schema.sh` writes them
/// (through `SONDE_DERIVED_AUDIT_SCHEMA_OUT`).
@Suite struct AuditSchemaTests {
    static let models: [(name: String, schema: ModelSchema)] = [
        ("auditTarget", AuditTarget.schemaDefinition),
        ("auditTLSOffer", AuditTLSOffer.schemaDefinition), ("auditFinding", AuditFinding.schemaDefinition),
        ("audit", AuditResult.schemaDefinition), ("auditRequestCost", AuditRequestCost.schemaDefinition),
        ("auditConnectionCost", AuditConnectionCost.schemaDefinition), ("auditCipherSuite", AuditCipherSuite.schemaDefinition),
        ("auditClientSimulation", AuditClientSimulation.schemaDefinition), ("auditAppReview", AuditAppReview.schemaDefinition),
        ("auditHandedOutURL", AuditHandedOutURL.schemaDefinition),
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

    @Test func theSchemaHoldsTheAuditDefinitions() throws {
        var derived: [String: Any] = [:]
        for model in Self.models {
            derived[model.name] = try JSONSerialization.jsonObject(with: Data(model.schema.render().utf8))
        }
        if let path = ProcessInfo.processInfo.environment["SONDE_DERIVED_AUDIT_SCHEMA_OUT"] {
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
}
