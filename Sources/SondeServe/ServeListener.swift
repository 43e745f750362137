import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import SondeRun

/// serve's HTTP listener (Hummingbird, HTTP/1.1): started on `address`, stopped by cancelling its
/// task; bounded by `ServeLimits` (connections in all and per client address, kept by
/// `ConnectionTable`; the time to send a request). Accepting stops only when every connection is
/// being answered (`acceptHeadroom` past the table's maximum, for those closing); NIO's accept
/// loop backs off for a second when the descriptors run out (`AcceptBackoffHandler`).
public struct ServeListener: Sendable {
    /// The port it listens on (the one picked when `address.port` is 0).
    public let port: Int
    private let task: Task<Void, Error>

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
