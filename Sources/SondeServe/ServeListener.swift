import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import SondeSuite

/// serve's HTTP listener (Hummingbird, HTTP/1.1): started on `address`, stopped by cancelling its
/// task; bounded by `ServeLimits` (connections in all and per client address, kept by
/// `ConnectionTable`; the time to send a request). Accepting stops only when every connection is
/// being answered (`acceptHeadroom` past the table's maximum, for those closing); NIO's accept
/// loop backs off for a second when the descriptors run out (`AcceptBackoffHandler`).
public struct ServeListener: Sendable {
    /// The port it listens on (the one picked when `address.port` is 0).
    public let port: Int
    private let task: Task<Void, Error>

    /// Why serve could not listen on `address` (what `start` threw), in one sentence that names
    /// the address and says what to do; errors other than the socket's own are described as they are.
    public static func failure(_ error: any Error, address: ListenAddress) -> String {
        let code = (error as? IOError)?.errnoCode
        switch code {
        case EADDRINUSE:
            return "cannot listen on \(address): another program (another sonde serve?) is already listening there; stop it, "
                + "or give serve another address with --listen HOST:PORT (or listen: in the config)"
        case EACCES:
            return "cannot listen on \(address): ports below 1024 need root or CAP_NET_BIND_SERVICE; "
                + "choose a port from 1024 up with --listen HOST:PORT (or listen: in the config)"
        case EADDRNOTAVAIL:
            return "cannot listen on \(address): no interface of this machine has that address; "
                + "give one of its own (127.0.0.1 for this machine only) with --listen HOST:PORT (or listen: in the config)"
        default:
            return "cannot listen on \(address): \(error)"
        }
    }

    /// Binds and starts serving `context`'s routes, over TLS when `tls` is given; throws when the
    /// address cannot be bound or the certificate and key cannot be loaded.
    public static func start(_ address: ListenAddress, _ context: ServeRoutes.Context, tls: WebConfig.TLS? = nil,
                             limits: ServeLimits) async throws -> ServeListener {
        let requestTimeout = TimeAmount.milliseconds(Int64(limits.requestTimeout * 1000))
        let connections = ConnectionTable(maxConnections: limits.maxConnections, maxPerAddress: limits.maxConnectionsPerClient)
        let http1 = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [RequestDeadlineHandler(limit: requestTimeout),
                                                                                               ConnectionGuardHandler(table: connections)],
                                                                 idleTimeout: requestTimeout))
        let server: HTTPServerBuilder
        if let tls {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certFile).map { NIOSSLCertificateSource.certificate($0) }
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain,
                                                                         privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.keyFile, format: .pem)))
            configuration.minimumTLSVersion = tls.minVersion == "TLS13" ? .tlsv13 : .tlsv12
            server = try .tls(http1, tlsConfiguration: configuration)
        } else {
            server = http1
        }
        var logger = Logger(label: "sonde.serve")
        logger.logLevel = .critical  // a stop cancels the server, which Hummingbird logs as an error
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: ServeRoutes.build(context), server: server,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "sonde",
                                 availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections + Self.acceptHeadroom, logger: logger)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        for await port in ports where port > 0 { return ServeListener(port: port, task: task) }
        let failure: Error
        switch await task.result {
        case .failure(let error): failure = error
        case .success: failure = CancellationError()
        }
        throw failure
    }

    /// Connections accepted past `ServeLimits.maxConnections` while the ones giving way close.
    static let acceptHeadroom = 32

    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}
