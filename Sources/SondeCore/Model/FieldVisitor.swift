/// Something that walks a model's fields: `FieldModel.visitFields` calls `visit` once per field,
/// in the order the JSON writes them. The writers, the readers, `Codable`, the range check and
/// the schema are each a visitor, so a field is declared once, in `visitFields`.
public protocol FieldVisitor {
    associatedtype Failure: Error
    /// One field: its JSON key, its storage (a reader assigns it, the others only look), its rule.
    mutating func visit<Value: ModelValue>(_ name: StaticString, _ value: inout Value, _ rule: FieldRule) throws(Failure)
    /// The model's parts (`ModelParts`), visited once, after every field: the writers write them,
    /// the readers take every member no field names. Visitors that neither write nor read (the
    /// range check, the schema) pass them by.
    mutating func visitParts(_ parts: inout ModelParts) throws(Failure)
}

extension FieldVisitor {
    public mutating func visitParts(_ parts: inout ModelParts) throws(Failure) {}
}

/// The coding key of a field, by its JSON name (`FieldEncoder`, `FieldDecoder`).
struct FieldCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: StaticString) { stringValue = "\(name)" }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
