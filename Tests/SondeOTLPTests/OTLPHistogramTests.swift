@testable import SondeOTLP
import Testing

/// OTLP's explicit-bucket histogram: which bucket a value lands in.
@Suite struct OTLPHistogramTests {
    @Test func histogramBucketsAreUpperInclusive() {
        var histogram = OTLPHistogram(bounds: [0.1, 1])
        for value in [0.05, 0.1, 0.5, 1, 2, .nan] { histogram.record(value) }
        #expect(histogram.bucketCounts == [2, 2, 1])
        #expect(histogram.count == 5)
        #expect(histogram.min == 0.05 && histogram.max == 2)
    }
}
