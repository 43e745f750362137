import Foundation
import SondeCore

/// The suite JSON Schema's parts that the kinds' key tables decide (Reports/schema/
/// sonde-suite.schema.json): each kind's branch of `checks.items.oneOf` and the `defaults`
/// properties. `SuiteLoaderSchemaTests` holds the file to them; scripts/update-report-schema.sh
/// writes them into it. The rest of the file (top-level keys, serve's keys, `$defs`) is written by hand.
public enum SuiteSchema {
    /// A key's property: its type's definition (with its bound, or its choices) and its summary.
    public static func property(_ key: SpecKey) -> [String: Any] {
        var property: [String: Any]
        switch key.schemaShape {
        case .textOrInteger:
            property = ["anyOf": [["type": "string"], ["type": "integer"]]]
        case .offsets:
            property = ["type": "array", "items": ["anyOf": [["type": "string"], ["type": "integer", "minimum": 0]]]]
        case .requests:
            let named: [String: Any] = ["type": "object", "required": ["url"], "additionalProperties": false,
                                        "properties": ["url": ["type": "string"],
                                                       "name": ["type": "string", "minLength": 1, "maxLength": RequestName.maxBytes]]]
            property = ["type": "array", "items": ["anyOf": [["type": "string"], named]]]
        case .standard where !key.choices.isEmpty:
            property = ["enum": key.choices]
        case .standard:
            switch key.type {
            case .text: property = reference("text")
            case .textList: property = reference("textList")
            case .boolean: property = reference("flag")
            case .duration: property = reference("duration")
            case .size: property = reference("size")
            case .integer, .unsigned, .number:
                var number: [String: Any] = ["type": key.type == .number ? "number" : "integer"]
                switch key.bound {
                case .integer(let range)?: number["minimum"] = range.lowerBound; number["maximum"] = range.upperBound
                case .atLeast(let minimum)?: number["minimum"] = minimum
                case .number(let range)?: number["minimum"] = range.lowerBound; number["maximum"] = range.upperBound
                case .duration?, nil:
                    if key.type == .unsigned { number["minimum"] = 0; number["maximum"] = UInt64.max }
                }
                property = ["anyOf": [number, reference("environmentReference")]]
            }
        }
        property["description"] = key.summary
        return property
    }

    /// The branch of `checks.items.oneOf` for checks of `kind`: its keys (its extensions' in
    /// `kinds` among them), and its required ones (`visitRequired`) beside `name` and `kind`.
    public static func branch(_ kind: any CheckKind.Type, in kinds: CheckKinds) -> [String: Any] {
        var properties: [String: Any] = ["name": reference("checkName"), "kind": ["const": kind.name]]
        for key in kinds.keyTable(of: kind) { properties[key.name] = property(key) }
        return ["type": "object", "title": "\(kind.name) check", "required": ["name", "kind"] + kind.requiredKeys,
                "additionalProperties": false, "properties": properties]
    }

    /// `defaults.properties`: every key of every kind of `kinds` (a name two kinds share, worded as the first kind words it).
    public static func defaultsProperties(_ kinds: CheckKinds) -> [String: Any] {
        var properties: [String: Any] = [:]
        for kind in kinds.all {
            for key in kinds.keyTable(of: kind) where properties[key.name] == nil { properties[key.name] = property(key) }
        }
        return properties
    }

    static func reference(_ definition: String) -> [String: Any] { ["$ref": "#/$defs/\(definition)"] }
}
