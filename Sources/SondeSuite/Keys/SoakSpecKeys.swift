// The keys of a soak check (`sonde soak`, `kind: soak`) that no other kind has.

extension SpecKey {
    public static let duration = SpecKey("duration", .duration, valueName: "duration", summary: "How long the soak runs (default 60s)",
                                         help: "How long to hold the connections (default 60s).")
    public static let connections = SpecKey("connections", .integer, bound: .integer(1...100_000), summary: "WebSocket connections held (default 1)",
                                            help: "Connections to hold at once, each reconnecting on its own (default 1).")
    public static let ramp = SpecKey("ramp", .duration, valueName: "duration", summary: "Time over which connections open",
                                     help: "Spread the connection starts evenly over this long (default 0s).")
    public static let pingInterval = SpecKey("ping-interval", .duration, valueName: "duration", summary: "Keepalive ping interval (default 25s; 0 for none)",
                                             help: "Send a ping this often on every connection (0: no pings; default 25s).")
    public static let pongTimeout = SpecKey(
        "pong-timeout", .duration, valueName: "duration", summary: "How long a pong may take (default 10s)",
        help: "A pong missing this long after its ping marks the connection dead: close and reconnect (default 10s).")
    public static let messageRate = SpecKey(
        "message-rate", .number, bound: .number(0...10_000), summary: "Echoed messages per second per connection (default 0)",
        help: "Sequence-numbered messages per second per connection, checked in their echo (0: none, the default).")
    public static let messageSize = SpecKey("message-size", .size, valueName: "size", summary: "Message size (default 64 bytes)",
                                            help: "Size of each message: bytes, or with a unit such as 4KiB (at least 16 bytes; default 64).")
    public static let subprotocols = SpecKey("subprotocols", .textList, summary: "WebSocket subprotocols offered",
                                             help: "Offer this subprotocol (Sec-WebSocket-Protocol; repeatable, in order of preference).")
    public static let maxAttempts = SpecKey("max-attempts", .integer, bound: .integer(1...1_000_000), summary: "Connection attempts at most",
                                            help: "Stop reconnecting a connection after this many failures in a row (default: never).")
    public static let stableAfter = SpecKey("stable-after", .duration, valueName: "duration", summary: "How long a connection must last to reset the backoff",
                                            help: "A connection up this long resets its backoff to the initial delay (default 10s).")
    public static let discoverIdleTimeout = SpecKey(
        "discover-idle-timeout", .boolean, summary: "Find the idle timeout instead of soaking",
        help: "Instead of a soak, find the longest silence a connection survives: silent connections of 1 s, 2 s, 3 s, 5 s, … up to --max-idle, "
            + "in parallel, each pinged once at the end of its silence.")
    public static let maxIdle = SpecKey("max-idle", .duration, valueName: "duration", summary: "Longest silence tried when discovering the idle timeout",
                                        help: "The longest silence --discover-idle-timeout tries (the discovery takes about this long; default 10m).")
}
