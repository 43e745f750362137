/// `Decodable` from the fields: a missing required key throws `keyNotFound`, any other missing key
/// keeps the model's `blank` value, `null` reads as nil.
struct FieldDecoder: FieldVisitor {
    typealias Failure = any Error
    let container: KeyedDecodingContainer<FieldCodingKey>
    let typeName: Any.Type
    /// The keys the fields named so far (the others are parts).
    var named: Set<String> = []

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) throws(any Error) {
        let key = FieldCodingKey(name)
        named.insert(key.stringValue)
        if container.contains(key) {
            value = try container.decode(Value.self, forKey: key)
        } else if rule.required {
            throw DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: "\(typeName) needs \(name)"))
        }
    }

    mutating func visitParts(_ parts: inout ModelParts) throws(any Error) {
        for key in container.allKeys where !named.contains(key.stringValue) {
            parts.set(key.stringValue, json: try container.decode(JSONTree.self, forKey: key).json())
        }
    }
}
