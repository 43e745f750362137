import NIOCore
import NIOHTTPTypes

/// Enters each accepted connection in serve's `ConnectionTable` (closing it at once when the
/// table has no room for it) and tells the table when a request begins and when its answer ends,
/// so that the table knows which connections may give way to a new one.
/// Threading: its channel's event loop.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let table: ConnectionTable
    private var entered = false

    init(table: ConnectionTable) { self.table = table }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        // The client's address without its port: a client's connections count together.
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        if table.admit(channel, address: address) {
            entered = true
        } else {
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { table.update(context.channel, to: .busy) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { table.update(context.channel, to: .waiting) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave(context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { leave(context) }

    private func leave(_ context: ChannelHandlerContext) {
        guard entered else { return }
        entered = false
        table.remove(context.channel)
    }
}
