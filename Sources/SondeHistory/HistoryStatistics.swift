/// The statistics the history's trends use.
enum HistoryStatistics {
    /// The median of `values` (the mean of the two middle values for an even count); nil for none.
    /// Non-finite values are ignored.
    static func median(_ values: [Double]) -> Double? {
        let sorted = values.filter(\.isFinite).sorted()
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
