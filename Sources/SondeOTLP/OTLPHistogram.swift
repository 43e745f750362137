import SondeCore

/// One histogram data point being filled (`opentelemetry.proto.metrics.v1.HistogramDataPoint`):
/// explicit bounds, a count per bucket, the count, sum, min and max of the values recorded.
///
/// Invariant: `bucketCounts.count == bounds.count + 1` and their sum is `count`; a value equal
/// to a bound falls into the bucket that bound closes (OpenTelemetry's buckets are `(lower, upper]`).
struct OTLPHistogram {
    let bounds: [Double]
    private(set) var bucketCounts: [UInt64]
    private(set) var count: UInt64 = 0
    private(set) var sum = 0.0
    private(set) var min = Double.infinity
    private(set) var max = -Double.infinity

    /// The bounds OpenTelemetry's HTTP conventions advise for `http.client.request.duration`, in seconds.
    static let httpDurationBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
    /// The bounds of `sonde.http.phase.duration` (seconds): the advised ones with finer buckets
    /// below 5 ms (from 50 µs), where a loopback or LAN phase's dns, connect, tls and send fall.
    static let phaseDurationBounds: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025] + httpDurationBounds

    init(bounds: [Double]) {
        self.bounds = bounds
        bucketCounts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Adds one value (a finite number; others are ignored, so that counts stay sums of buckets).
    mutating func record(_ value: Double) {
        guard value.isFinite else { return }
        let index = bounds.firstIndex { value <= $0 } ?? bounds.count
        bucketCounts[index] += 1
        count += 1
        sum += value
        min = Swift.min(min, value)
        max = Swift.max(max, value)
    }

    /// Writes the data point (attributes = 9, start = 2, time = 3, count = 4, sum = 5,
    /// bucket_counts = 6, explicit_bounds = 7, min = 11, max = 12).
    func write(into writer: inout ProtobufWriter, attributes: [OTLPAttribute], startNanos: UInt64, timeNanos: UInt64) {
        writer.attributes(9, attributes)
        writer.fixed64(2, startNanos)
        writer.fixed64(3, timeNanos)
        writer.fixed64(4, count)
        writer.double(5, sum)
        writer.packedFixed64(6, bucketCounts)
        writer.packedDouble(7, bounds)
        if count > 0 {
            writer.double(11, min)
            writer.double(12, max)
        }
    }
}
