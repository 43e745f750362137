import Foundation
import Testing
import SondeCLI
import SondeCore
import SondeRun

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

    static let schemaPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reports/schema/sonde-report.schema.json").path

    static func withoutDescriptions(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return object.filter { $0.key != "description" }.mapValues(withoutDescriptions)
        }
        if let array = value as? [Any] { return array.map(withoutDescriptions) }
        return value
    }

    @Test func theSchemaHoldsTheSoakDefinitionsWithTheirParts() throws {
        var derived: [String: Any] = [:]
        for model in Self.models {
            derived[model.name] = try JSONSerialization.jsonObject(with: Data(model.schema.render().utf8))
        }
        if let path = ProcessInfo.processInfo.environment["SONDE_DERIVED_PART_SCHEMA_OUT"] {
            try JSONSerialization.data(withJSONObject: derived, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        }
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.schemaPath))) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        for model in Self.models {
            let held = definitions[model.name].map(Self.withoutDescriptions) as? NSDictionary
            #expect(held == derived[model.name] as? NSDictionary,
                    "$defs.\(model.name) differs from its fields and parts; run scripts/update-report-schema.sh. Derived: \(model.schema.render())")
        }
        // The parts are there: a registry without them would derive a schema without them.
        let soak = try #require(definitions["soak"] as? [String: Any])
        let properties = try #require(soak["properties"] as? [String: Any])
        #expect(properties["subscription"] != nil)
        let config = try #require((properties["config"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(config["graphql"] != nil)
    }
}
