import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SondeCore

/// Holds `connections` WebSocket connections for the soak's duration, starting them evenly over
/// the ramp, each keeping itself alive and reconnecting on its own (`SoakConnection`), and
/// reports everything to the sink. Connections are spread over the event loops of `group`, and
/// host names are resolved on `resolver`'s threads (both NIO's singletons unless a caller gives
/// its own: a run over an emulated link makes both inside the link's namespace, so that every
/// socket and DNS query crosses it).
///
/// Threading: `run` may be called once, from any task; `shouldStop` is polled every 100 ms.
public final class SoakEngine: @unchecked Sendable {
    public let options: SoakOptions
    public let clock: SoakClock
    let sink: SoakEventSink
    let group: EventLoopGroup
    let handshaker: WebSocketHandshaker

    /// Builds the engine; a TLS setting that cannot work (an unreadable `--cacert`) is an error here.
    public init(options: SoakOptions, sink: SoakEventSink, redactor: Redactor,
                group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                resolver: NIOThreadPool = NIOThreadPool.singleton) throws(TaskError) {
        if let problem = options.problem { throw TaskError(code: .internalError, message: problem.description) }
        self.options = options
        self.sink = sink
        self.group = group
        var tls: NIOSSLContext?
        if options.url.secure {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if options.config.insecure { configuration.certificateVerification = .none }
            if let caFile = options.caFile {
                guard FileManager.default.isReadableFile(atPath: caFile) else {
                    throw TaskError(code: .localIOError, message: "cannot read the CA file \(caFile) (--cacert)")
                }
                // As curl's --cacert (and probe's and resume's): these roots instead of the system's.
                configuration.trustRoots = .file(caFile)
            }
            do {
                tls = try NIOSSLContext(configuration: configuration)
            } catch {
                throw TaskError(code: .tlsFailure, message: "cannot set up TLS: \(error) (is \(options.caFile ?? "the CA file") a PEM certificate?)")
            }
        }
        handshaker = WebSocketHandshaker(options: options, tls: tls, redactor: redactor, resolver: resolver)
        clock = SoakClock()
    }

    /// Runs the soak until its duration has passed or `shouldStop` returns true, then closes
    /// every connection with 1000 and returns when all have reported their last attempt
    /// (at most a few seconds after the end).
    public func run(shouldStop: @escaping @Sendable () -> Bool) async {
        let config = options.config
        let count = config.connections
        var connections: [SoakConnection] = []
        connections.reserveCapacity(count)
        let shared = SoakConnection.Shared(options: options, handshaker: handshaker, sink: sink, clock: clock)
        for index in 0..<count {
            let loop = group.next()
            let connection = SoakConnection(index: index, loop: loop, shared: shared)
            connections.append(connection)
            let delay = count > 1 ? config.rampS * Double(index) / Double(count) : 0
            loop.execute { connection.start(after: .nanoseconds(Int64(delay * 1e9))) }
        }
        // Connections finish early only by giving up (`--max-attempts`); then the soak is over.
        let all = EventLoopFuture.andAllComplete(connections.map { $0.finished.futureResult }, on: group.next())
        let done = MutexBox(false)
        all.whenComplete { _ in done.withLock { $0 = true } }
        let deadline = clock.startNanos + UInt64(config.durationS * 1e9)
        while monotonicNanos() < deadline && !shouldStop() && !done.withLock({ $0 }) {
            let left = deadline &- monotonicNanos()
            try? await Task.sleep(nanoseconds: min(100_000_000, left))
        }
        for connection in connections {
            connection.loop.execute { connection.stop() }
        }
        // Every close is bounded (1 s for the close handshake, the connect timeout for a handshake in flight).
        let waitUntil = monotonicNanos() + UInt64((config.connectTimeoutS + 3) * 1e9)
        while !done.withLock({ $0 }) && monotonicNanos() < waitUntil {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}

