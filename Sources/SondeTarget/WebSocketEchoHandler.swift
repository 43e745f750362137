#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOWebSocket

/// One `/ws/echo` connection after the upgrade: echoes text and binary frames (fragments as they
/// came), answers pings unless told otherwise, answers a close, and plays its `WebSocketFaults`.
///
/// Threading: lives on its channel's event loop, like every NIO handler.
final class WebSocketEchoHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let faults: WebSocketFaults
    private var sentClose = false
    private var scheduled: [Scheduled<Void>] = []
    private var serverPings: RepeatedTask?

    init(faults: WebSocketFaults) {
        self.faults = faults
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        func after(_ seconds: Double, _ body: @escaping (WebSocketEchoHandler, ChannelHandlerContext) -> Void) {
            scheduled.append(loop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
                let (handler, context) = bound.value
                body(handler, context)
            })
        }
        if let seconds = faults.closeAfter {
            after(seconds) { handler, context in handler.sendClose(context: context, code: handler.faults.closeCode, reason: handler.faults.closeReason) }
        }
        if let seconds = faults.dropAfter {
            after(seconds) { _, context in context.close(promise: nil) }
        }
        if let seconds = faults.resetAfter {
            after(seconds) { _, context in
                let channel = context.channel
                (channel as? SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
                    channel.close(promise: nil)
                } ?? channel.close(promise: nil)
            }
        }
        if let every = faults.pingEvery {
            let interval = TimeAmount.nanoseconds(Int64(every * 1e9))
            var sequence: UInt64 = 0
            serverPings = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                let (_, context) = bound.value
                sequence += 1
                var payload = context.channel.allocator.buffer(capacity: 8)
                payload.writeInteger(sequence)
                context.writeAndFlush(NIOAny(WebSocketFrame(fin: true, opcode: .ping, data: payload)), promise: nil)
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        for task in scheduled { task.cancel() }
        serverPings?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Idle longer than `idleTimeout`: cut the connection without a close frame, as a load balancer does.
        if case IdleStateHandler.IdleStateEvent.read = event {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            guard !faults.noPong, !sentClose else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            if faults.pongDelayMs > 0 {
                // Not kept in `scheduled` (one per ping would pile up on a long connection): a pong
                // due after the connection closed fails to write, which is harmless.
                let channel = context.channel
                context.eventLoop.scheduleTask(in: .milliseconds(faults.pongDelayMs)) {
                    channel.writeAndFlush(pong, promise: nil)
                }
            } else {
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            }
        case .text, .binary, .continuation:
            guard !sentClose else { return }
            let echo = WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(echo), promise: nil)
        case .connectionClose:
            if sentClose {
                context.close(promise: nil)
            } else {
                // Echo the client's close code (RFC 6455 §5.5.1), then close.
                var data = frame.unmaskedData
                let code = data.readInteger(as: UInt16.self) ?? 1000
                sentClose = true
                var payload = context.channel.allocator.buffer(capacity: 2)
                payload.writeInteger(code)
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)))
                    .whenComplete { _ in context.close(promise: nil) }
            }
        default:
            break
        }
    }

    /// Sends a close frame and closes the TCP connection if the client has not answered within 2 s.
    private func sendClose(context: ChannelHandlerContext, code: UInt16, reason: String) {
        guard !sentClose else { return }
        sentClose = true
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        payload.writeInteger(code)
        payload.writeString(reason)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)), promise: nil)
        let channel = context.channel
        scheduled.append(context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) })
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
