import SondeCore

/// Everything the soak engine needs: what the report records (`SoakConfig`) plus what it must
/// not record (header values before redaction, file paths of trust roots).
public struct SoakOptions: Sendable {
    public var url: WebSocketURL
    public var config: SoakConfig
    /// Request headers as sent (unredacted; the config holds the redacted copy).
    public var headers: [HeaderField]
    /// PEM file of extra trust roots for wss (`--cacert`).
    public var caFile: String?
    /// Largest message accepted from the server, bytes.
    public var maxFrameSize: Int

    public init(url: WebSocketURL, config: SoakConfig, headers: [HeaderField], caFile: String?, maxFrameSize: Int = 1 << 24) {
        self.url = url
        self.config = config
        self.headers = headers
        self.caFile = caFile
        self.maxFrameSize = maxFrameSize
    }

    /// Why these options cannot run, in words, or nil.
    public var problem: String? {
        if let problem = config.backoff.problem { return problem }
        if !(config.durationS > 0) || !config.durationS.isFinite { return "--duration must be a positive duration" }
        if config.connections < 1 { return "--connections must be at least 1" }
        if config.connections > 100_000 { return "--connections is limited to 100000" }
        if config.pingIntervalS < 0 || !config.pingIntervalS.isFinite { return "--ping-interval must not be negative" }
        if config.pingIntervalS > 0 && config.pingIntervalS < 0.01 { return "--ping-interval must be at least 10ms" }
        if !(config.pongTimeoutS > 0) { return "--pong-timeout must be a positive duration" }
        if config.messageRate < 0 || config.messageRate > 10_000 || !config.messageRate.isFinite {
            return "--message-rate must be between 0 and 10000 per second"
        }
        if config.messageSize < 16 || config.messageSize > maxFrameSize {
            return "--message-size must be between 16 bytes and \(maxFrameSize) bytes"
        }
        if config.rampS < 0 || !config.rampS.isFinite { return "--ramp must not be negative" }
        if let attempts = config.maxAttempts, attempts < 1 { return "--max-attempts must be at least 1" }
        if !(config.connectTimeoutS > 0) { return "--connect-timeout must be a positive duration" }
        return nil
    }
}
