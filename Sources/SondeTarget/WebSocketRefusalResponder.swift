import NIOCore
import NIOHTTP1

/// Answers the requests the WebSocket listener did not upgrade: a refusal the client asked for
/// (`refuse=K&status=N`), 426 for a plain request to `/ws/echo`, 404 elsewhere. Then closes.
final class WebSocketRefusalResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
        case .body:
            break
        case .end:
            guard let request = head else { return }
            head = nil
            let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
            let faults = WebSocketFaults(requestTarget: request.uri)
            let status: HTTPResponseStatus
            let upgradeRequested = request.headers["Upgrade"].contains { $0.lowercased() == "websocket" }
            if path != "/ws/echo" {
                status = .notFound
            } else if upgradeRequested && faults.refuseCount > 0 {
                status = HTTPResponseStatus(statusCode: faults.refuseStatus)
            } else {
                status = .upgradeRequired
            }
            let body = "\(status.code) \(status.reasonPhrase)\n"
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain")
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            headers.add(name: "Connection", value: "close")
            if status == .upgradeRequired { headers.add(name: "Upgrade", value: "websocket") }
            if status.code == 503 || status.code == 429 { headers.add(name: "Retry-After", value: "1") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
        }
    }
}
