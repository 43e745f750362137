import NIOCore
import NIOWebSocket

/// Checks every frame from the server, before fragments are reassembled (which would lose the
/// evidence), against the rules a client must enforce (RFC 6455 §5.1, §5.2): a server must not
/// mask its frames, must not set RSV bits unless an extension says so (sonde negotiates none),
/// and must not use a reserved opcode. A frame that breaks one is dropped and reported as a
/// `WebSocketViolation` through `errorCaught`, for the session to fail the connection; valid
/// frames pass unchanged. SwiftNIO's decoder checks lengths and control frames itself.
final class ServerFrameValidator: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let violation = Self.violation(in: unwrapInboundIn(data)) {
            context.fireErrorCaught(violation)
        } else {
            context.fireChannelRead(data)
        }
    }

    /// The rule `frame` breaks, or nil.
    static func violation(in frame: WebSocketFrame) -> WebSocketViolation? {
        if frame.maskKey != nil {
            return WebSocketViolation("the server masked a frame (RFC 6455 §5.1)")
        }
        if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            return WebSocketViolation("a frame with RSV bits set and no extension negotiated (RFC 6455 §5.2)")
        }
        switch frame.opcode {
        case .continuation, .text, .binary, .connectionClose, .ping, .pong:
            return nil
        default:
            let code = UInt8(webSocketOpcode: frame.opcode)
            return WebSocketViolation("a frame with the reserved opcode 0x\(String(code, radix: 16, uppercase: true)) (RFC 6455 §5.2)")
        }
    }
}
