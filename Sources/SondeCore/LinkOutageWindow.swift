/// One window in which an emulated link carried nothing (`outage=DURATION/PERIOD`): from the
/// `startedAt` of the window to its `endedAt` (`link.outages[]` in a report), wall-clock times
/// taken from the emulator's own clock at its start, so that a soak's chart can shade when the
/// link was down rather than when its connections noticed.
///
/// Invariant: `startedAt < endedAt`; a window the link's stop cut short ends at the stop.
public struct LinkOutageWindow: Sendable, Equatable {
    public var startedAt: Timestamp
    public var endedAt: Timestamp

    public init(startedAt: Timestamp, endedAt: Timestamp) {
        self.startedAt = startedAt
        self.endedAt = endedAt
    }

    /// The most windows a report lists (a day of `5s/60s` is 1,440); `LinkUse.outageWindowsOmitted`
    /// counts the rest.
    public static let maxListed = 2000

    /// The windows of an outage of `durationMs` at the end of every `periodMs`, counted from
    /// `start`, that began before `stop` (each cut at `stop`), at most `maxListed`; and how many
    /// more began before `stop`. Periods under 1 ms or durations outside (0, period) give none.
    public static func windows(start: Timestamp, stop: Timestamp, durationMs: Double, periodMs: Double) -> (listed: [LinkOutageWindow], omitted: Int64) {
        let period = Int64((periodMs * 1000).rounded()), duration = Int64((durationMs * 1000).rounded())
        guard period >= 1000, duration > 0, duration < period, stop > start else { return ([], 0) }
        let span = stop.microsecondsSince1970 &- start.microsecondsSince1970
        // Window k (from 0) starts at (k + 1) × period − duration after the start.
        let first = period - duration
        guard span > first else { return ([], 0) }
        let total = (span - first - 1) / period + 1
        var listed: [LinkOutageWindow] = []
        for k in 0..<min(total, Int64(maxListed)) {
            let from = start.adding(microseconds: first + k * period)
            let to = Swift.min(stop, start.adding(microseconds: (k + 1) * period))
            listed.append(LinkOutageWindow(startedAt: from, endedAt: to))
        }
        return (listed, total - Int64(listed.count))
    }
}

extension LinkOutageWindow: FieldModel {
    public static let blank = LinkOutageWindow(startedAt: Timestamp(microsecondsSince1970: 0), endedAt: Timestamp(microsecondsSince1970: 0))

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("startedAt", &startedAt, .required)
        try v.visit("endedAt", &endedAt, .required)
    }
}
