/// Collects each field's schema, bounded by its rule (`FieldModel.schemaDefinition`).
struct FieldSchemaCollector: FieldVisitor {
    typealias Failure = Never
    private(set) var properties: [ModelSchema.Property] = []

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) {
        properties.append(ModelSchema.Property(name: "\(name)", schema: Value.modelSchema.bounded(by: rule), required: !rule.omitsNil))
    }
}
