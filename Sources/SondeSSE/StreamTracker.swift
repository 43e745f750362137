import Foundation
import SondeCore

/// What happened on one stream that the terminal shows as a line of its own.
public enum StreamNote: Sendable, Equatable {
    /// A connection is up and its response is an event stream.
    case connected(stream: Int, attempt: Int, httpVersion: String?, connectionID: Int64?)
    /// A connection ended; `delayMs` until the next one, nil when the stream ends.
    case ended(stream: Int, attempt: Int, cause: StreamEndCause, error: String?, events: Int, delayMs: Int?, lastEventID: String?)
    /// `size` events arrived within `spanMs` after a silence of `silenceMs` (the server's cadence `cadenceMs`).
    case burst(stream: Int, size: Int, spanMs: Double, silenceMs: Double, cadenceMs: Double)
    /// Ids skipped (`from`…`to`) or received again across a reconnect or within a connection.
    case idsLost(stream: Int, from: Int64, to: Int64)
    /// A `retry:` value was not taken.
    case retryRejected(stream: Int, value: String)
}

/// One stream's events as they arrive: gaps, delivery delays against the send stamps, bursts,
/// id continuity. Holds histograms and counters only (no event is kept).
///
/// The burst rule (docs/sse.md): an event is *eligible* when the server's cadence before it is
/// 20 ms or more, and *bunched* when it arrived within a quarter of that cadence of the previous
/// event. The cadence is the gap between the two events' send stamps when both have one, else
/// the mean gap between arrivals on that connection so far (a mean, which bunching does not
/// move). The burst index is bunched / eligible; a burst is a run of 3 or more events of which
/// all but the first are bunched.
///
/// Threading: confined to the engine's thread.
struct StreamTracker {
    static let minimumCadenceMs = 20.0
    static let burstMinimum = 3
    static let maxConnectionsKept = 100
    static let maxRangesKept = 20

    private(set) var figures: StreamFigures
    private var gaps = LatencyDistribution()
    private var delays = LatencyDistribution()
    private var eligible = 0
    private var bunched = 0
    /// The connection under way.
    private var connection: StreamConnection?
    private var connectionStart: Int64 = 0
    private var firstRequestStart: Int64?
    private var lastArrival: Int64?
    private var lastStamp: Double?
    private var connectionFirstArrival: Int64?
    private var connectionEvents = 0
    /// The burst under way: its first event's arrival, its size, the silence before it, its cadence.
    private var burst: (start: Int64, size: Int, silenceMs: Double, cadenceMs: Double)?
    /// The last integer id received (nil before one), and whether the next id is the first after a reconnect.
    private var lastID: Int64?
    private var firstAfterReconnect = false
    let stampField: String?

    init(stream: Int, stampField: String?) {
        figures = StreamFigures(stream: stream)
        self.stampField = stampField
    }

    mutating func begin(attempt: Int, at micros: Int64, lastEventIDSent: String?, delayMs: Int?) {
        connection = StreamConnection(attempt: attempt, startedAt: .now(), lastEventIDSent: lastEventIDSent, delayMs: delayMs)
        connectionStart = micros
        if firstRequestStart == nil { firstRequestStart = micros }
        lastArrival = nil
        lastStamp = nil
        connectionFirstArrival = nil
        connectionEvents = 0
        lastGapMs = 0
        burst = nil
        if attempt > 1 {
            firstAfterReconnect = true
            if let sent = lastEventIDSent, let id = Int64(sent) { lastID = id }
        }
    }

    /// The response head is known: `status`, `contentType`, the protocol and connection.
    mutating func responded(status: Int, contentType: String?, httpVersion: String?, connectionID: Int64?) {
        connection?.status = status
        connection?.contentType = contentType
        connection?.httpVersion = httpVersion
        connection?.connectionID = connectionID
    }

    mutating func comment() {
        figures.comments += 1
        connection?.comments += 1
    }

    mutating func retry(_ ms: Int) { figures.retryMs = ms }

    mutating func retryRejected(_ value: String) {
        if figures.retryRejected.count < 10 { figures.retryRejected.append(value) }
    }

    /// An event arrived at `micros` (monotonic) and `wall`; notes go to `note`.
    mutating func event(_ event: ServerSentEvent, at micros: Int64, wall: Timestamp, _ note: (StreamNote) -> Void) {
        figures.events += 1
        connection?.events += 1
        connectionEvents += 1
        if figures.firstEventMs == nil, let start = firstRequestStart { figures.firstEventMs = Double(micros - start) / 1000 }
        if connection?.firstEventMs == nil { connection?.firstEventMs = Double(micros - connectionStart) / 1000 }
        if connectionFirstArrival == nil {
            connectionFirstArrival = micros
            // The silence before a burst that starts with the connection's first event: the wait for it.
            lastGapMs = Double(micros - connectionStart) / 1000
        }
        let stamp = stampField.flatMap { Self.stamp(in: event.data, field: $0) }
        if stampField != nil {
            if let stamp {
                delays.record(milliseconds: (Double(wall.microsecondsSince1970) / 1e6 - stamp) * 1000)
            } else {
                figures.unstamped += 1
            }
        }
        if let previous = lastArrival {
            let gapMs = Double(micros - previous) / 1000
            gaps.record(milliseconds: gapMs)
            let cadenceMs: Double
            if let stamp, let lastStamp {
                cadenceMs = (stamp - lastStamp) * 1000
            } else {
                cadenceMs = Double(previous - (connectionFirstArrival ?? previous)) / 1000 / Double(max(1, connectionEvents - 2))
            }
            if cadenceMs >= Self.minimumCadenceMs {
                eligible += 1
                if gapMs < cadenceMs / 4 {
                    bunched += 1
                    if burst == nil { burst = (previous, 1, lastGapMs, cadenceMs) }
                    burst?.size += 1
                } else {
                    endBurst(at: previous, note)
                }
            } else {
                endBurst(at: previous, note)
            }
            lastGapMs = gapMs
        }
        lastArrival = micros
        lastStamp = stamp
        judgeID(event, note)
    }

    /// The gap before the last event (the silence before a burst that starts after it).
    private var lastGapMs: Double = 0

    private mutating func endBurst(at lastMicros: Int64, _ note: (StreamNote) -> Void) {
        guard let current = burst else { return }
        burst = nil
        guard current.size >= Self.burstMinimum else { return }
        figures.bursts += 1
        note(.burst(stream: figures.stream, size: current.size, spanMs: Double(lastMicros - current.start) / 1000,
                    silenceMs: current.silenceMs, cadenceMs: current.cadenceMs))
    }

    private mutating func judgeID(_ event: ServerSentEvent, _ note: (StreamNote) -> Void) {
        guard event.carriedID else { return }
        guard let id = Int64(event.lastEventID) else {
            figures.ids.unjudged += 1
            return
        }
        defer {
            lastID = max(lastID ?? id, id)
            firstAfterReconnect = false
        }
        guard let last = lastID else { return }
        if id > last {
            // `id - last` may overflow for ids far apart (from a server): then the gap counts as Int64.max.
            let (difference, overflow) = id.subtractingReportingOverflow(last)
            guard overflow || difference > 1 else { return }
            let missing = Int(clamping: overflow ? Int64.max : difference - 1)
            figures.ids.lost = figures.ids.lost.addingSaturated(missing)
            if firstAfterReconnect { figures.ids.lostAcrossReconnects = figures.ids.lostAcrossReconnects.addingSaturated(missing) }
            // last < id ≤ Int64.max and id > last ≥ Int64.min: neither bound overflows.
            if figures.ids.lostRanges.count < Self.maxRangesKept { figures.ids.lostRanges.append("\(last + 1)-\(id - 1)") }
            note(.idsLost(stream: figures.stream, from: last + 1, to: id - 1))
        } else {
            figures.ids.repeated += 1
            if firstAfterReconnect { figures.ids.repeatedAcrossReconnects += 1 }
        }
    }

    /// The connection ended; returns it as recorded.
    mutating func end(cause: StreamEndCause, error: TaskError?, bytes: Int64, firstByteMicros: Int64?, at micros: Int64,
                      _ note: (StreamNote) -> Void) -> StreamConnection? {
        if let lastArrival { endBurst(at: lastArrival, note) }
        guard var ended = connection else { return nil }
        connection = nil
        ended.endCause = cause
        ended.error = error.map(StreamError.init)
        ended.bytes = bytes
        ended.firstByteMs = firstByteMicros.map { Double($0) / 1000 }
        ended.durationMs = Double(micros - connectionStart) / 1000
        if ended.attempt > 1 { figures.reconnects += 1 }
        if figures.connections.count < Self.maxConnectionsKept {
            figures.connections.append(ended)
        } else {
            figures.connections[Self.maxConnectionsKept - 1] = ended
        }
        return ended
    }

    /// The connection under way carries `count` streams at once now (the most seen is kept).
    mutating func shared(by count: Int) {
        guard var current = connection else { return }
        current.sharedBy = max(current.sharedBy ?? 0, count)
        connection = current
    }

    /// The connection under way, for the status line and sharing.
    var current: StreamConnection? { connection }

    /// The figures with the distributions summarised.
    var finished: StreamFigures {
        var result = figures
        result.gapsMs = gaps.summary
        result.deliveryDelayMs = delays.summary
        result.burstIndex = eligible > 0 ? Double(bunched) / Double(eligible) : nil
        return result
    }

    var gapDistribution: LatencyDistribution { gaps }
    var delayDistribution: LatencyDistribution { delays }
    var burstCounts: (eligible: Int, bunched: Int) { (eligible, bunched) }

    /// The send stamp (unix seconds) in `data`'s JSON object field `field`: a finite number within
    /// a day of now, else nil.
    static func stamp(in data: String, field: String) -> Double? {
        guard data.first == "{", let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any],
              let value = object[field] else { return nil }
        let seconds: Double?
        if let number = value as? NSNumber, !(value is Bool) { seconds = number.doubleValue } else { seconds = (value as? String).flatMap(Double.init) }
        guard let seconds, seconds.isFinite else { return nil }
        let now = Date().timeIntervalSince1970
        return abs(seconds - now) <= 86_400 ? seconds : nil
    }
}

extension Int {
    /// `self + other`, held at `Int.max` (counts from a server's ids cannot trap).
    func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? Int.max : sum
    }
}
