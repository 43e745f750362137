import SondeHTTP

// The keys of a probe check (`sonde probe`, `kind: probe`) that no other kind has.

extension SpecKey {
    public static let urls = SpecKey(
        "urls", .textList, schemaShape: .requests,
        summary: "URLs to fetch (http:// or https://), at least one; an entry {name: NAME, url: URL} names its results (default: method and URL without the query)",
        help: "The URLs to fetch (http:// or https://); --name NAME before a URL names its results (default: method and URL without the query).")
    public static let count = SpecKey(
        "count", .integer, short: "c", bound: .integer(1...10_000_000), summary: "Fetches per URL (default 1)",
        help: "Fetch each URL this many times on the same connection pool (the first is cold, the rest can be warm; default 1).")
    public static let parallel = SpecKey(
        "parallel", .integer, bound: .integer(1...1024), summary: "Tasks at once (default 1)",
        help: "Run this many tasks at once through one curl multi handle (HTTP/2 multiplexes when it can; default 1).")
    public static let http11 = SpecKey("http1.1", .boolean, summary: "Use HTTP/1.1 (one version flag at most)", help: "Use HTTP/1.1.")
    public static let http2 = SpecKey("http2", .boolean, summary: "Use HTTP/2 (one version flag at most)",
                                      help: "Use HTTP/2 over TLS through ALPN (HTTP/1.1 for http://).")
    public static let http2PriorKnowledge = SpecKey("http2-prior-knowledge", .boolean, summary: "HTTP/2 without upgrade (one version flag at most)",
                                                    help: "Use HTTP/2 in cleartext without upgrade (h2c).")
    public static let http3 = SpecKey(
        "http3", .boolean, summary: "Try HTTP/3 (one version flag at most)",
        help: "Use HTTP/3, racing QUIC against TCP and falling back to HTTP/2 or 1.1 (needs a libcurl built with QUIC; see sonde version).")
    public static let http3Only = SpecKey("http3-only", .boolean, summary: "HTTP/3 only (one version flag at most)",
                                          help: "Use HTTP/3 over QUIC only, without fallback (needs a libcurl built with QUIC).")
    public static let request = SpecKey("request", .text, short: "X", summary: "Request method (default GET, or POST with a body)",
                                        help: "The request method.")
    public static let data = SpecKey("data", .text, short: "d", summary: "Request body", help: "Send this request body (POST unless -X says otherwise).")
    public static let dataFile = SpecKey("data-file", .text, isPath: true, summary: "File holding the request body (relative to the suite file's folder)",
                                         help: "Send the contents of this file as the request body.")
    public static let pinnedPubkey = SpecKey(
        "pinned-pubkey", .text, isPath: true, summary: "Public key file, or sha256//BASE64 hashes",
        help: "Require this public key: a PEM/DER file or sha256//BASE64 hashes separated by ';'.")
    public static let ipv4 = SpecKey("ipv4", .boolean, short: "4", summary: "IPv4 only (not with ipv6)", help: "Resolve names to IPv4 addresses only.")
    public static let ipv6 = SpecKey("ipv6", .boolean, short: "6", summary: "IPv6 only (not with ipv4)", help: "Resolve names to IPv6 addresses only.")
    public static let dohURL = SpecKey("doh-url", .text, summary: "DNS-over-HTTPS resolver URL",
                                       help: "Resolve names with DNS-over-HTTPS through this resolver URL.")
    public static let proxy = SpecKey("proxy", .text, short: "x", summary: "Proxy URL", help: "Use this proxy (environment proxy variables are ignored).")
    public static let noReuse = SpecKey("no-reuse", .boolean, summary: "A new connection for every request",
                                        help: "Open a fresh connection for every task and close it afterwards.")
    public static let altSvc = SpecKey(
        "alt-svc", .text, isPath: true, valueName: "file", summary: "Alt-Svc cache file kept across runs (libcurl's format)",
        help: "Keep the Alt-Svc cache in this file across runs (libcurl's format; read at the start, written at the end). "
            + "Without it the cache lasts for the run.")
    public static let noAltSvc = SpecKey(
        "no-alt-svc", .boolean, summary: "Never follow an origin's Alt-Svc advertisement to HTTP/3",
        help: "Never follow an origin's Alt-Svc advertisement to HTTP/3 (by default a new connection goes to h3 once the origin advertised it, as URLSession does).")
    public static let maxRedirects = SpecKey("max-redirects", .integer, bound: .integer(0...1000), summary: "Redirects followed at most (default 10)",
                                             help: "Follow at most this many redirects per task (default 10).")
    public static let expectStatus = SpecKey(
        "expect-status", .text, schemaShape: .textOrInteger, summary: "Status codes or ranges that count as success, like 200-299,404",
        help: "Final status codes that count as success, e.g. 200-299,404 (default: any below 400).")

    public static let client = SpecKey(
        "client", .text, choices: ClientProfile.allCases.map(\.rawValue), summary: "The client whose requests are imitated (default urlsession)",
        help: "Send requests as this client does: urlsession (Accept-Encoding: gzip, deflate, br, bodies decoded; the default), "
            + "okhttp (gzip) or plain (nothing added, as curl without --compressed).")

    /// The HTTP version flags of a probe and the preference each stands for.
    static let httpVersionFlags: [(key: SpecKey, value: HTTPVersionPreference)] = [
        (.http11, .http1_1), (.http2, .http2), (.http2PriorKnowledge, .http2PriorKnowledge), (.http3, .http3), (.http3Only, .http3Only),
    ]
}
