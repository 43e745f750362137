/// A field's value as a flat format carries it: one string, flag, integer or number (HAR's
/// `_`-prefixed members, OTLP attributes). A model value has one when `ModelValue.hasScalarForm`:
/// the scalars, `Timestamp` (ISO 8601, UTC), string enums (their raw value), optionals of these,
/// and the few models that stand for one line of text (`HTTP3Fallback`'s reason, `AltSvcUse`'s
/// and `AltSvcFailure`'s summaries). Lists and other models have none: flat formats pass them by.
public enum ModelScalar: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case int(Int64)
    case double(Double)

    /// Writes the value as JSON (a non-finite number as `null`, as `JSONOutput` does).
    public func write(to output: inout JSONOutput) {
        switch self {
        case .string(let text): output.string(text)
        case .bool(let flag): output.bool(flag)
        case .int(let number): output.int(number)
        case .double(let number): output.double(number)
        }
    }
}
