/// A model type described by its fields: `visitFields` names each field once (JSON key, storage,
/// rule), and everything else is derived from that walk: `writeJSON` (the fast writer),
/// `init(reading:)` (the fast reader), `Codable`, the range check and the JSON Schema.
///
/// Adding a field is its stored property plus one `visitor.visit` line. The order of the
/// `visit` calls is the order the fast writer writes the keys (`JSONEncoder` with `.sortedKeys`
/// sorts them); readers take keys in any order and skip unknown ones.
public protocol FieldModel: ModelValue, JSONWritable, JSONReadable {
    /// The value a reader starts from: every field a reader does not find keeps its value here.
    static var blank: Self { get }
    /// The name of the schema's `$defs` entry for this type, or nil to write it inline.
    static var schemaName: String? { get }
    mutating func visitFields<Visitor: FieldVisitor>(_ visitor: inout Visitor) throws(Visitor.Failure)
}

extension FieldModel {
    public static var schemaName: String? { nil }

    // MARK: JSONOutput / JSONReader

    public func writeJSON(to output: inout JSONOutput) {
        output.object { object in
            withUnsafeMutablePointer(to: &object) { pointer in
                var writer = JSONFieldWriter(output: pointer)
                var fields = self
                fields.visitFields(&writer)
            }
        }
    }

    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        self = try Self.readFields(from: &reader)
    }

    /// One pass when the keys come in the fields' order (sonde's own output), a second by index
    /// when they do not (`JSONFieldReader`).
    static func readFields(from reader: inout JSONReader) throws(JSONReadError) -> Self {
        try reader.beginObject()
        let start = reader.offset
        var value = Self.blank
        let inOrder = try withUnsafeMutablePointer(to: &reader) { (pointer: UnsafeMutablePointer<JSONReader>) throws(JSONReadError) -> Bool in
            var fieldReader = JSONFieldReader(reader: pointer, typeName: Self.self)
            try value.visitFields(&fieldReader)
            return try fieldReader.finish()
        }
        if inOrder { return value }
        reader.offset = start
        value = Self.blank
        try withUnsafeMutablePointer(to: &reader) { (pointer: UnsafeMutablePointer<JSONReader>) throws(JSONReadError) in
            var indexed = try JSONIndexedFieldReader(reader: pointer, typeName: Self.self)
            try value.visitFields(&indexed)
        }
        return value
    }

    public func writeModelValue(to output: inout JSONOutput) { writeJSON(to: &output) }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Self { try readFields(from: &reader) }

    // MARK: Codable

    public func encode(to encoder: any Encoder) throws {
        var fieldEncoder = FieldEncoder(container: encoder.container(keyedBy: FieldCodingKey.self))
        var fields = self
        try fields.visitFields(&fieldEncoder)
    }

    public init(from decoder: any Decoder) throws {
        var fieldDecoder = FieldDecoder(container: try decoder.container(keyedBy: FieldCodingKey.self), typeName: Self.self)
        var value = Self.blank
        try value.visitFields(&fieldDecoder)
        self = value
    }

    // MARK: Range and schema

    /// Why one of this value's numbers lies outside its field's range (the field's path and the
    /// value, in words), or nil when all lie inside: a journal is a file anyone can edit.
    public var fieldRangeProblem: String? {
        var check = FieldRangeCheck()
        var fields = self
        fields.visitFields(&check)
        return check.problem
    }

    public func rangeProblem(_ rule: FieldRule, name: StaticString) -> String? {
        fieldRangeProblem.map { "\(name).\($0)" }
    }

    /// This type's object schema: every field, required unless left out when nil.
    public static var schemaDefinition: ModelSchema {
        var collector = FieldSchemaCollector()
        var fields = Self.blank
        fields.visitFields(&collector)
        return .object(collector.properties)
    }

    public static var modelSchema: ModelSchema { schemaName.map { .reference($0) } ?? schemaDefinition }
}
