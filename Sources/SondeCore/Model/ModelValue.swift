/// A value a model field can hold: it writes itself with `JSONOutput`, reads itself with
/// `JSONReader`, is `Codable`, states its schema and checks its range. The scalars, `Timestamp`,
/// optionals, arrays, string enums and every `FieldModel` are model values.
///
/// Invariant: `readModelValue` accepts what `writeModelValue` writes and what `JSONEncoder`
/// writes for the same value.
public protocol ModelValue: Codable {
    func writeModelValue(to output: inout JSONOutput)
    static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Self
    static var modelSchema: ModelSchema { get }
    /// Why this value breaks `rule`'s bounds (`name`, the field's key, begins the message), or nil.
    func rangeProblem(_ rule: FieldRule, name: StaticString) -> String?
    /// Whether this is an absent optional (so `FieldRule.omitsNil` leaves it out).
    var isAbsent: Bool { get }
    /// Whether values of this type have a flat form (`ModelScalar`): flat formats (HAR's `_`
    /// members, OTLP attributes) carry such a field and pass any other by.
    static var hasScalarForm: Bool { get }
    /// This value's flat form; nil when absent or when the type has none (`hasScalarForm`).
    var scalar: ModelScalar? { get }
}

extension ModelValue {
    public func rangeProblem(_ rule: FieldRule, name: StaticString) -> String? { nil }
    public var isAbsent: Bool { false }
    public static var hasScalarForm: Bool { false }
    public var scalar: ModelScalar? { nil }
}

extension String: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) { output.string(self) }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> String { try reader.readString() }
    public static var modelSchema: ModelSchema { .string }
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .string(self) }
}

extension Bool: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) { output.bool(self) }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Bool { try reader.readBool() }
    public static var modelSchema: ModelSchema { .boolean }
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .bool(self) }
}

extension Int: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) { output.int(self) }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Int { try reader.readInt() }
    public static var modelSchema: ModelSchema { .integer }
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .int(Int64(self)) }
    public func rangeProblem(_ rule: FieldRule, name: StaticString) -> String? { rule.problem(Double(self), name) }
}

extension Int64: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) { output.int(self) }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Int64 { try reader.readInt64() }
    public static var modelSchema: ModelSchema { .integer }
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .int(self) }
    public func rangeProblem(_ rule: FieldRule, name: StaticString) -> String? { rule.problem(Double(self), name) }
}

extension Double: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) { output.double(self) }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Double { try reader.readDouble() }
    public static var modelSchema: ModelSchema { .number }
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .double(self) }
    public func rangeProblem(_ rule: FieldRule, name: StaticString) -> String? { rule.problem(self, name) }
}

extension Timestamp: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) { writeJSON(to: &output) }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Timestamp { try Timestamp(reading: &reader) }
    public static var modelSchema: ModelSchema { .reference("timestamp") }
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .string(description) }
}

extension Optional: ModelValue where Wrapped: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) {
        if let self { self.writeModelValue(to: &output) } else { output.null() }
    }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Wrapped? {
        if reader.readNull() { return nil }
        return try Wrapped.readModelValue(from: &reader)
    }
    public static var modelSchema: ModelSchema { .nullable(Wrapped.modelSchema) }
    public func rangeProblem(_ rule: FieldRule, name: StaticString) -> String? { self?.rangeProblem(rule, name: name) }
    public var isAbsent: Bool { self == nil }
    public static var hasScalarForm: Bool { Wrapped.hasScalarForm }
    public var scalar: ModelScalar? { self?.scalar }
}

extension Array: ModelValue where Element: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) {
        output.array(self) { output, element in element.writeModelValue(to: &output) }
    }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> [Element] {
        var result: [Element] = []
        try reader.readArray { (reader: inout JSONReader) throws(JSONReadError) in result.append(try Element.readModelValue(from: &reader)) }
        return result
    }
    public static var modelSchema: ModelSchema { .array(Element.modelSchema) }
    public func rangeProblem(_ rule: FieldRule, name: StaticString) -> String? {
        for element in self { if let problem = element.rangeProblem(rule, name: name) { return problem } }
        return nil
    }
}

/// A map from names to values (counts by cause, by close code): keys written sorted, as
/// `JSONEncoder` with `.sortedKeys` writes them.
extension Dictionary: ModelValue where Key == String, Value: ModelValue {
    public func writeModelValue(to output: inout JSONOutput) {
        output.object { object in
            for (key, value) in sorted(by: { $0.key < $1.key }) {
                object.key(named: key)
                value.writeModelValue(to: &object)
            }
        }
    }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> [String: Value] {
        var result: [String: Value] = [:]
        try reader.readObject { (member: inout JSONReader, key: JSONKey) throws(JSONReadError) in
            result[key.description] = try Value.readModelValue(from: &member)
        }
        return result
    }
    public static var modelSchema: ModelSchema { .map(Value.modelSchema) }
    public func rangeProblem(_ rule: FieldRule, name: StaticString) -> String? {
        for value in values { if let problem = value.rangeProblem(rule, name: name) { return problem } }
        return nil
    }
}

/// A string enum is a model value by its raw value; its schema lists every case.
extension ModelValue where Self: RawRepresentable, Self.RawValue == String, Self: CaseIterable {
    public func writeModelValue(to output: inout JSONOutput) { output.string(rawValue) }
    public static func readModelValue(from reader: inout JSONReader) throws(JSONReadError) -> Self {
        let text = try reader.readString()
        guard let value = Self(rawValue: text) else { throw reader.error("unknown value \(text)") }
        return value
    }
    public static var modelSchema: ModelSchema { .enumeration(allCases.map(\.rawValue)) }
    public static var hasScalarForm: Bool { true }
    public var scalar: ModelScalar? { .string(rawValue) }
}
