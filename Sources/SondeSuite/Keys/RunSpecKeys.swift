// Keys of a whole run rather than of one check: the command line's run options take their name
// and help from them, as check options do (`SpecKey`); serve's config has its own `otlp:` mapping.

extension SpecKey {
    public static let otlp = SpecKey(
        "otlp", .text, valueName: "url",
        summary: "The OTLP collector (http/protobuf) the run's metrics and traces are exported to, as a base URL (docs/otlp.md)",
        help: "Export the run's metrics and traces to this OTLP collector (http/protobuf, e.g. http://127.0.0.1:4318; "
            + "/v1/metrics and /v1/traces are appended). The OTEL_EXPORTER_OTLP_* variables are honoured (an endpoint "
            + "variable alone turns export on). Export never changes the run's files or exit status. See docs/otlp.md.")
    public static let traceparent = SpecKey(
        "traceparent", .boolean,
        summary: "Send W3C trace context on the probed requests, resume legs and WebSocket handshakes",
        help: "Send a W3C traceparent header on every probed request (the run's trace and root span), every request of a "
            + "resume trial and every WebSocket opening handshake (each with its own exported span as the parent), so that "
            + "a tracing backend joins the server's spans with the run's exported ones.")
}
