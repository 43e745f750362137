import NIOWebSocket
import SondeCore

/// Why sonde fails a WebSocket connection (RFC 6455 §7.1.7): the cause the attempt records, the
/// close code sonde sends (1002 protocol error, 1007 invalid UTF-8, 1009 too large) and the
/// reason it sends with it, which names the rule broken or the limit passed.
///
/// Invariant: `reason` is at most 123 bytes of UTF-8, so it fits a close frame (RFC 6455 §5.5).
struct WebSocketViolation: Error, Equatable {
    var cause: DisconnectCause
    var code: UInt16
    var reason: String

    init(cause: DisconnectCause = .protocolError, code: UInt16 = 1002, _ reason: String) {
        self.cause = cause
        self.code = code
        var reason = reason
        while reason.utf8.count > 123 { reason.removeLast() }
        self.reason = reason
    }

    /// A frame or message over sonde's limit, `maxFrameSize` bytes.
    static func tooLarge(_ what: String, maxFrameSize: Int) -> WebSocketViolation {
        WebSocketViolation(cause: .frameTooLarge, code: 1009, "\(what) over sonde's maximum frame size of \(maxFrameSize) bytes")
    }

    /// SwiftNIO's frame decoder and aggregator errors in these terms; nil for any other error.
    init?(_ error: Error, maxFrameSize: Int) {
        if let error = error as? WebSocketViolation {
            self = error
        } else if let error = error as? NIOWebSocketError {
            switch error {
            // The decoder also rejects a length with its top bit set (2^63 and up, RFC 6455 §5.2) this way.
            case .invalidFrameLength: self = .tooLarge("a frame", maxFrameSize: maxFrameSize)
            case .fragmentedControlFrame: self.init("a fragmented control frame (RFC 6455 §5.5)")
            case .multiByteControlFrameLength: self.init("a control frame over 125 bytes (RFC 6455 §5.5)")
            }
        } else if let error = error as? NIOWebSocketFrameAggregator.Error {
            switch error {
            case .accumulatedFrameSizeIsTooLarge: self = .tooLarge("a fragmented message", maxFrameSize: maxFrameSize)
            case .tooManyFragments: self.init(cause: .frameTooLarge, code: 1009, "a message in more fragments than sonde accepts")
            case .receivedNewFrameWithoutFinishingPrevious:
                self.init("a new message began before the fragmented one was finished (RFC 6455 §5.4)")
            case .didReceiveFragmentBeforeReceivingTextOrBinaryFrame:
                self.init("a continuation frame with no message to continue (RFC 6455 §5.4)")
            default: self.init("a fragmented message sonde cannot reassemble (\(error))")
            }
        } else {
            return nil
        }
    }
}
