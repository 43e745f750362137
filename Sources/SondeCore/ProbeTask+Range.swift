/// The ranges a journalled task's numbers must lie in before a report uses them. A journal is a
/// file anyone can edit: a duration of 1e16 ms or a byte count of 2^63 would otherwise trap in
/// the conversions and sums the reports make (microseconds as Int64, totals over every task).
///
/// Invariant: a task whose `rangeProblem` is nil has every number inside the range its field's
/// `FieldRule` gives (durations finite and within ±`FieldRule.maxDurationMs`, counts within
/// 0…`FieldRule.maxCount`, ports within 0…65535, status codes within 0…999), so that microsecond
/// conversions and sums over up to 10^7 tasks stay far inside Int64.
extension ProbeTask {
    /// Why this task's numbers cannot be reported (the first field out of range, its path and
    /// value in words), or nil when they all lie in range.
    public var rangeProblem: String? { fieldRangeProblem }
}
