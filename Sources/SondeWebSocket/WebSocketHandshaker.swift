import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket
import SondeCore

/// Opens one WebSocket connection (RFC 6455 §4) and times each step on the way: DNS (a
/// blocking `getaddrinfo` on `resolver`'s threads), TCP connect, TLS, and the HTTP upgrade from the
/// request written to the response head read. On success the channel speaks WebSocket frames
/// (checked by `ServerFrameValidator`, fragments reassembled up to `maxFrameSize`) and carries the
/// handler `makeSession` built; on failure the error is classified. Response headers are redacted
/// as they are recorded, and everything the handshake records from them (subprotocol,
/// extensions) is read from the redacted copy, so no caller can forget.
///
/// Threading: everything after `open` runs on `loop`; `completion` is called exactly once, on `loop`.
struct WebSocketHandshaker {
    let options: SoakOptions
    let tls: NIOSSLContext?
    let redactor: Redactor
    /// Where `getaddrinfo` runs (its threads' network namespace is the one the query leaves from).
    let resolver: NIOThreadPool

    typealias Completion = (Result<Channel, TaskError>, WebSocketHandshake) -> Void

    /// - Parameter extraHeaders: sent after the options' own headers on this handshake only (a `traceparent`).
    func open(on loop: EventLoop, extraHeaders: [HeaderField] = [], makeSession: @escaping (Channel, WebSocketHandshake) throws -> ChannelHandler,
              completion: @escaping Completion) {
        var options = self.options
        options.headers += extraHeaders
        let observer = HandshakeObserver(options: options, redactor: redactor, loop: loop, makeSession: makeSession,
                                         completion: completion)
        // The observer lives on `loop`, where every callback below runs (NIOLoopBound checks it).
        let bound = NIOLoopBound(observer, eventLoop: loop)
        let url = options.url
        let started = monotonicNanos()
        if url.hostIsAddress {
            do {
                connect(to: try SocketAddress(ipAddress: url.host, port: url.port), observer: bound, loop: loop)
            } catch {
                observer.fail(TaskError(code: .malformedURL, message: "\(url.host) is not a usable address: \(error)"))
            }
            return
        }
        let resolution = resolver.runIfActive(eventLoop: loop) {
            try SocketAddress.makeAddressResolvingHost(url.host, port: url.port)
        }
        resolution.whenComplete { result in
            bound.value.handshake.dnsMs = milliseconds(since: started)
            switch result {
            case .success(let address):
                connect(to: address, observer: bound, loop: loop)
            case .failure(let error):
                bound.value.fail(TaskError(code: .dnsFailure, message: "could not resolve \(url.host): \(error)"))
            }
        }
    }

    /// Bind attempts on the next ports of `--capture`'s block when one is taken (another socket, or
    /// a 4-tuple still in TIME_WAIT), before the connection fails.
    static let localPortAttempts = 16

    private func connect(to address: SocketAddress, observer bound: NIOLoopBound<HandshakeObserver>, loop: EventLoop, attempt: Int = 1) {
        let observer = bound.value
        let url = options.url
        let timeout = TimeAmount.nanoseconds(Int64(options.config.connectTimeoutS * 1e9))
        if attempt == 1 { observer.startTimer(timeout) }
        observer.handshake.remoteAddress = address.ipAddress
        observer.handshake.remotePort = address.port
        let tls = self.tls
        let upgrader = NIOWebSocketClientUpgrader(
            // Protocol errors are the session's to handle: it records why, then sends the close frame.
            maxFrameSize: options.maxFrameSize, automaticErrorHandling: false,
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture { try bound.value.upgraded(channel: channel, response: head) }
            })
        if attempt == 1 { observer.connectStarted = monotonicNanos() }
        var bootstrap = ClientBootstrap(group: loop)
        if let cursor = options.localPorts {
            let any = address.protocol == .inet6 ? "::" : "0.0.0.0"
            if let local = try? SocketAddress(ipAddress: any, port: cursor.take()) {
                bootstrap = bootstrap.channelOption(.socketOption(.so_reuseaddr), value: 1).bind(to: local)
            }
        }
        bootstrap
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            // Every channel keeps its receive buffer between reads: NIO's default starts it at
            // 2 KiB, a held connection's pongs and messages are mostly a few bytes. The buffer
            // still grows to 64 KiB for a connection that reads more (heaptrack, 2,000 held
            // connections: 2,050 bytes each before, about 300 after).
            .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 256, maximum: 65_536))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: url.hostIsAddress ? nil : url.host))
                    }
                    try sync.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    try sync.addHandler(bound.value)
                }
            }
            .connect(to: address)
            .whenFailure { error in
                if options.localPorts != nil, attempt < Self.localPortAttempts, let io = error as? IOError,
                   io.errnoCode == EADDRINUSE || io.errnoCode == EADDRNOTAVAIL {
                    connect(to: address, observer: bound, loop: loop, attempt: attempt + 1)
                    return
                }
                bound.value.fail(WebSocketErrorClassifier.classify(connectError: error, url: url))
            }
    }
}

/// The handshake's state on its channel: sends the upgrade request once TCP (and TLS) are up,
/// reads a refusal, hands the channel over on 101. Lives on one event loop.
final class HandshakeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    var handshake = WebSocketHandshake()
    var connectStarted: UInt64 = 0
    private let options: SoakOptions
    private let redactor: Redactor
    private let loop: EventLoop
    private let makeSession: (Channel, WebSocketHandshake) throws -> ChannelHandler
    private var completion: WebSocketHandshaker.Completion?
    private let started = monotonicNanos()
    private var requestSent: UInt64?
    private var tlsStarted: UInt64?
    private var channel: Channel?
    private var refusal: HTTPResponseHead?
    private var pendingError: TaskError?

    init(options: SoakOptions, redactor: Redactor, loop: EventLoop,
         makeSession: @escaping (Channel, WebSocketHandshake) throws -> ChannelHandler,
         completion: @escaping WebSocketHandshaker.Completion) {
        self.options = options
        self.redactor = redactor
        self.loop = loop
        self.makeSession = makeSession
        self.completion = completion
    }

    /// Fails the handshake if it has not finished after `timeout`: an entry in the loop's queue
    /// of deadlines `timeout` away (`LoopDeadlineQueue`, at most 10 ms late), which does nothing
    /// once the handshake has finished (a NIO timer per connection filled the loop's timer heap).
    func startTimer(_ timeout: TimeAmount) {
        // Weak: once the handshake has finished (or failed) nothing else holds the observer, and
        // the entry must not keep it (its record, the response's headers) for the whole timeout.
        // Until then the channel's pipeline or the connect's callback holds it.
        LoopDeadlineQueue.on(loop, delay: timeout).add { [weak self] in
            guard let self, completion != nil else { return }
            fail(TaskError(code: .timedOut, message: "the WebSocket handshake with \(options.url.hostHeader) did not finish within "
                + "\(formatSeconds(options.config.connectTimeoutS)) (--connect-timeout)"))
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        channel = context.channel
    }

    func channelActive(context: ChannelHandlerContext) {
        handshake.connectMs = milliseconds(since: connectStarted)
        handshake.localPort = context.channel.localAddress?.port
        if options.url.secure {
            tlsStarted = monotonicNanos()
        } else {
            sendRequest(context: context)
        }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            if let tlsStarted { handshake.tlsMs = milliseconds(since: tlsStarted) }
            if let version = try? context.pipeline.syncOperations.nioSSL_tlsVersion() {
                handshake.tlsProtocolVersion = Self.name(version)
            }
            sendRequest(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func sendRequest(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: options.url.hostHeader)
        if !options.subprotocols.isEmpty {
            headers.add(name: "Sec-WebSocket-Protocol", value: options.subprotocols.joined(separator: ", "))
        }
        headers.add(name: "User-Agent", value: "sonde/\(SondeVersion.current)")
        for field in options.headers { headers.add(name: field.name, value: field.value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: options.url.requestTarget, headers: headers)
        requestSent = monotonicNanos()
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// A response that is not an accepted upgrade reaches here (NIO's upgrade handler passes it on).
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let response) = unwrapInboundIn(data), refusal == nil else { return }
        refusal = response
        record(response)
        if let pendingError {
            fail(pendingError)
        } else if response.status == .switchingProtocols {
            fail(TaskError(code: .protocolError, message: "the server answered 101 but its Sec-WebSocket-Accept does not match the key sonde sent (RFC 6455 §4.2.2)"))
        } else {
            fail(TaskError(code: .httpStatus, message: "the server answered \(response.status.code) \(response.status.reasonPhrase) instead of 101 Switching Protocols",
                           reason: String(response.status.code)))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is NIOHTTPClientUpgradeError {
            // The response head follows; judge it there.
            pendingError = TaskError(code: .protocolError,
                                     message: "the server's upgrade response was not a valid WebSocket acceptance (\(error))")
            return
        }
        fail(WebSocketErrorClassifier.classify(handshakeError: error, url: options.url, tlsDone: handshake.tlsMs != nil))
    }

    func channelInactive(context: ChannelHandlerContext) {
        let message = options.url.secure && handshake.tlsMs == nil
            ? "the server closed the connection during the TLS handshake"
            : "the server closed the connection before answering the upgrade request"
        fail(TaskError(code: options.url.secure && handshake.tlsMs == nil ? .tlsFailure : .emptyReply, message: message))
        context.fireChannelInactive()
    }

    /// 101 with a valid accept key: the upgrader removed the HTTP handlers and added the frame codec.
    func upgraded(channel: Channel, response: HTTPResponseHead) throws {
        record(response)
        if let chosen = response.headers["Sec-WebSocket-Protocol"].first, !options.subprotocols.contains(chosen) {
            fail(TaskError(code: .protocolError, message: "the server chose subprotocol \(handshake.subprotocol ?? Redactor.mask), "
                + "which sonde did not offer (RFC 6455 §4.1)"))
            return
        }
        if let required = options.subprotocol?.name, response.headers["Sec-WebSocket-Protocol"].first != required {
            fail(TaskError(code: .protocolError, message: "the server did not choose subprotocol \(required) "
                + "(it answered \(handshake.subprotocol.map { "with \($0)" } ?? "without Sec-WebSocket-Protocol")), which the soak needs"))
            return
        }
        guard let completion else { return }
        self.completion = nil
        handshake.totalMs = milliseconds(since: started)
        channel.pipeline.syncOperations.removeHandler(self, promise: nil)
        let session = try makeSession(channel, handshake)
        try channel.pipeline.syncOperations.addHandlers([
            ServerFrameValidator(),
            NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                        maxAccumulatedFrameSize: options.maxFrameSize),
            session,
        ])
        completion(.success(channel), handshake)
    }

    private func record(_ response: HTTPResponseHead) {
        if let requestSent { handshake.upgradeMs = milliseconds(since: requestSent) }
        handshake.statusCode = Int(response.status.code)
        let headers = redactor.redact(headers: response.headers.map { HeaderField(name: $0.name, value: $0.value) })
        func values(_ name: String) -> [String] { headers.filter { $0.name.lowercased() == name }.map(\.value) }
        handshake.responseHeaders = headers
        handshake.subprotocol = values("sec-websocket-protocol").first
        handshake.extensions = values("sec-websocket-extensions")
            .flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Ends the attempt as failed (once) and closes the channel.
    func fail(_ error: TaskError) {
        guard let completion else { return }
        self.completion = nil
        handshake.totalMs = milliseconds(since: started)
        channel?.close(promise: nil)
        completion(.failure(error), handshake)
    }

    static func name(_ version: TLSVersion) -> String {
        switch version {
        case .tlsv1: return "TLSv1"
        case .tlsv11: return "TLSv1.1"
        case .tlsv12: return "TLSv1.2"
        case .tlsv13: return "TLSv1.3"
        }
    }
}

/// Monotonic nanoseconds (NIO's clock, the one its timers use).
func monotonicNanos() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

func milliseconds(since start: UInt64) -> Double {
    Double(monotonicNanos() &- start) / 1e6
}

func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.3g s", seconds)
}
