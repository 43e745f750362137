/// `Decodable` from the fields: a missing required key throws `keyNotFound`, any other missing key
/// keeps the model's `blank` value, `null` reads as nil.
struct FieldDecoder: FieldVisitor {
    typealias Failure = any Error
    let container: KeyedDecodingContainer<FieldCodingKey>
    let typeName: Any.Type

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) throws(any Error) {
        let key = FieldCodingKey(name)
        if container.contains(key) {
            value = try container.decode(Value.self, forKey: key)
        } else if rule.required {
            throw DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: "\(typeName) needs \(name)"))
        }
    }
}
