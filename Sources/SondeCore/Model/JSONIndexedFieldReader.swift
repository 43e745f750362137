/// Reads an object whose keys came in another order than the fields' (`JSONFieldReader.finish`
/// said so): every member's key and value offset first, then each field from its offset.
/// Duplicate keys: the last one wins, as in `JSONDecoder`. Unknown keys are skipped.
struct JSONIndexedFieldReader: FieldVisitor {
    typealias Failure = JSONReadError
    let reader: UnsafeMutablePointer<JSONReader>
    let typeName: Any.Type
    private var members: [(key: JSONKey, offset: Int)] = []
    /// The keys the fields named so far (the others are parts).
    private var named: [StaticString] = []
    /// Where the object ends (after its `}`), where the reader is left.
    private let end: Int

    /// Indexes the object whose first member `reader` stands at (after its `{`).
    init(reader: UnsafeMutablePointer<JSONReader>, typeName: Any.Type) throws(JSONReadError) {
        self.reader = reader
        self.typeName = typeName
        var first = true
        while let key = try reader.pointee.nextKey(first: &first) {
            members.append((key, reader.pointee.offset))
            try reader.pointee.skipValue()
        }
        end = reader.pointee.offset
    }

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) throws(JSONReadError) {
        named.append(name)
        guard let member = members.last(where: { $0.key == name }) else {
            if rule.required { throw reader.pointee.error("\(typeName) needs \(name)") }
            return
        }
        reader.pointee.offset = member.offset
        value = try Value.readModelValue(from: &reader.pointee)
        reader.pointee.offset = end
    }

    /// Every member no field named, the last of a key winning.
    mutating func visitParts(_ parts: inout ModelParts) throws(JSONReadError) {
        for member in members where !named.contains(where: { member.key == $0 }) {
            reader.pointee.offset = member.offset
            parts.set(member.key.description, json: reader.pointee.bytes(in: try reader.pointee.readRawValue()))
        }
        reader.pointee.offset = end
    }
}
