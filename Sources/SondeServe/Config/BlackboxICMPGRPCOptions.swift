extension BlackboxModule {
    /// The icmp prober's options (`icmp:`), with blackbox_exporter 0.23's defaults.
    public struct ICMP: Equatable, Sendable {
        /// `preferred_ip_protocol`: `ip4` or `ip6` (blackbox's default).
        public var preferredIPProtocol = "ip6"
        /// `ip_protocol_fallback`.
        public var ipProtocolFallback = true
        /// `payload_size` (bytes of the echo's data, 0 to `maxPayloadSize`); 0: blackbox's 28-byte
        /// "Prometheus Blackbox Exporter".
        public var payloadSize = 0
        /// `dont_fragment`: the IPv4 header's DF bit (a raw socket: root or CAP_NET_RAW).
        public var dontFragment = false
        /// `ttl`: the request's TTL (IPv4) or hop limit (IPv6), 0 to 255 (0: the kernel's default); blackbox's default 64.
        public var ttl = 64

        public init() {}

        /// The largest `payload_size`: what fits an IPv4 datagram (65,535 less 20 header and 8 ICMP bytes).
        public static let maxPayloadSize = 65_507
    }

    /// The grpc prober's options (`grpc:`), with blackbox_exporter 0.23's defaults.
    public struct GRPC: Equatable, Sendable {
        /// `service`: the name asked of `grpc.health.v1.Health/Check`; "": the server as a whole.
        public var service = ""
        /// `tls`: the call over TLS (ALPN h2), else HTTP/2 in clear text (h2c, prior knowledge).
        public var tls = false
        /// `tls_config` (used with `tls`).
        public var tlsConfig = TLSConfig()
        /// `preferred_ip_protocol`: `ip4` or `ip6` (blackbox's default).
        public var preferredIPProtocol = "ip6"
        /// `ip_protocol_fallback`.
        public var ipProtocolFallback = true

        public init() {}

        /// The most bytes of a `service` name.
        public static let maxServiceBytes = 1024
    }
}
