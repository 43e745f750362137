import SondeCore

/// A protocol a soak speaks inside its WebSocket connections (a WebSocket subprotocol, RFC 6455
/// §1.9, that a kind extension brings: docs/architecture.md, "Adding a kind extension"): what the session sends
/// when the connection opens, how it answers the server's messages and, instead of WebSocket
/// ping frames, the protocol's own keepalive message, whose answer is the soak's ping RTT.
///
/// The session (`SoakSessionHandler`) owns the socket; the subprotocol only decides, by
/// returning `SoakSubprotocolAction`s. One instance per attempt, made by `SoakSubprotocolFactory`.
///
/// Threading: every method is called on the connection's event loop, never concurrently.
public protocol SoakSubprotocol: AnyObject {
    /// The upgrade succeeded with this subprotocol chosen: what to send first. `nanos`: the
    /// monotonic clock now.
    func opened(atNanos nanos: UInt64) -> [SoakSubprotocolAction]
    /// A whole data message arrived (text or binary, UTF-8 already checked for text).
    func received(_ message: [UInt8], text: Bool, atNanos nanos: UInt64) -> [SoakSubprotocolAction]
    /// A wake-up the subprotocol asked for (`.wake`) is due.
    func woke(atNanos nanos: UInt64) -> [SoakSubprotocolAction]
    /// The text message that is the protocol's ping (sent at the soak's ping interval instead of a
    /// ping frame; the `.pong` action answers it).
    var pingMessage: String { get }
    /// The exchange so far, as the attempt records it: its parts (`SoakAttempt.parts`), under the
    /// key of the extension's `SoakPart`.
    var parts: ModelParts { get }
    /// The connection ended with this close code (either side's): the subprotocol names it in `parts`.
    func closed(code: Int?)
}

/// What a subprotocol asks its session to do.
public enum SoakSubprotocolAction: Equatable, Sendable {
    /// Send this text message.
    case send(String)
    /// The answer to the oldest outstanding protocol ping came (an unsolicited one when none is outstanding).
    case pong
    /// The gap since the previous event of the protocol (a subscription's message), ns (a soak sample).
    case eventGap(nanos: UInt64)
    /// Call `woke` after this many ns (at most one pending: a later request replaces it).
    case wake(afterNanos: UInt64)
    /// Fail the connection: send a close frame with this code and reason (at most 123 bytes)
    /// and close; the attempt records `cause`.
    case close(code: UInt16, reason: String, cause: DisconnectCause)
}

/// Makes the subprotocol of each attempt, and says which subprotocol the server must choose.
public struct SoakSubprotocolFactory: Sendable {
    /// The `Sec-WebSocket-Protocol` value the server must choose; an upgrade without it fails
    /// the attempt as `protocolError`.
    public var name: String
    public var make: @Sendable () -> SoakSubprotocol

    public init(name: String, make: @escaping @Sendable () -> SoakSubprotocol) {
        self.name = name
        self.make = make
    }
}
