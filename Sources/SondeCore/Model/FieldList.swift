/// A model type's fields in `visitFields` order: each field's JSON key and whether it has a flat
/// form (`ModelValue.hasScalarForm`). Flat formats (HAR's `_` members, OTLP attributes) build
/// their member for each field from this list once per model type, then their visitor finds a
/// field's member by its position in the walk instead of comparing names on every value.
public struct FieldList: FieldVisitor {
    public typealias Failure = Never

    public struct Field: Sendable, Equatable {
        /// The field's JSON key (`visit`'s name).
        public var key: String
        public var hasScalarForm: Bool
    }

    public private(set) var fields: [Field] = []

    /// The fields of `Model`, walked once over `Model.blank`.
    public static func of<Model: FieldModel>(_ model: Model.Type) -> [Field] {
        var list = FieldList()
        var blank = Model.blank
        blank.visitFields(&list)
        return list.fields
    }

    public mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) {
        fields.append(Field(key: "\(name)", hasScalarForm: Value.hasScalarForm))
    }
}
