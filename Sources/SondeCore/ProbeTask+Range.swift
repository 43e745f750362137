/// The ranges a journalled task's numbers must lie in before a report uses them. A journal is a
/// file anyone can edit: a duration of 1e16 ms or a byte count of 2^63 would otherwise trap in
/// the conversions and sums the reports make (microseconds as Int64, totals over every task).
///
/// Invariant: a task whose `rangeProblem` is nil has every duration finite and within
/// ±`maxDurationMs`, every count within 0…`maxCount`, ports within 0…65535 and status codes
/// within 0…999, so that microsecond conversions and sums over up to 10^7 tasks stay far inside
/// Int64.
extension ProbeTask {
    /// The largest duration accepted (ms): 10^11 ms, a little over three years.
    public static let maxDurationMs = 1e11
    /// The largest count accepted (bytes, packets, iterations): 10^12.
    public static let maxCount: Int64 = 1_000_000_000_000

    /// Why this task's numbers cannot be reported (the first field out of range, in words), or
    /// nil when they all lie in range.
    public var rangeProblem: String? {
        if let problem = Self.duration(taskInterval.durationMs, "taskInterval.durationMs") { return problem }
        if let problem = Self.count(Int64(iteration), "iteration") ?? Self.count(Int64(redirectCount), "redirectCount") {
            return problem
        }
        for metrics in transactionMetrics {
            let phases = metrics.phases
            if let queue = metrics.queue, let problem = Self.duration(queue, "queue") { return problem }
            if let queue = metrics.libcurlQueue, let problem = Self.duration(queue, "libcurlQueue") { return problem }
            for (value, name) in [(phases.dns, "dns"), (phases.connect, "connect"), (phases.tls, "tls"), (phases.send, "send"),
                                  (phases.wait, "wait"), (phases.receive, "receive"), (phases.total, "total")] {
                if let value, let problem = Self.duration(value, "phases.\(name)") { return problem }
            }
            for (value, name) in [(metrics.countOfRequestHeaderBytesSent, "countOfRequestHeaderBytesSent"),
                                  (metrics.countOfRequestBodyBytesSent, "countOfRequestBodyBytesSent"),
                                  (metrics.countOfResponseHeaderBytesReceived, "countOfResponseHeaderBytesReceived"),
                                  (metrics.countOfResponseBodyBytesReceived, "countOfResponseBodyBytesReceived")] {
                if let problem = Self.count(value, name) { return problem }
            }
            for (port, name) in [(metrics.remotePort, "remotePort"), (metrics.localPort, "localPort")] {
                if let port, !(0...65_535).contains(port) { return "\(name) \(port) is not between 0 and 65535" }
            }
            if let status = metrics.response?.statusCode, !(0...999).contains(status) {
                return "statusCode \(status) is not between 0 and 999"
            }
            if let capture = metrics.capture {
                for (value, name) in [(capture.synToSynAckMs, "synToSynAckMs"), (capture.initialRttMs, "initialRttMs"),
                                      (capture.tlsHandshakeMs, "tlsHandshakeMs")] {
                    if let value, let problem = Self.duration(value, "capture.\(name)") { return problem }
                }
                if let problem = Self.count(Int64(capture.retransmissions), "capture.retransmissions")
                    ?? Self.count(Int64(capture.resets), "capture.resets") { return problem }
                for mark in capture.packets {
                    if abs(mark.offsetUs) > Int64(Self.maxDurationMs) * 1000 { return "a packet offset of \(mark.offsetUs) µs is out of range" }
                    if let problem = Self.count(Int64(mark.payload), "a packet's payload") { return problem }
                }
            }
        }
        return nil
    }

    private static func duration(_ value: Double, _ name: String) -> String? {
        guard !(value.isFinite && abs(value) <= maxDurationMs) else { return nil }
        return "\(name) \(value) ms is outside ±10^11 ms (about three years)"
    }

    private static func count(_ value: Int64, _ name: String) -> String? {
        guard !(0...maxCount).contains(value) else { return nil }
        return "\(name) \(value) is not between 0 and 10^12"
    }
}
