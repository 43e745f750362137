/// The JSON Schema (draft 2020-12) of a model value, as `FieldModel.schemaDefinition` derives it
/// from the field declarations; `render` writes it in the form `Reports/schema` holds.
public indirect enum ModelSchema: Sendable, Equatable {
    case string
    case integer
    case number
    case boolean
    /// `{"$ref": "#/$defs/NAME"}`.
    case reference(String)
    /// The value or `null`.
    case nullable(ModelSchema)
    case array(ModelSchema)
    /// One of these strings.
    case enumeration([String])
    /// Every property written always (so all required), in declaration order.
    case object([Property])
    /// A number or string with bounds (`minimum`/`maximum`, or `minLength` for a string).
    case bounded(ModelSchema, minimum: Int64?, maximum: Int64?)
    /// A string matching a regular expression.
    case pattern(String)
    /// An object whose every member has this schema (a name → value map).
    case map(ModelSchema)

    public struct Property: Sendable, Equatable {
        public var name: String
        public var schema: ModelSchema
        public var required: Bool
    }

    /// The schema as JSON text (compact; keys in the order JSON Schema readers expect them).
    public func render() -> String {
        var output = JSONOutput()
        write(to: &output)
        return output.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    func write(to output: inout JSONOutput) {
        switch self {
        case .string: output.object { $0.member("type", "string") }
        case .integer: output.object { $0.member("type", "integer") }
        case .number: output.object { $0.member("type", "number") }
        case .boolean: output.object { $0.member("type", "boolean") }
        case .reference(let name): output.object { $0.member("$ref", "#/$defs/" + name) }
        case .nullable(let wrapped):
            output.object { o in
                o.key("anyOf")
                o.array([wrapped, nil]) { o, schema in
                    if let schema { schema.write(to: &o) } else { o.object { $0.member("type", "null") } }
                }
            }
        case .array(let element):
            output.object { o in
                o.member("type", "array")
                o.key("items")
                element.write(to: &o)
            }
        case .enumeration(let cases):
            output.object { o in
                o.key("enum")
                o.array(cases) { $0.string($1) }
            }
        case .object(let properties):
            output.object { o in
                o.member("type", "object")
                o.key("required")
                o.array(properties.filter(\.required)) { $0.string($1.name) }
                o.key("properties")
                o.object { p in
                    for property in properties {
                        p.key(named: property.name)
                        property.schema.write(to: &p)
                    }
                }
            }
        case .map(let value):
            output.object { o in
                o.member("type", "object")
                o.key("additionalProperties")
                value.write(to: &o)
            }
        case .pattern(let expression):
            output.object { o in
                o.member("type", "string")
                o.member("pattern", expression)
            }
        case .bounded(let base, let minimum, let maximum):
            output.object { o in
                switch base {
                case .string:
                    o.member("type", "string")
                    if let minimum { o.member("minLength", Int(minimum)) }
                default:
                    o.member("type", base == .integer ? "integer" : "number")
                    if let minimum { o.member("minimum", Int(minimum)) }
                    if let maximum { o.member("maximum", Int(maximum)) }
                }
            }
        }
    }

    /// This schema with what `rule` says of it: its bounds, values or pattern (through `nullable`
    /// and to an array's elements);
    /// a field left out when nil is never `null`.
    func bounded(by rule: FieldRule) -> ModelSchema {
        if case .nullable(let wrapped) = self {
            return rule.omitsNil ? wrapped.bounded(by: rule) : .nullable(wrapped.bounded(by: rule))
        }
        if case .array(let element) = self { return .array(element.bounded(by: rule)) }
        if case .map(let value) = self { return .map(value.bounded(by: rule)) }
        if let values = rule.values { return .enumeration(values) }
        if let pattern = rule.pattern { return .pattern(pattern) }
        switch rule.unit {
        case .plain: return self
        case .nonEmpty: return .bounded(self, minimum: 1, maximum: nil)
        case .milliseconds: return .bounded(self, minimum: 0, maximum: nil)
        case .microseconds: return self
        case .count, .nonNegative: return .bounded(self, minimum: 0, maximum: nil)
        case .port: return .bounded(self, minimum: 1, maximum: 65_535)
        case .identifier: return .bounded(self, minimum: 1, maximum: nil)
        case .statusCode: return .bounded(self, minimum: 100, maximum: 999)
        }
    }
}
