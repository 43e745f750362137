import SondeCore

/// What `sonde stream` measured of one event-stream URL (report.json's `streams` entry):
/// the settings, each stream with its connections, and the figures over all of them.
/// Times in milliseconds, instants as `Timestamp`s; every list is bounded (see each field).
public struct StreamReport: Codable, Sendable, Equatable {
    /// The URL, redacted.
    public var url: String
    public var config: StreamConfig
    public var startedAt: Timestamp
    public var finishedAt: Timestamp?
    /// The suite check it belongs to; nil for a plain command.
    public var check: String?
    public var streams: [StreamFigures]
    /// Over every stream.
    public var total: StreamTotals
    /// The `sse.*` threshold metrics' values (`StreamMetrics`), by lower-case path: what the run's
    /// and the check's thresholds read (`DeclaredMetricValues`). Set when the check ends.
    public var metrics: [String: Double]?

    public init(url: String, config: StreamConfig, startedAt: Timestamp, finishedAt: Timestamp?, check: String?,
                streams: [StreamFigures], total: StreamTotals) {
        self.url = url
        self.config = config
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.check = check
        self.streams = streams
        self.total = total
    }
}

/// How the streams were run (the report's record of the options).
public struct StreamConfig: Codable, Sendable, Equatable {
    public var streams: Int
    /// Planned length (s).
    public var durationS: Double
    /// Each stream ends after this many events; nil: at the duration.
    public var maxEventsPerStream: Int?
    /// Whether a stream reconnects after its connection ends (as EventSource does).
    public var reconnect: Bool
    /// The reconnection delay before the server sends `retry:` (ms).
    public var defaultRetryMs: Int
    /// The JSON field of an event's data holding its send time (unix seconds); nil: none read.
    public var stampField: String?
    /// The bound of a line and of an event's data (bytes).
    public var maxEventBytes: Int
    /// The HTTP version asked for (`HTTPVersionPreference`'s name).
    public var httpVersion: String
    /// Whether Accept-Encoding was sent (the body then arrives compressed and is decoded).
    public var compressed: Bool
    /// Request headers as `Name: value`, redacted.
    public var headers: [String]

    public init(streams: Int, durationS: Double, maxEventsPerStream: Int?, reconnect: Bool, defaultRetryMs: Int, stampField: String?,
                maxEventBytes: Int, httpVersion: String, compressed: Bool, headers: [String]) {
        self.streams = streams
        self.durationS = durationS
        self.maxEventsPerStream = maxEventsPerStream
        self.reconnect = reconnect
        self.defaultRetryMs = defaultRetryMs
        self.stampField = stampField
        self.maxEventBytes = maxEventBytes
        self.httpVersion = httpVersion
        self.compressed = compressed
        self.headers = headers
    }
}

/// Why a stream's connection ended.
public enum StreamEndCause: String, Codable, Sendable, Equatable {
    /// The server ended the response (EventSource reconnects).
    case serverClosed
    /// The connection failed or broke (`error` says how; EventSource reconnects).
    case networkError
    /// The response was not a 200 with `Content-Type: text/event-stream`: EventSource fails and does not reconnect.
    case badResponse
    /// A line or event passed the size bound: given up, no reconnect.
    case oversized
    /// The run's planned end (duration or event count).
    case plannedEnd
    /// Ctrl-C, SIGTERM or the run's time limit.
    case interrupted
}

/// One connection of one stream (its first, or a reconnect).
public struct StreamConnection: Codable, Sendable, Equatable {
    /// 1 for the first connection, then 2, 3, …
    public var attempt: Int
    public var startedAt: Timestamp
    /// The `Last-Event-ID` this connection's request carried; nil for none.
    public var lastEventIDSent: String?
    /// The reconnection delay waited before this connection (ms); nil for the first.
    public var delayMs: Int?
    public var status: Int?
    public var contentType: String?
    /// "h1", "h2", "h3"; nil without a response.
    public var httpVersion: String?
    /// libcurl's connection id (libcurl 8.2.0), else the local port: equal values shared a connection.
    public var connectionID: Int64?
    /// Streams whose connection under way at the same time had the same `connectionID` (this one included).
    public var sharedBy: Int?
    /// From the request's start to the first body byte.
    public var firstByteMs: Double?
    /// From the request's start to the first event dispatched.
    public var firstEventMs: Double?
    public var events: Int
    public var comments: Int
    public var bytes: Int64
    public var durationMs: Double
    public var endCause: StreamEndCause?
    /// What went wrong (taxonomy code and message), for `networkError`, `badResponse`, `oversized`.
    public var error: StreamError?

    public init(attempt: Int, startedAt: Timestamp, lastEventIDSent: String?, delayMs: Int?) {
        self.attempt = attempt
        self.startedAt = startedAt
        self.lastEventIDSent = lastEventIDSent
        self.delayMs = delayMs
        events = 0
        comments = 0
        bytes = 0
        durationMs = 0
    }
}

/// Event ids lost or received again, read as integers (ids that are not integers are not judged).
public struct StreamIDContinuity: Codable, Sendable, Equatable {
    /// Ids skipped: between one received id and the next (or the `Last-Event-ID` sent on a reconnect and the first id after it).
    public var lost: Int = 0
    /// Ids received at or below one received before.
    public var repeated: Int = 0
    /// Of those, across a reconnect (the first ids of a connection against the `Last-Event-ID` it sent).
    public var lostAcrossReconnects: Int = 0
    public var repeatedAcrossReconnects: Int = 0
    /// The first 20 gaps, as `from-to` (inclusive) of the ids missing.
    public var lostRanges: [String] = []
    /// Events whose id was not an integer.
    public var unjudged: Int = 0

    public init() {}
}

/// One stream's figures over all its connections.
public struct StreamFigures: Codable, Sendable, Equatable {
    /// 1-based.
    public var stream: Int
    /// Its connections in order: the first 99 and the last (the ones between counted in `reconnects`).
    public var connections: [StreamConnection]
    public var reconnects: Int
    public var events: Int
    public var comments: Int
    /// From the first request's start to the first event.
    public var firstEventMs: Double?
    /// Between consecutive events of one connection.
    public var gapsMs: DistributionSummary?
    /// Arrival less the event's send stamp (`stampField`); clock skew between the hosts adds to it.
    public var deliveryDelayMs: DistributionSummary?
    /// Events whose stamp was missing or not a number.
    public var unstamped: Int
    /// Share (0…1) of the eligible events that came bunched (docs/sse.md): within a quarter of the server's
    /// cadence of the previous one, where that cadence is 20 ms or more. nil: no eligible event.
    public var burstIndex: Double?
    /// Runs of 3 or more bunched events.
    public var bursts: Int
    public var ids: StreamIDContinuity
    /// `retry:` values taken (the last is in force) and rejected.
    public var retryMs: Int?
    public var retryRejected: [String]

    public init(stream: Int) {
        self.stream = stream
        connections = []
        reconnects = 0
        events = 0
        comments = 0
        unstamped = 0
        bursts = 0
        ids = StreamIDContinuity()
        retryRejected = []
    }
}

/// The figures over every stream.
public struct StreamTotals: Codable, Sendable, Equatable {
    public var events: Int
    public var comments: Int
    public var reconnects: Int
    public var firstEventMs: DistributionSummary?
    public var gapsMs: DistributionSummary?
    public var deliveryDelayMs: DistributionSummary?
    public var burstIndex: Double?
    public var bursts: Int
    public var lostIDs: Int
    public var repeatedIDs: Int
    /// Distinct connections the streams' first connections used, and the most streams one of them carried.
    public var connections: Int
    public var maxStreamsPerConnection: Int
    /// Whether every stream ended as planned (no `badResponse`, `oversized`, no failed first connection).
    public var passed: Bool
    /// Why not, when not.
    public var failure: String?

    public init(events: Int, comments: Int, reconnects: Int, firstEventMs: DistributionSummary?, gapsMs: DistributionSummary?,
                deliveryDelayMs: DistributionSummary?, burstIndex: Double?, bursts: Int, lostIDs: Int, repeatedIDs: Int,
                connections: Int, maxStreamsPerConnection: Int, passed: Bool, failure: String?) {
        self.events = events
        self.comments = comments
        self.reconnects = reconnects
        self.firstEventMs = firstEventMs
        self.gapsMs = gapsMs
        self.deliveryDelayMs = deliveryDelayMs
        self.burstIndex = burstIndex
        self.bursts = bursts
        self.lostIDs = lostIDs
        self.repeatedIDs = repeatedIDs
        self.connections = connections
        self.maxStreamsPerConnection = maxStreamsPerConnection
        self.passed = passed
        self.failure = failure
    }
}

/// A failure of a stream's connection: the taxonomy's code (`ErrorCode`) and its message.
public struct StreamError: Codable, Sendable, Equatable {
    public var code: String
    public var message: String

    public init(_ error: TaskError) {
        code = error.code.rawValue
        message = error.message
    }
}
