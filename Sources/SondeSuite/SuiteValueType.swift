/// The type of value a suite key takes, for messages (`count: expected a whole number (got '5x')`)
/// and for the JSON Schema, which a test holds to this table.
///
/// Invariant: a key means the same type in every kind that has it (a test checks it).
public enum SuiteValueType: String, CaseIterable, Sendable {
    case text, integer, unsigned, number, boolean, duration, size, textList

    /// The type in words, after "expected".
    public var noun: String {
        switch self {
        case .text: return "text"
        case .integer: return "a whole number"
        case .unsigned: return "a whole number from 0 to \(UInt64.max)"
        case .number: return "a number"
        case .boolean: return "true or false"
        case .duration: return "a duration: 500ms, 5s, 2m, 1h (a bare number means seconds)"
        case .size: return "a size: a number of bytes, or with a unit: 512KiB, 16MiB"
        case .textList: return "a list of text items, like [a, b]"
        }
    }
}
