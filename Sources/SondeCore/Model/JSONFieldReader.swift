/// Reads an object's members into the fields `visitFields` names, in one pass when the keys come
/// in the order of the `visit` calls, as sonde writes them (`FieldModel.init(reading:)`).
///
/// Each `visit` compares its key with the next key of the stream: equal, the value is read into the
/// field; not equal, the field is taken as absent and the key waits for a later field. A key left
/// over at the end that names such a field means the keys came in another order (`JSONEncoder`
/// sorts them): `finish` then returns false and the caller reads the object again with
/// `JSONIndexedFieldReader`. Unknown keys are skipped. `reader` points at the caller's reader,
/// positioned after the object's `{`, valid for the walk only.
struct JSONFieldReader: FieldVisitor {
    typealias Failure = JSONReadError
    let reader: UnsafeMutablePointer<JSONReader>
    /// The model being read, for messages.
    let typeName: Any.Type
    /// The next key of the stream, read and not yet matched to a field (its `:` consumed).
    private var pending: JSONKey?
    /// Fields taken as absent so far, and the first of them a reader must find.
    private var absent: [StaticString] = []
    private var missingRequired: StaticString?
    private var first = true
    private var closed = false
    /// A member kept as a part named a field taken as absent: the keys came in another order.
    private var outOfOrder = false

    init(reader: UnsafeMutablePointer<JSONReader>, typeName: Any.Type) {
        self.reader = reader
        self.typeName = typeName
    }

    @inline(__always)
    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) throws(JSONReadError) {
        if pending == nil, !closed {
            pending = try reader.pointee.nextKey(first: &first)
            if pending == nil { closed = true }
        }
        if let key = pending, key == name {
            pending = nil
            value = try Value.readModelValue(from: &reader.pointee)
            return
        }
        absent.append(name)
        if rule.required, missingRequired == nil { missingRequired = name }
    }

    /// Every member left (the pending one and the rest, through the `}`) is a part, unless its key
    /// names a field taken as absent (then the keys came in another order: `finish` says so).
    mutating func visitParts(_ parts: inout ModelParts) throws(JSONReadError) {
        while !closed {
            if pending == nil {
                pending = try reader.pointee.nextKey(first: &first)
                if pending == nil { closed = true; break }
            }
            guard let key = pending else { break }
            pending = nil
            if absent.contains(where: { key == $0 }) {
                outOfOrder = true
                try reader.pointee.skipValue()
            } else {
                parts.set(key.description, json: reader.pointee.bytes(in: try reader.pointee.readRawValue()))
            }
        }
    }

    /// Reads what is left of the object through its `}`: true when every key was matched or is
    /// unknown (then the fields hold the object), false when a key left over names a field taken
    /// as absent (the keys came in another order: read the object again by index). Throws when
    /// a required key is missing.
    mutating func finish() throws(JSONReadError) -> Bool {
        if outOfOrder { return false }
        while !closed {
            if pending == nil {
                pending = try reader.pointee.nextKey(first: &first)
                if pending == nil { closed = true; break }
            }
            if let key = pending, absent.contains(where: { key == $0 }) { return false }
            pending = nil
            try reader.pointee.skipValue()
        }
        if let missingRequired { throw reader.pointee.error("\(typeName) needs \(missingRequired)") }
        return true
    }
}
