import SondeCore

/// Collects a model's fields as OTLP attributes by its `OTLPFieldTable`'s names (one per field of
/// the walk, `OTLPFieldTable.attributeNames`); an absent value adds nothing.
struct OTLPFieldAttributes: FieldVisitor {
    typealias Failure = Never
    let names: [String?]
    private(set) var attributes: [OTLPAttribute] = []
    private var index = 0

    init(names: [String?]) {
        self.names = names
    }

    /// `model`'s attributes, in the order of its fields.
    static func of<Model: FieldModel>(_ model: Model, names: [String?]) -> [OTLPAttribute] {
        var collector = OTLPFieldAttributes(names: names)
        var fields = model
        fields.visitFields(&collector)
        return collector.attributes
    }

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) {
        defer { index += 1 }
        guard Value.hasScalarForm, index < names.count, let key = names[index], let scalar = value.scalar else { return }
        switch scalar {
        case .string(let text): attributes.append(.string(key, text))
        case .bool(let flag): attributes.append(.bool(key, flag))
        case .int(let number): attributes.append(OTLPAttribute(key, .int(number)))
        case .double(let number): attributes.append(.double(key, number))
        }
    }
}
