import SondeCore
import SondeHTTP

/// Everything that shapes one `sonde stream` run: plain values, validated by the spec that made them.
public struct StreamOptions: Sendable {
    public var url: String
    /// The request's own headers (Accept, Cache-Control and Last-Event-ID are the engine's).
    public var headers: [HeaderField] = []
    /// libcurl's transport settings (HTTP version, TLS, timeouts, Accept-Encoding through `client`).
    public var transport = ProbeOptions()
    public var streams = 1
    /// Planned length (s).
    public var durationS = 60.0
    public var maxEventsPerStream: Int?
    public var reconnect = true
    /// EventSource's reconnection delay before the server sends `retry:` (browsers: about 3 s).
    public var defaultRetryMs = 3000
    public var stampField: String?
    public var maxEventBytes = StreamOptions.defaultMaxEventBytes

    public static let defaultMaxEventBytes = 1 << 20

    public init(url: String) { self.url = url }

    /// The options as the report records them (headers redacted).
    public func config(redactor: Redactor) -> StreamConfig {
        StreamConfig(streams: streams, durationS: durationS, maxEventsPerStream: maxEventsPerStream, reconnect: reconnect,
                     defaultRetryMs: defaultRetryMs, stampField: stampField, maxEventBytes: maxEventBytes,
                     httpVersion: transport.httpVersion.rawValue, compressed: !transport.clientAddedHeaders.isEmpty,
                     headers: redactor.redact(headers: headers).map { "\($0.name): \($0.value)" })
    }

    /// Whether the streams may share a connection (HTTP/2): over TLS unless HTTP/1.1 is asked for,
    /// or h2c with prior knowledge. Otherwise libcurl must not wait for a first connection to
    /// learn whether it multiplexes (CURLOPT_PIPEWAIT): a stream holds an HTTP/1.1 connection for
    /// good, and the streams after it would wait for it to end.
    var mayMultiplex: Bool {
        switch transport.httpVersion {
        case .http1_1: return false
        case .http2PriorKnowledge: return true
        default: return url.lowercased().hasPrefix("https:")
        }
    }

    /// The request's headers for a connection that sends `lastEventID` (nil: none).
    func requestHeaders(lastEventID: String?) -> [HeaderField] {
        var fields = [HeaderField(name: "Accept", value: "text/event-stream"), HeaderField(name: "Cache-Control", value: "no-cache")]
        if let lastEventID, !lastEventID.isEmpty { fields.append(HeaderField(name: "Last-Event-ID", value: lastEventID)) }
        let own = Set(headers.map { $0.name.lowercased() })
        return fields.filter { !own.contains($0.name.lowercased()) } + headers + transport.clientAddedHeaders
    }
}
