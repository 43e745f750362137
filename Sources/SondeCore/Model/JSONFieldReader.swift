/// Reads an object's members into the fields `visitFields` names (`FieldModel.init(reading:)`).
///
/// Keys come in any order. The common case, keys in the order sonde writes them, reads each value
/// straight into its field; a key met before its field (or unknown) is remembered with its value's
/// offset and skipped, and read from there when its field comes. `reader` points at the caller's
/// reader, positioned after the object's `{`, valid for the walk only.
struct JSONFieldReader: FieldVisitor {
    typealias Failure = JSONReadError
    let reader: UnsafeMutablePointer<JSONReader>
    /// The model being read, for messages.
    let typeName: Any.Type
    /// Keys read before their field, with their value's offset.
    private var early: [(key: JSONKey, offset: Int)] = []
    private var first = true
    private var closed = false

    init(reader: UnsafeMutablePointer<JSONReader>, typeName: Any.Type) {
        self.reader = reader
        self.typeName = typeName
    }

    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) throws(JSONReadError) {
        if !early.isEmpty, let index = early.firstIndex(where: { $0.key == name }) {
            let resume = reader.pointee.offset
            reader.pointee.offset = early[index].offset
            value = try Value.readModelValue(from: &reader.pointee)
            reader.pointee.offset = resume
            early.remove(at: index)
            return
        }
        while !closed {
            guard let key = try reader.pointee.nextKey(first: &first) else { closed = true; break }
            if key == name {
                value = try Value.readModelValue(from: &reader.pointee)
                return
            }
            early.append((key, reader.pointee.offset))
            try reader.pointee.skipValue()
        }
        if rule.required { throw reader.pointee.error("\(typeName) needs \(name)") }
    }

    /// Skips the members no field asked for, through the object's `}`.
    mutating func finish() throws(JSONReadError) {
        while !closed {
            guard try reader.pointee.nextKey(first: &first) != nil else { closed = true; break }
            try reader.pointee.skipValue()
        }
    }
}
