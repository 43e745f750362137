import SondeCore

/// Which HTTP version to ask libcurl for (CURLOPT_HTTP_VERSION).
public enum HTTPVersionPreference: String, Sendable, CaseIterable {
    /// libcurl's default: HTTP/2 over TLS when ALPN offers it, HTTP/1.1 in cleartext.
    case automatic
    case http1_1
    /// HTTP/2 through ALPN over TLS (HTTP/1.1 in cleartext).
    case http2
    /// HTTP/2 in cleartext without upgrade (h2c, prior knowledge).
    case http2PriorKnowledge
    /// HTTP/3 over QUIC raced against TCP (CURL_HTTP_VERSION_3): the first to connect wins, and
    /// HTTP/2 or HTTP/1.1 over TCP+TLS is used when QUIC fails. Only when the running libcurl
    /// reports the HTTP3 feature; https:// only.
    case http3
    /// HTTP/3 over QUIC only (CURL_HTTP_VERSION_3ONLY): no fallback, a QUIC failure fails the task.
    case http3Only

    /// True for the two HTTP/3 preferences.
    public var wantsHTTP3: Bool { self == .http3 || self == .http3Only }
}

public enum IPVersion: String, Sendable {
    case any, v4, v6
}

/// Everything that shapes a probe run. Plain values: the CLI builds one, the runner reads it.
public struct ProbeOptions: Sendable {
    public var method = "GET"
    public var headers: [HeaderField] = []
    /// The request body (`--data`/`--data-file`), nil for none.
    public var body: [UInt8]? = nil
    public var httpVersion = HTTPVersionPreference.automatic
    /// Whole-transfer timeout per hop in milliseconds; nil for none.
    public var timeoutMs: Int? = nil
    /// TCP (and TLS) connect timeout in milliseconds; nil for libcurl's default (300 s).
    public var connectTimeoutMs: Int? = nil
    /// Switches TLS verification off (recorded in the report).
    public var insecure = false
    public var caCertPath: String? = nil
    /// `sha256//BASE64` or a PEM/DER file path (CURLOPT_PINNEDPUBLICKEY).
    public var pinnedPublicKey: String? = nil
    /// The TLS key-exchange groups offered, in order, as OpenSSL names them (`X25519:P-256`,
    /// CURLOPT_SSL_EC_CURVES); nil offers the TLS library's defaults.
    public var tlsGroups: String? = nil
    public var ipVersion = IPVersion.any
    /// `host:port:address` entries (CURLOPT_RESOLVE).
    public var resolve: [String] = []
    /// DNS-over-HTTPS resolver URL (CURLOPT_DOH_URL).
    public var dohURL: String? = nil
    public var proxy: String? = nil
    /// When false, every task opens a fresh connection and closes it after use.
    public var reuseConnections = true
    /// Follow an origin's `Alt-Svc: h3=…` on its next new connection, as URLSession does (on by
    /// default; `--no-alt-svc` turns it off). Needs a libcurl with HTTP/3.
    public var altSvc = true
    /// `--alt-svc FILE`: the Alt-Svc cache kept across runs (libcurl's format); nil: this run's only.
    public var altSvcFile: String? = nil
    public var maxRedirects = 10
    /// Local ports to bind connections to (CURLOPT_LOCALPORT/LOCALPORTRANGE); nil for the kernel's
    /// choice. A live capture sets it, so that its filter holds this run's connections only.
    public var localPorts: ClosedRange<Int>? = nil
    /// How many times each URL is fetched.
    public var count = 1
    /// How many tasks run at once through the multi handle.
    public var parallel = 1
    /// Final status codes that count as success; nil means any status below 400.
    public var acceptedStatus: StatusSet? = nil
    public var userAgent = "sonde/\(SondeVersion.current)"
    /// The client whose requests are imitated (engine default `plain`: nothing added; a probe
    /// check's default is `urlsession`, `ProbeSpec`). With an `Accept-Encoding`, libcurl decodes
    /// the body and `decodedBodyLimit` bounds it.
    public var client = ClientProfile.plain
    public var decodedBodyLimit = DecodedBodyLimit()

    /// The headers `client` adds to every request: none when `headers` has its own Accept-Encoding.
    public var clientAddedHeaders: [HeaderField] {
        headers.contains { $0.name.lowercased() == "accept-encoding" } ? [] : client.addedHeaders
    }
    /// Which redirect targets may be followed (absolute URLs); nil: any. `sonde serve`'s `/probe`
    /// keeps every hop inside its allow list.
    public var redirectAllowed: (@Sendable (String) -> Bool)? = nil
    /// Keeps the final hop's raw headers and body (`ResponseCapture`); nil: the body is only counted.
    public var responseCapture: ResponseCapture? = nil
    /// Judges each task's final response by its body (`ResponseBodyJudge`); nil: only the status
    /// rule judges.
    public var bodyJudge: (any ResponseBodyJudge)? = nil
    /// The name of the results of a URL given none (a kind extension's, from its spec); nil: the method
    /// and the URL without its query (`RequestName.defaultName`).
    public var defaultRequestName: String? = nil

    public init() {}
}

/// A set of HTTP status codes written as `200-299,404`.
public struct StatusSet: Sendable, Equatable, CustomStringConvertible {
    public var ranges: [ClosedRange<Int>]

    public init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    /// Parses `200`, `200-299`, `200-299,404`; nil when malformed.
    public init?(parsing text: String) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 1 || bounds.count == 2,
                  let low = Int(bounds[0].trimming(" ")), let high = Int(bounds.last!.trimming(" ")),
                  (100...599).contains(low), (100...599).contains(high), low <= high else { return nil }
            ranges.append(low...high)
        }
        guard !ranges.isEmpty else { return nil }
        self.ranges = ranges
    }

    public func contains(_ status: Int) -> Bool { ranges.contains { $0.contains(status) } }

    public var description: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ",")
    }
}
