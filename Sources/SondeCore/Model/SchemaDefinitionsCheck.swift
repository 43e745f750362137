import Foundation

/// The report schema's `$defs` compared with the definitions the models derive
/// (`FieldModel.schemaDefinition`), descriptions aside: what `ReportSchemaTests` (SondeCore's own
/// models) and `SoakPartSchemaTests` (a soak with the kind extensions' parts) both check, and the
/// derived definitions `scripts/update-report-schema.sh` writes into the file (through the tests'
/// `SONDE_DERIVED_*_OUT` variables). For tests and that script only.
package struct SchemaDefinitionsCheck {
    /// The derived definitions, by `$defs` name, as JSON objects.
    package let derived: [String: Any]
    /// The file's `$defs`.
    package let held: [String: Any]
    /// The names whose held definition (descriptions aside) is not the derived one.
    package let differing: [String]

    /// `Reports/schema/sonde-report.schema.json` of the checkout holding `testFile` (a file two
    /// folders below its root, `Tests/<target>/<file>.swift`).
    package static func reportSchemaPath(testFile: String = #filePath) -> String {
        URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reports/schema/sonde-report.schema.json").path
    }

    /// Reads the schema at `schemaPath` and compares it with `models`; with `derivedOut`, writes
    /// the derived definitions there first (sorted keys).
    package init(models: [(name: String, schema: ModelSchema)], schemaPath: String, derivedOut: String? = nil) throws {
        var derived: [String: Any] = [:]
        for model in models {
            derived[model.name] = try JSONSerialization.jsonObject(with: Data(model.schema.render().utf8))
        }
        if let derivedOut {
            try JSONSerialization.data(withJSONObject: derived, options: [.sortedKeys]).write(to: URL(fileURLWithPath: derivedOut))
        }
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: schemaPath))) as? [String: Any]
        let held = schema?["$defs"] as? [String: Any] ?? [:]
        self.derived = derived
        self.held = held
        differing = models.map(\.name).filter { name in
            (held[name].map(Self.withoutDescriptions) as? NSDictionary) != (derived[name] as? NSDictionary)
        }
    }

    /// `value` without any `description` member, at any depth.
    package static func withoutDescriptions(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return object.filter { $0.key != "description" }.mapValues(withoutDescriptions)
        }
        if let array = value as? [Any] { return array.map(withoutDescriptions) }
        return value
    }
}
