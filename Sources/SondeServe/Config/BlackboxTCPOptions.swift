extension BlackboxModule {
    /// The tcp prober's options (`tcp:`), with blackbox_exporter 0.23's defaults.
    public struct TCP: Equatable, Sendable {
        /// `preferred_ip_protocol`: `ip4` or `ip6` (blackbox's default).
        public var preferredIPProtocol = "ip6"
        /// `ip_protocol_fallback`.
        public var ipProtocolFallback = true
        /// `query_response`, in order.
        public var queryResponse: [QueryResponse] = []
        /// `tls`: TLS from the first byte.
        public var tls = false
        /// `tls_config`: for `tls` and for a `starttls` step.
        public var tlsConfig = TLSConfig()

        public init() {}
    }

    /// One step of `query_response`: wait for a line matching `expect` (when set), send `send`
    /// (when not empty; `$1`, `${name}` expanded from the match as Go's `Regexp.Expand` does) with
    /// a newline, then upgrade to TLS (`starttls`).
    public struct QueryResponse: Equatable, Sendable {
        /// A Go (RE2) regular expression, compiled at load.
        public var expect: GoRegexp?
        public var send = ""
        public var startTLS = false

        public init(expect: GoRegexp? = nil, send: String = "", startTLS: Bool = false) {
            self.expect = expect
            self.send = send
            self.startTLS = startTLS
        }
    }
}

extension BlackboxModule {
    /// The most `query_response` steps a module may have.
    public static let maxQueryResponseSteps = 100
}
