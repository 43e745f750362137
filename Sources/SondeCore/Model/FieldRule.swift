/// What a model field's declaration says beyond its name and type: whether a reader must find it,
/// whether an absent value is left out of the JSON, and what its number means, which bounds it.
///
/// Invariant: every rule holds in all four derived forms alike: the fast reader and `Decodable`
/// refuse a missing required key, the writers and `Encodable` write every key (`null` for an
/// absent value) unless `omitsNil`, the range check (`FieldModel.rangeProblem`) and the schema
/// (`FieldModel.schemaDefinition`) take their bounds from `unit`.
public struct FieldRule: Sendable {
    /// What a number means, and so the range it must lie in. `plain` bounds nothing.
    public enum Unit: Sendable {
        case plain
        /// A duration in milliseconds (µs resolution): finite, within ±`maxDurationMs`.
        case milliseconds
        /// An offset in microseconds: within ±`maxDurationMs` × 1000.
        case microseconds
        /// A count (bytes, packets, iterations): 0…`maxCount`.
        case count
        /// A TCP or UDP port: 0…65535.
        case port
        /// An HTTP status code: 0…999 read (a journal may hold 0 for no status), 100…999 in the schema.
        case statusCode
        /// A string that is never empty.
        case nonEmpty
        /// A number sonde counts from 1 (connection ids).
        case identifier
        /// A finite number never below 0 (a rate).
        case nonNegative
    }

    /// A reader refuses the object when this key is missing (an absent optional key is nil, an
    /// absent non-required key keeps the model's `blank` value).
    public var required: Bool
    /// An absent value is left out of the JSON instead of written as `null`.
    public var omitsNil: Bool
    public var unit: Unit
    /// The only strings the field holds (the schema's `enum`; readers take any string).
    public var values: [String]?
    /// A regular expression every string of the field matches (the schema's `pattern`).
    public var pattern: String?

    public init(required: Bool = false, omitsNil: Bool = false, unit: Unit = .plain, values: [String]? = nil, pattern: String? = nil) {
        self.required = required
        self.omitsNil = omitsNil
        self.unit = unit
        self.values = values
        self.pattern = pattern
    }

    /// Optional to read, written always.
    public static let field = FieldRule()
    /// Must be present to read.
    public static let required = FieldRule(required: true)
    public static let milliseconds = FieldRule(unit: .milliseconds)
    public static let requiredMilliseconds = FieldRule(required: true, unit: .milliseconds)
    public static let count = FieldRule(unit: .count)
    public static let requiredCount = FieldRule(required: true, unit: .count)
    public static let port = FieldRule(unit: .port)
    /// Left out of the JSON when nil.
    public static let omittedWhenNil = FieldRule(omitsNil: true)

    /// The largest duration accepted (ms): 10^11 ms, a little over three years. Microsecond
    /// conversions and sums over 10^7 such values stay far inside Int64.
    public static let maxDurationMs = 1e11
    /// The largest count accepted (bytes, packets, iterations): 10^12.
    public static let maxCount: Int64 = 1_000_000_000_000

    /// Why `value` (a field's number, as a Double) lies outside this rule's range, in words, or nil.
    func problem(_ value: Double, _ name: StaticString) -> String? {
        switch unit {
        case .plain, .nonEmpty, .identifier:
            return nil
        case .milliseconds:
            return value.isFinite && abs(value) <= Self.maxDurationMs ? nil : "\(name) \(value) ms is outside ±10^11 ms (about three years)"
        case .microseconds:
            return abs(value) <= Self.maxDurationMs * 1000 ? nil : "\(name) of \(Int64(clamping: value)) µs is out of range"
        case .nonNegative:
            return value.isFinite && value >= 0 ? nil : "\(name) \(value) is not a finite number ≥ 0"
        case .count:
            return (0...Double(Self.maxCount)).contains(value) ? nil : "\(name) \(Int64(clamping: value)) is not between 0 and 10^12"
        case .port:
            return (0...65_535).contains(value) ? nil : "\(name) \(Int64(clamping: value)) is not between 0 and 65535"
        case .statusCode:
            return (0...999).contains(value) ? nil : "\(name) \(Int64(clamping: value)) is not between 0 and 999"
        }
    }
}

extension Int64 {
    /// `value` rounded toward zero and clamped to Int64's range (NaN is 0): for messages only.
    init(clamping value: Double) {
        if value.isNaN { self = 0 } else if value >= 9.2e18 { self = .max } else if value <= -9.2e18 { self = .min } else { self = Int64(value) }
    }
}
