// The keys of a stream check (`sonde stream`, `kind: sse`) that no other kind has.

import SondeSuite

extension SpecKey {
    public static let streamDuration = SpecKey(
        "duration", .duration, bound: .duration(0.1...86_400), valueName: "duration", summary: "How long the streams run (default 60s)",
        help: "How long to hold the event streams (default 60s; at most 24h).")
    public static let streams = SpecKey(
        "streams", .integer, bound: .integer(1...256), summary: "Event streams at once to the URL (default 1)",
        help: "Open this many event streams at once, on one libcurl connection pool: over HTTP/2 they can share a connection, "
            + "over HTTP/1.1 each takes its own (default 1).")
    public static let events = SpecKey(
        "events", .integer, bound: .integer(1...100_000_000), summary: "Events per stream, then it ends",
        help: "End each stream after this many events (default: at the duration).")
    public static let reconnect = SpecKey(
        "reconnect", .boolean, summary: "Reconnect after a connection ends, as EventSource does (default true)",
        help: "Reconnect after the server ends a stream or the connection breaks, after the server's retry: delay, with Last-Event-ID.")
    public static let retry = SpecKey(
        "retry", .duration, bound: .duration(0...600), valueName: "duration", summary: "Reconnection delay until the server sends retry: (default 3s)",
        help: "The reconnection delay until the server sends retry: (default 3s, as browsers; at most 10m).")
    public static let stampField = SpecKey(
        "stamp-field", .text, valueName: "name", summary: "JSON field of an event's data holding its send time (unix seconds)",
        help: "Read each event's send time (unix seconds) from this field of its JSON data, e.g. sent, and report the delivery delay per event.")
    public static let maxEventSize = SpecKey(
        "max-event-size", .size, valueName: "size", summary: "Largest line or event taken (default 1MiB)",
        help: "Give a stream up when one line or one event's data passes this size (default 1MiB; 1KiB to 64MiB).")
}
