import Foundation
import Testing
import SondeCLI
import SondeCore
import SondeSuite

/// The report schema's definitions of a soak and its attempts are the ones their fields and the
/// registered kind extensions' parts derive (`SoakAttempt.schemaDefinition(parts:)`,
/// `SoakReport.schemaDefinition(parts:)`: `attempts[].subscription`, `subscription` and
/// `config.graphql` are SondeGraphQL's), descriptions aside. `scripts/update-report-schema.sh`
/// writes them into the file as `ReportSchemaTests` writes SondeCore's own.
@Suite struct SoakPartSchemaTests {
    static let models: [(name: String, schema: ModelSchema)] = [
        ("soakAttempt", SoakAttempt.schemaDefinition(parts: CheckKinds.sonde.soakParts)),
        ("soak", SoakReport.schemaDefinition(parts: CheckKinds.sonde.soakParts)),
    ]

    @Test func theSchemaHoldsTheSoakDefinitionsWithTheirParts() throws {
        let check = try SchemaDefinitionsCheck(models: Self.models, schemaPath: SchemaDefinitionsCheck.reportSchemaPath(),
                                               derivedOut: ProcessInfo.processInfo.environment["SONDE_DERIVED_PART_SCHEMA_OUT"])
        for name in check.differing {
            Issue.record("$defs.\(name) differs from its fields and parts; run scripts/update-report-schema.sh. Derived: \(Self.models.first { $0.name == name }?.schema.render() ?? "")")
        }
        let definitions = check.held
        // The parts are there: a registry without them would derive a schema without them.
        let soak = try #require(definitions["soak"] as? [String: Any])
        let properties = try #require(soak["properties"] as? [String: Any])
        #expect(properties["subscription"] != nil)
        let config = try #require((properties["config"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(config["graphql"] != nil)
    }
}
