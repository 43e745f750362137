import SondeSuite

/// How `sonde serve` guards its endpoints (`web-config:` in serve's config): the Prometheus
/// exporter web-config file's shape (`tls_server_config`, `basic_auth_users` with bcrypt hashes),
/// plus sonde's `bearer_token_file`. Without one, serve speaks plain HTTP and asks for nothing.
public struct WebConfig: Equatable, Sendable {
    /// PEM files of the server's certificate chain and key; nil: plain HTTP.
    public var tls: TLS?
    /// User name → bcrypt hash (`$2a$`, `$2b$` or `$2y$`).
    public var basicAuthUsers: [String: String]
    /// A bearer token any request may carry instead (read from `bearer_token_file` at load).
    public var bearerToken: String?

    public init(tls: TLS? = nil, basicAuthUsers: [String: String] = [:], bearerToken: String? = nil) {
        self.tls = tls
        self.basicAuthUsers = basicAuthUsers
        self.bearerToken = bearerToken
    }

    public struct TLS: Equatable, Sendable {
        public var certFile: String
        public var keyFile: String
        /// `TLS12` or `TLS13` (the exporter toolkit's spelling); nil: TLS 1.2.
        public var minVersion: String?

        public init(certFile: String, keyFile: String, minVersion: String? = nil) {
            self.certFile = certFile
            self.keyFile = keyFile
            self.minVersion = minVersion
        }
    }

    /// Whether a request must authenticate.
    public var requiresAuth: Bool { !basicAuthUsers.isEmpty || bearerToken != nil }

    public static let topKeys = ["tls_server_config", "basic_auth_users", "bearer_token_file", "http_server_config"]
    public static let tlsKeys = ["cert_file", "key_file", "min_version"]
    /// The toolkit's TLS keys sonde does not implement: refused, so that no guard is silently missing.
    public static let tlsKeysNotImplemented = ["client_auth_type", "client_ca_file", "cipher_suites", "curve_preferences",
                                               "max_version", "prefer_server_cipher_suites", "client_allowed_sans", "cert", "key"]
}
