import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request is not read whole within `limit` of its head: Hummingbird's
/// idle timer (`ServeLimits.requestTimeout`) is reset by every body part and leaves a connection
/// alone while a body is being read, so a client trickling a body (one byte every few seconds,
/// before any authentication) held its connection for ever. No route of serve takes a body; a
/// request's head and body together get the same 10 s a head alone gets.
/// Threading: its channel's event loop.
final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let limit: TimeAmount
    private var deadline: Scheduled<Void>?

    init(limit: TimeAmount) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            let channel = context.channel
            deadline = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}
