import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// The target's WebSocket listener: `/ws/echo` echoes every text and binary frame, answers pings
/// and honours the fault modes the client asks for in the query (`WebSocketFaults`).
///
/// Built on swift-nio directly (not Hummingbird's WebSocket layer) because the faults need
/// control below the message level: withheld or late pongs, a TCP drop without a close frame,
/// a reset, a listener restart.
///
/// Threading: every connection's state lives on its channel's event loop; the listener state
/// (server channel, children, refusal counters) is guarded by `lock`.
final class WebSocketTarget: @unchecked Sendable {
    private let group: EventLoopGroup
    private let tls: NIOSSLContext?
    private let lock = Mutex(())
    // Guarded by `lock`:
    private var serverChannel: Channel?
    private var children: [ObjectIdentifier: Channel] = [:]
    private var refusals: [String: Int] = [:]
    private var restartTask: Scheduled<Void>?
    /// Open connections that asked for `restartEvery`; a pending restart is dropped when none is left.
    private var restartRequesters = 0
    private var stopped = false
    private var port = 0

    /// Largest frame accepted (bytes).
    static let maxFrameSize = 1 << 24

    init(group: EventLoopGroup, tls: NIOSSLContext?) {
        self.group = group
        self.tls = tls
    }

    /// Binds the listener on 127.0.0.1 and returns the port: a free one below Linux's ephemeral
    /// range (32768–60999), so that a restart can bind it again without an outgoing connection of
    /// some other program having taken it as its local port meanwhile; any free port as a fallback.
    func start() async throws -> Int {
        var channel: Channel?
        for _ in 0..<50 where channel == nil {
            channel = try? await bind(port: Int.random(in: 20_000...32_000)).get()
        }
        if channel == nil { channel = try await bind(port: 0).get() }
        guard let channel else { throw TargetError("the WebSocket listener could not bind") }
        let bound = channel.localAddress?.port ?? 0
        lock.withLock { _ in
            port = bound
            serverChannel = channel
        }
        return bound
    }

    func stop() async {
        let (server, open, task): (Channel?, [Channel], Scheduled<Void>?) = lock.withLock { _ in
            stopped = true
            defer { serverChannel = nil; children = [:]; restartTask = nil }
            return (serverChannel, Array(children.values), restartTask)
        }
        task?.cancel()
        for child in open { child.close(promise: nil) }
        try? await server?.close().get()
    }

    private func bind(port: Int) -> EventLoopFuture<Channel> {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let self else { throw TargetError("the WebSocket target has stopped") }
                    try self.configure(channel)
                }
            }
            .bind(host: "127.0.0.1", port: port)
    }

    private func configure(_ channel: Channel) throws {
        if let tls {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
        }
        // Answers what is not upgraded; leaves the pipeline when an upgrade happens.
        let responder = WebSocketRefusalResponder()
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: Self.maxFrameSize, automaticErrorHandling: true,
            shouldUpgrade: { [weak self] channel, head in
                channel.eventLoop.makeSucceededFuture(self?.upgradeHeaders(for: head))
            },
            upgradePipelineHandler: { [weak self] channel, head in
                channel.eventLoop.makeCompletedFuture {
                    channel.pipeline.syncOperations.removeHandler(responder, promise: nil)
                    let faults = WebSocketFaults(requestTarget: head.uri)
                    if let idle = faults.idleTimeout {
                        try channel.pipeline.syncOperations.addHandler(
                            IdleStateHandler(readTimeout: .nanoseconds(Int64(idle * 1e9))), position: .first)
                    }
                    try channel.pipeline.syncOperations.addHandler(WebSocketEchoHandler(faults: faults))
                    if let every = faults.restartEvery, let self {
                        self.scheduleRestarts(every: every)
                        channel.closeFuture.whenComplete { [weak self] _ in self?.requesterClosed() }
                    }
                }
            })
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        try channel.pipeline.syncOperations.addHandler(responder)
        lock.withLock { _ in
            guard !stopped else { return }
            children[ObjectIdentifier(channel)] = channel
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.lock.withLock { _ in _ = self?.children.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    /// The extra 101 headers, or nil to decline (wrong path, or a refusal the client asked for).
    private func upgradeHeaders(for head: HTTPRequestHead) -> HTTPHeaders? {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard path == "/ws/echo" else { return nil }
        let faults = WebSocketFaults(requestTarget: head.uri)
        if faults.refuseCount > 0 && refuse(key: faults.refuseKey, count: faults.refuseCount) { return nil }
        var headers = HTTPHeaders()
        // Accept the client's first offered subprotocol, as an echo service would.
        if let offered = head.headers["Sec-WebSocket-Protocol"].first?.split(separator: ",").first {
            headers.add(name: "Sec-WebSocket-Protocol", value: offered.trimmingCharacters(in: .whitespaces))
        }
        return headers
    }

    /// Counts an attempt for `key`; true while the first `count` attempts are being refused.
    func refuse(key: String, count: Int) -> Bool {
        lock.withLock { _ in
            let seen = refusals[key, default: 0]
            refusals[key] = seen + 1
            return seen < count
        }
    }

    /// Restarts the listener `every` seconds after the first connection that asks for it (unless
    /// a restart is pending already): every open connection is closed without a close frame and
    /// the port is bound again. Clients that reconnect with the same query schedule the next one,
    /// so the restarts go on while such clients do, and stop when they leave.
    private func scheduleRestarts(every: Double) {
        lock.withLock { _ in
            restartRequesters += 1
            guard restartTask == nil, !stopped else { return }
            let loop = group.next()
            restartTask = loop.scheduleTask(in: .nanoseconds(Int64(every * 1e9))) { [weak self] in
                guard let self else { return }
                self.lock.withLock { _ in self.restartTask = nil }
                _ = self.restart(on: loop)
            }
        }
    }

    private func requesterClosed() {
        let pending: Scheduled<Void>? = lock.withLock { _ in
            restartRequesters -= 1
            guard restartRequesters <= 0 else { return nil }
            restartRequesters = 0
            defer { restartTask = nil }
            return restartTask
        }
        pending?.cancel()
    }

    private func restart(on loop: EventLoop) -> EventLoopFuture<Void> {
        let (server, open, port): (Channel?, [Channel], Int) = lock.withLock { _ in
            guard !stopped else { return (nil, [], 0) }
            defer { serverChannel = nil }
            return (serverChannel, Array(children.values), self.port)
        }
        guard let server else { return loop.makeSucceededVoidFuture() }
        // Close the listener and every connection, wait until they are gone, then bind the same
        // port again (retrying briefly: a closing socket can hold it for a moment).
        let closed = [server.close()] + open.map { $0.close() }
        return EventLoopFuture.whenAllComplete(closed, on: loop)
            .flatMap { [self] _ in rebind(port: port, on: loop, triesLeft: 40) }
    }

    private func rebind(port: Int, on loop: EventLoop, triesLeft: Int) -> EventLoopFuture<Void> {
        bind(port: port).map { [self] channel in
            let keep = lock.withLock { _ -> Bool in
                guard !stopped else { return false }
                serverChannel = channel
                return true
            }
            if !keep { channel.close(promise: nil) }
        }.flatMapError { [self] _ in
            guard triesLeft > 1 else { return loop.makeSucceededVoidFuture() }  // given up: the target stays down
            return loop.scheduleTask(in: .milliseconds(50)) {}.futureResult
                .flatMap { [self] in rebind(port: port, on: loop, triesLeft: triesLeft - 1) }
        }
    }
}
