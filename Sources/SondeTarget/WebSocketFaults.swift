import Foundation

/// The fault modes of one `/ws/echo` connection, chosen by the client in the query string, so a
/// test or a user picks the failure it wants to watch a client recover from.
///
/// | parameter | effect |
/// |---|---|
/// | `closeAfter=S&code=C&reason=R` | the server sends a close frame (code C, default 1001) after S seconds |
/// | `dropAfter=S` | the TCP connection is closed after S seconds without a close frame (FIN) |
/// | `resetAfter=S` | the TCP connection is reset after S seconds (RST, no close frame) |
/// | `noPong=1` | pings are never answered |
/// | `pongDelay=MS` | each pong is sent MS milliseconds after its ping |
/// | `refuse=K&status=N&key=ID` | the first K upgrade attempts carrying `key=ID` are answered with status N (default 503) |
/// | `idleTimeout=S` | a connection that receives nothing for S seconds is closed (FIN, no close frame), like a load balancer |
/// | `restartEvery=S` | the whole WebSocket listener restarts S seconds after such a connection opens (and again while such clients reconnect): every connection drops, the port refuses briefly |
/// | `pingEvery=S` | the server pings the client every S seconds |
///
/// Seconds may be fractional. Unknown parameters are ignored; values that do not parse are ignored.
public struct WebSocketFaults: Sendable, Equatable {
    public var closeAfter: Double?
    public var closeCode: UInt16 = 1001
    public var closeReason = "target closing"
    public var dropAfter: Double?
    public var resetAfter: Double?
    public var noPong = false
    public var pongDelayMs: Int64 = 0
    public var refuseCount = 0
    public var refuseStatus = 503
    public var refuseKey = ""
    public var idleTimeout: Double?
    public var restartEvery: Double?
    public var pingEvery: Double?

    public init() {}

    /// Parses the query part of a request target (`/ws/echo?…`).
    public init(requestTarget: String) {
        guard let query = requestTarget.split(separator: "?", maxSplits: 1).dropFirst().first else { return }
        for pair in query.split(separator: "&") {
            // Empty pieces kept: a bare "=" is a pair with an empty name, not a missing one.
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            let seconds = Double(value).flatMap { $0.isFinite && $0 >= 0 && $0 < 86_400 ? $0 : nil }
            switch name {
            case "closeAfter": closeAfter = seconds
            case "code": if let code = UInt16(value), (1000...4999).contains(code) { closeCode = code }
            case "reason": closeReason = String(value.prefix(120))
            case "dropAfter": dropAfter = seconds
            case "resetAfter": resetAfter = seconds
            case "noPong": noPong = value != "0"
            case "pongDelay": pongDelayMs = Int64(value).map { min(max($0, 0), 600_000) } ?? 0
            case "refuse": refuseCount = Int(value).map { min(max($0, 0), 1_000_000) } ?? 0
            case "status": if let status = Int(value), (200...599).contains(status), status != 101 { refuseStatus = status }
            case "key": refuseKey = String(value.prefix(200))
            case "idleTimeout": idleTimeout = seconds.flatMap { $0 > 0 ? $0 : nil }
            case "restartEvery": restartEvery = seconds.flatMap { $0 >= 0.1 ? $0 : nil }
            case "pingEvery": pingEvery = seconds.flatMap { $0 >= 0.01 ? $0 : nil }
            default: break
            }
        }
    }
}
