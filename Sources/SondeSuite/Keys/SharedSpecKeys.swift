// The keys several kinds share, each declared once (`SpecKey`). Their rules beyond the bound are
// said once too, in SharedKeys.swift (`TLSKeys`, `HeaderKeys`, …).

extension SpecKey {
    public static let url = SpecKey("url", .text, summary: "The URL of the check", help: "The URL of the check.")
    public static let headers = SpecKey(
        "headers", .textList, short: "H", summary: "Header lines 'Name: value'",
        help: "Add a request header, 'Name: value' (repeatable; secrets are redacted in the report).")
    public static let insecure = SpecKey(
        "insecure", .boolean, short: "k", summary: "Skip certificate verification",
        help: "Do not verify the server's TLS certificate (recorded in the report).")
    public static let cacert = SpecKey(
        "cacert", .text, isPath: true, valueName: "file", summary: "CA certificates file (PEM; relative to the suite file's folder)",
        help: "Trust the CA certificates in this PEM file instead of the system's (as curl's --cacert).")
    public static let connectTimeout = SpecKey(
        "connect-timeout", .duration, bound: .duration(0.001...SpecRules.maxTimeoutS), valueName: "duration",
        summary: "Connection setup limit",
        help: "How long a connect (TCP, TLS and, for soak, the upgrade) may take, e.g. 5s (at most 24h; default: 10s for soak, 2s for audit (at most 60s), libcurl's 300s otherwise).")
    public static let timeout = SpecKey(
        "timeout", .duration, short: "m", bound: .duration(0...SpecRules.maxTimeoutS), valueName: "duration",
        summary: "Per hop (default 30s; 0 for none; audit: each request and handshake, default 3s, 0.1s…600s)",
        help: "How long one transfer (each hop of a redirect chain) may take before it fails as timed out, e.g. 500ms, 30s, 2m "
            + "(a bare number means seconds); at most 24h, 0 for no limit (default 30s; for audit each request and handshake, "
            + "default 3s, 0.1s…600s).")
    public static let resolve = SpecKey(
        "resolve", .textList, summary: "host:port:address entries",
        help: "Use this address for host:port, as host:port:address (repeatable), as curl --resolve.")
    public static let backoffInitial = SpecKey(
        "backoff-initial", .duration, valueName: "duration", summary: "First reconnect/retry delay",
        help: "Delay before the first reconnect or retry (default: 500ms soak, 200ms resume).")
    public static let backoffMax = SpecKey(
        "backoff-max", .duration, valueName: "duration", summary: "Longest reconnect/retry delay",
        help: "Longest delay between reconnects or retries, before jitter (default: 30s soak, 10s resume).")
    public static let backoffMultiplier = SpecKey(
        "backoff-multiplier", .number, bound: .number(1...1000), summary: "Growth of the delay per failure (default 2)",
        help: "Growth of the delay per failure in a row (default 2).")
    public static let jitter = SpecKey(
        "jitter", .text, choices: ["full", "equal", "none"], summary: "Backoff jitter (default full)",
        help: "Jitter of the delay: full (0…delay, the default), equal (delay/2…delay) or none.")
    public static let link = SpecKey(
        "link", .text, valueName: "profile",
        summary: "The emulated link the check runs over: a preset (wifi, dsl, lte, 3g, edge, very-bad, high-latency-dns, 100%-loss), a preset with overrides, or key=value pairs (needs root; docs/link.md)",
        help: "Run over an emulated link at packet level: a preset (wifi, dsl, lte, 3g, edge, very-bad, high-latency-dns, 100%-loss), "
            + "a preset with overrides (lte,loss-down=2%) or key=value pairs (rate-down=8Mbit,delay-down=40ms,...). Needs root. See docs/link.md.")
    public static let thresholds = SpecKey(
        "thresholds", .textList, summary: "Pass/fail rules like wait.p95<200ms (defaults' list first, then the check's)",
        help: "A pass/fail rule on the check's metrics (repeatable), e.g. 'wait.p95<200ms'.")
}
