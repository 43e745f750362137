extension BlackboxModule {
    /// A prober's `tls_config` (Prometheus common's TLS config) as the tcp and grpc probers use it: the
    /// files are resolved against the config's folder and checked readable at load, and read again
    /// by each probe (so that a renewed CA file is taken without a reload).
    public struct TLSConfig: Equatable, Sendable {
        /// `ca_file`: the PEM roots a server's certificate must chain to; nil: the system's roots.
        public var caFile: String?
        /// `cert_file` and `key_file`: a client certificate and its key (PEM), both or neither.
        public var certFile: String?
        public var keyFile: String?
        /// `server_name`: the name sent in SNI and verified; nil: the target's host.
        public var serverName: String?
        /// `insecure_skip_verify`.
        public var insecureSkipVerify = false
        /// `min_version`, `max_version`: `TLS10` … `TLS13`; nil: the library's default (TLS 1.0 up, as Go 1.19's client).
        public var minVersion: String?
        public var maxVersion: String?

        public init() {}

        /// The versions `min_version` and `max_version` take.
        public static let versions = ["TLS10", "TLS11", "TLS12", "TLS13"]
    }
}
