import Histogram

/// A latency distribution kept in an HdrHistogram (microsecond values, 3 significant digits),
/// so memory stays constant however many samples are recorded.
public struct LatencyDistribution: Sendable {
    private var histogram: Histogram<UInt64>

    /// How finely values are told apart: `fine` to 0.1 % (3 significant digits, about 180 KB of
    /// buckets), `coarse` to 1 % (2 digits, about 26 KB), for tables kept per URL.
    public enum Precision: Sendable { case fine, coarse }

    public init(precision: Precision = .fine) {
        histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000,
                                      numberOfSignificantValueDigits: precision == .fine ? .three : .two)
    }

    public var count: UInt64 { histogram.totalCount }

    /// Exact extremes (µs): the histogram's own min/max are bucket bounds, up to 0.1% off.
    private var exactMin = UInt64.max
    private var exactMax: UInt64 = 0
    /// Exact sum of the recorded values (µs), for the mean: the histogram's own mean walks every
    /// bucket (about 23,000 of them), which cost milliseconds per summary.
    private var exactSum: UInt64 = 0

    /// Records one value in milliseconds; negative values are clamped to 0, values beyond an hour to an hour.
    public mutating func record(milliseconds value: Double) {
        let micros = UInt64(max(0, min(value * 1000, 3_600_000_000)).rounded())
        _ = histogram.record(micros)
        exactMin = Swift.min(exactMin, micros)
        exactMax = Swift.max(exactMax, micros)
        exactSum &+= micros
    }

    /// Adds every value `other` recorded (of the same precision) to this distribution.
    public mutating func add(_ other: LatencyDistribution) {
        histogram.add(other.histogram)
        exactMin = Swift.min(exactMin, other.exactMin)
        exactMax = Swift.max(exactMax, other.exactMax)
        exactSum &+= other.exactSum
    }

    /// Min, median, p90, p95, p99 and max in milliseconds (percentiles within the histogram's
    /// 0.1 %, or 1 % when coarse; min, max and mean exact); nil when empty.
    public var summary: DistributionSummary? {
        guard histogram.totalCount > 0 else { return nil }
        func ms(_ micros: UInt64) -> Double { Double(micros) / 1000 }
        return DistributionSummary(
            count: Int(histogram.totalCount),
            min: ms(exactMin), p50: ms(histogram.valueAtPercentile(50)),
            p90: ms(histogram.valueAtPercentile(90)), p95: ms(histogram.valueAtPercentile(95)),
            p99: ms(histogram.valueAtPercentile(99)), max: ms(exactMax),
            mean: Double(exactSum) / Double(histogram.totalCount) / 1000)
    }
}

/// A summary of a distribution, in milliseconds. Percentiles are HdrHistogram's (within 0.1 %).
/// Codable (keys in declaration order) for the sections of kinds whose model is Codable (SSE streams); the
/// core report writes it through its `FieldModel` conformance.
public struct DistributionSummary: Codable, Sendable, Equatable {
    public var count: Int
    public var min: Double
    public var p50: Double
    public var p90: Double
    public var p95: Double
    public var p99: Double
    public var max: Double
    public var mean: Double

    public init(count: Int, min: Double, p50: Double, p90: Double, p95: Double, p99: Double, max: Double, mean: Double) {
        self.count = count
        self.min = min
        self.p50 = p50
        self.p90 = p90
        self.p95 = p95
        self.p99 = p99
        self.max = max
        self.mean = mean
    }
}
