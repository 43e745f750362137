/// Conversions from `Double` that cannot trap, for values that come from outside (a journal, a
/// baseline run) on their way to text: NaN becomes 0, and anything beyond the integer type's
/// range its nearest bound. Callers that need exact values range-check first; these only keep a
/// report from crashing on numbers no check anticipated.
extension Int {
    public init(saturating value: Double) {
        if value.isNaN { self = 0 } else if value >= 9.2e18 { self = .max } else if value <= -9.2e18 { self = .min } else { self = Int(value) }
    }
}

extension Int64 {
    public init(saturating value: Double) { self = Int64(Int(saturating: value)) }

    /// The sum, or the nearest bound where it would overflow (byte counts from a journal may be anything).
    public func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
