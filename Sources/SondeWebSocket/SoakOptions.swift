import SondeCore

/// Everything the soak engine needs: what the report records (`SoakConfig`) plus what it must
/// not record (header values before redaction, file paths of trust roots).
public struct SoakOptions: Sendable {
    public var url: WebSocketURL
    public var config: SoakConfig
    /// Request headers as sent (unredacted; the config holds the redacted copy).
    public var headers: [HeaderField]
    /// Subprotocols offered, as sent (unredacted; the config holds the copy the report records).
    public var subprotocols: [String]
    /// PEM file of the trust roots for wss (`--cacert`), instead of the system's.
    public var caFile: String?
    /// Largest message accepted from the server, bytes.
    public var maxFrameSize: Int
    /// The local ports every connection binds to, in turn (`--capture`); nil: the kernel's choice.
    public var localPorts: LocalPortCursor?
    /// The run's trace id (32 lowercase hex digits) when each opening handshake is to carry a W3C
    /// `traceparent` whose parent is its attempt's span (`SoakAttempt.spanId`, `--traceparent`).
    public var traceID: String?
    /// The protocol spoken inside each connection (`SoakSubprotocol`, a kind extension's), nil for a plain
    /// soak (echoed messages only). Its name is offered first and the server must choose it.
    public var subprotocol: SoakSubprotocolFactory?

    /// `subprotocols` nil: the config's.
    public init(url: WebSocketURL, config: SoakConfig, headers: [HeaderField], subprotocols: [String]? = nil, caFile: String?,
                maxFrameSize: Int = SoakOptions.defaultMaxFrameSize) {
        self.url = url
        self.config = config
        self.headers = headers
        self.subprotocols = subprotocols ?? config.subprotocols
        self.caFile = caFile
        self.maxFrameSize = maxFrameSize
    }

    /// Largest message accepted from the server unless told otherwise, bytes.
    public static let defaultMaxFrameSize = 1 << 24

    /// Why these options cannot run, in words, or nil.
    public var problem: SettingProblem? {
        // SwiftNIO's frame decoder traps on a limit over UInt32.max.
        guard maxFrameSize >= 16 && maxFrameSize <= Int(UInt32.max) else { return SettingProblem(key: "max-frame-size", "must be 16 bytes to 4 GiB") }
        return config.problem(maxMessageSize: maxFrameSize)
    }
}
