import Histogram

/// A latency distribution: its first values kept as they are, then an HdrHistogram (microsecond values,
/// 3 significant digits), so memory stays constant however many samples are recorded.
///
/// Up to `exactLimit` values no histogram exists (its buckets are about 180 KB, zeroed, per distribution:
/// a one-URL probe made a dozen of them, 2.5 MB, and serve one set per run); the summary of those values
/// is HdrHistogram's to the bit (each percentile is the highest value equivalent to the k-th smallest value,
/// as `Histogram.valueAtPercentile` walks its buckets, measured against a histogram of the same precision).
public struct LatencyDistribution: Sendable {
    /// Set once more than `exactLimit` values were recorded; nil before.
    private var histogram: Histogram<UInt64>?
    /// The values (µs) while there is no histogram, in the order recorded.
    private var values: [UInt64] = []
    private let precision: Precision

    /// How finely values are told apart: `fine` to 0.1 % (3 significant digits, about 180 KB of
    /// buckets), `coarse` to 1 % (2 digits, about 26 KB), for tables kept per URL.
    public enum Precision: Sendable { case fine, coarse }

    /// Values kept before the histogram is made (8 bytes each).
    private let exactLimit: Int

    public init(precision: Precision = .fine) {
        self.init(precision: precision, exactLimit: 256)
    }

    /// `exactLimit` 0 makes the histogram at the first value (as before values were kept: the tests compare both).
    init(precision: Precision, exactLimit: Int) {
        self.precision = precision
        self.exactLimit = exactLimit
    }

    /// Whether the histogram was made (more than `exactLimit` values).
    var hasHistogram: Bool { histogram != nil }

    private static func makeHistogram(_ precision: Precision) -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000,
                          numberOfSignificantValueDigits: precision == .fine ? .three : .two)
    }

    /// One empty histogram per precision, made once and only read: the bucket arithmetic
    /// (`highestEquivalentForValue`) of the values kept without a histogram.
    private static let fineRuler = makeHistogram(.fine)
    private static let coarseRuler = makeHistogram(.coarse)

    public var count: UInt64 { histogram?.totalCount ?? UInt64(values.count) }

    /// Exact extremes (µs): the histogram's own min/max are bucket bounds, up to 0.1% off.
    private var exactMin = UInt64.max
    private var exactMax: UInt64 = 0
    /// Exact sum of the recorded values (µs), for the mean: the histogram's own mean walks every
    /// bucket (about 23,000 of them), which cost milliseconds per summary.
    private var exactSum: UInt64 = 0

    /// Records one value in milliseconds; negative values are clamped to 0, values beyond an hour to an hour.
    public mutating func record(milliseconds value: Double) {
        let micros = UInt64(max(0, min(value * 1000, 3_600_000_000)).rounded())
        record(micros: micros)
        exactMin = Swift.min(exactMin, micros)
        exactMax = Swift.max(exactMax, micros)
        exactSum &+= micros
    }

    private mutating func record(micros: UInt64) {
        if histogram != nil {
            _ = histogram!.record(micros)
        } else if values.count < exactLimit {
            values.append(micros)
        } else {
            makeHistogramOfValues()
            _ = histogram!.record(micros)
        }
    }

    /// Moves the kept values into a new histogram.
    private mutating func makeHistogramOfValues() {
        var made = Self.makeHistogram(precision)
        for value in values { _ = made.record(value) }
        histogram = made
        values = []
    }

    /// Adds every value `other` recorded (of the same precision) to this distribution.
    public mutating func add(_ other: LatencyDistribution) {
        if let theirs = other.histogram {
            if histogram == nil { makeHistogramOfValues() }
            histogram!.add(theirs)
        } else {
            for value in other.values { record(micros: value) }
        }
        exactMin = Swift.min(exactMin, other.exactMin)
        exactMax = Swift.max(exactMax, other.exactMax)
        exactSum &+= other.exactSum
    }

    /// Min, median, p90, p95, p99 and max in milliseconds (percentiles within the histogram's
    /// 0.1 %, or 1 % when coarse; min, max and mean exact); nil when empty.
    public var summary: DistributionSummary? {
        let total = count
        guard total > 0 else { return nil }
        func ms(_ micros: UInt64) -> Double { Double(micros) / 1000 }
        let percentile: (Double) -> UInt64
        if let histogram {
            percentile = { histogram.valueAtPercentile($0) }
        } else {
            let sorted = values.sorted()
            let ruler = precision == .fine ? Self.fineRuler : Self.coarseRuler
            // `Histogram.min`: 0 when a 0 was recorded, else the smallest value above 0.
            let floor = sorted.first == 0 ? 0 : (sorted.first { $0 != 0 } ?? 0)
            percentile = { (requested: Double) -> UInt64 in
                // `Histogram.valueAtPercentile` for 0 < requested < 100, over the sorted values.
                let fraction = Swift.min(Swift.max(requested.nextDown, 0.0), 100.0)
                let rank = Swift.max(1, UInt64(((fraction * Double(total)) / 100.0).rounded(.up)))
                let value = sorted[Int(Swift.min(rank, total)) - 1]
                return Swift.max(Swift.min(ruler.highestEquivalentForValue(value), sorted[sorted.count - 1]), floor)
            }
        }
        return DistributionSummary(
            count: Int(total),
            min: ms(exactMin), p50: ms(percentile(50)),
            p90: ms(percentile(90)), p95: ms(percentile(95)),
            p99: ms(percentile(99)), max: ms(exactMax),
            mean: Double(exactSum) / Double(total) / 1000)
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
