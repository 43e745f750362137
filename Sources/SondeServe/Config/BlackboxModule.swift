/// A module of blackbox_exporter's configuration (`blackbox.yml`), as `sonde serve`'s `/probe`
/// runs it: the options of blackbox's five probers (http here; `TCP`, `DNS`, `ICMP`, `GRPC`),
/// with blackbox's defaults. A module using an option sonde does not implement loads (so that a
/// whole blackbox.yml loads) and is refused by `/probe` with `unsupported`: a gate that would
/// silently not be checked is never run.
public struct BlackboxModule: Equatable, Sendable {
    public var prober: String
    /// The probe's time limit (s); nil: the scrape's (`X-Prometheus-Scrape-Timeout-Seconds`) less the offset.
    public var timeout: Double?
    public var http: HTTP
    /// The tcp prober's options (blackbox's defaults when the module has no `tcp:` section).
    public var tcp = TCP()
    /// The dns prober's options; `dns.queryName` is required when the prober is dns.
    public var dns = DNS()
    /// The icmp prober's options.
    public var icmp = ICMP()
    /// The grpc prober's options.
    public var grpc = GRPC()
    /// Why `/probe` cannot run this module; nil when it can.
    public var unsupported: String?

    public init(prober: String = "http", timeout: Double? = nil, http: HTTP = HTTP(), unsupported: String? = nil) {
        self.prober = prober
        self.timeout = timeout
        self.http = http
        self.unsupported = unsupported
    }

    /// The http prober's options (blackbox's names in the comments; its defaults).
    public struct HTTP: Equatable, Sendable {
        /// `method`.
        public var method = "GET"
        /// `headers`, in the file's order.
        public var headers: [(name: String, value: String)] = []
        /// `body`.
        public var body: String?
        /// `valid_status_codes`; empty: 2xx.
        public var validStatusCodes: [Int] = []
        /// `valid_http_versions` (`HTTP/1.1`, `HTTP/2.0`); empty: any.
        public var validHTTPVersions: [String] = []
        /// `preferred_ip_protocol`: `ip4` or `ip6` (blackbox's default).
        public var preferredIPProtocol = "ip6"
        /// `ip_protocol_fallback`.
        public var ipProtocolFallback = true
        /// `follow_redirects` (`no_follow_redirects: true` is the older spelling of false).
        public var followRedirects = true
        /// `enable_http2`: false keeps a TLS connection to HTTP/1.1.
        public var enableHTTP2 = true
        /// `fail_if_ssl`, `fail_if_not_ssl`.
        public var failIfSSL = false
        public var failIfNotSSL = false
        /// `tls_config.ca_file` (resolved against the config's folder), `tls_config.insecure_skip_verify`.
        public var caFile: String?
        public var insecureSkipVerify = false
        /// `basic_auth.username` and `.password` (or `.password_file`, read at load).
        public var basicAuth: (username: String, password: String)?
        /// `bearer_token` (or `bearer_token_file`, read at load).
        public var bearerToken: String?
        /// `proxy_url`.
        public var proxyURL: String?
        /// `fail_if_body_matches_regexp`, `fail_if_body_not_matches_regexp`: the final response's
        /// body (at most `maxMatchedBodyBytes`) against each, as blackbox matches it.
        public var failIfBodyMatches: [GoRegexp] = []
        public var failIfBodyNotMatches: [GoRegexp] = []
        /// `fail_if_header_matches`, `fail_if_header_not_matches`.
        public var failIfHeaderMatches: [HeaderMatch] = []
        public var failIfHeaderNotMatches: [HeaderMatch] = []

        public init() {}

        /// What `valid_http_versions` takes.
        public static let versions = ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/2.0", "HTTP/3", "HTTP/3.0"]

        /// Whether the probe matches the response's headers or body against a regular expression.
        public var matchesRegexps: Bool {
            !failIfBodyMatches.isEmpty || !failIfBodyNotMatches.isEmpty || !failIfHeaderMatches.isEmpty || !failIfHeaderNotMatches.isEmpty
        }

        public static func == (a: HTTP, b: HTTP) -> Bool {
            a.method == b.method && a.headers.elementsEqual(b.headers, by: { $0.name == $1.name && $0.value == $1.value })
                && a.body == b.body && a.validStatusCodes == b.validStatusCodes && a.validHTTPVersions == b.validHTTPVersions
                && a.preferredIPProtocol == b.preferredIPProtocol && a.ipProtocolFallback == b.ipProtocolFallback
                && a.followRedirects == b.followRedirects && a.enableHTTP2 == b.enableHTTP2 && a.failIfSSL == b.failIfSSL
                && a.failIfNotSSL == b.failIfNotSSL && a.caFile == b.caFile && a.insecureSkipVerify == b.insecureSkipVerify
                && a.basicAuth?.username == b.basicAuth?.username && a.basicAuth?.password == b.basicAuth?.password
                && a.bearerToken == b.bearerToken && a.proxyURL == b.proxyURL && a.failIfBodyMatches == b.failIfBodyMatches
                && a.failIfBodyNotMatches == b.failIfBodyNotMatches && a.failIfHeaderMatches == b.failIfHeaderMatches
                && a.failIfHeaderNotMatches == b.failIfHeaderNotMatches
        }
    }

    /// blackbox_exporter's probers. A module's keys are `BlackboxModuleKeys`' declarations.
    public static let probers = ["http", "tcp", "icmp", "dns", "grpc"]
    /// The probers sonde's `/probe` runs.
    public static let implementedProbers = ["http", "tcp", "dns", "icmp", "grpc"]
    /// The largest response body the http prober matches regular expressions against (bytes):
    /// blackbox reads any body whole; sonde fails the probe past this (and says so in its log),
    /// so that a probe's memory and matching time stay bounded.
    public static let maxMatchedBodyBytes = 4 << 20
    /// The most regular expressions in one list of a module.
    public static let maxRegexps = 100
    /// The longest module timeout (s).
    public static let maxTimeout = 600.0
}
