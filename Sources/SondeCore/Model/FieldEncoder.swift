/// `Encodable` from the fields: every key written (`null` for an absent value) unless the rule
/// leaves it out when nil, so a report has its full shape whatever encoder writes it.
struct FieldEncoder: FieldVisitor {
    typealias Failure = any Error
    var container: KeyedEncodingContainer<FieldCodingKey>

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) throws(any Error) {
        if rule.omitsNil && value.isAbsent { return }
        try container.encode(value, forKey: FieldCodingKey(name))
    }

    mutating func visitParts(_ parts: inout ModelParts) throws(any Error) {
        for (key, json) in parts.values.sorted(by: { $0.key < $1.key }) {
            guard let codingKey = FieldCodingKey(stringValue: key) else { continue }
            try container.encode(try JSONTree(json: json), forKey: codingKey)
        }
    }
}
