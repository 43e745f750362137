import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// The URLs of a running target, as printed by `sonde target` and used by tests.
public struct TargetEndpoints: Codable, Sendable {
    /// HTTP/1.1 in cleartext.
    public var http: String
    /// HTTP/1.1 and HTTP/2 over TLS (ALPN), certificate signed by the target's CA.
    public var https: String
    /// HTTP/2 in cleartext with prior knowledge.
    public var h2c: String
    /// TLS with an expired certificate (same CA).
    public var httpsExpired: String
    /// TLS with a certificate for another host name (same CA).
    public var httpsWrongHost: String
    /// A port that never answers a SYN (connect timeout).
    public var blackhole: String
    /// A port nothing listens on (connection refused).
    public var refused: String
    /// WebSocket in cleartext: `/ws/echo` with fault modes (see `WebSocketFaults`).
    public var ws: String
    /// WebSocket over TLS (same CA as `https`).
    public var wss: String
    /// PEM file of the target's CA: pass it to `--cacert`.
    public var caFile: String
    /// Resumable uploads (HTTP/1.1): `/ietf` (IETF draft, interop versions 3–8) and `/tus` (tus 1.0).
    public var uploads: String
    /// The HTTP/3 peer (`H3Peer`, hypercorn): h1/h2 over TLS and h3 over QUIC on this one port,
    /// advertising h3 with Alt-Svc; same CA. nil unless asked for and available.
    public var h3: String?
    /// Why `h3` is nil although it was asked for.
    public var h3Unavailable: String?
}

/// The embedded loopback target: Hummingbird listeners on random free ports of 127.0.0.1, a
/// fresh CA per start, and fault listeners. A peer for probes only: no engine imports it.
///
/// Threading: `start` and `stop` may be called from any task; the listeners run on NIO's
/// event loops until `stop`, their request handlers on `TargetExecutor`'s threads (never on
/// Swift's cooperative pool, which the embedding process may keep busy).
public final class TargetServer: @unchecked Sendable {
    private var tasks: [Task<Void, any Error>] = []
    private var blackhole: Blackhole?
    private var refusing: RefusingPort?
    private var webSockets: [WebSocketTarget] = []
    private let directory: String
    private let logLevel: Logger.Level
    private let h3Peer: H3Peer?

    /// - Parameter directory: where the CA file is written (created if missing).
    /// - Parameter http3: also start the HTTP/3 peer (`H3Peer`), when hypercorn is installed.
    public init(directory: String, logLevel: Logger.Level = .critical, http3: Bool = false) {
        self.directory = directory
        self.logLevel = logLevel
        self.h3Peer = http3 ? H3Peer(directory: directory) : nil
    }

    public func start() async throws -> TargetEndpoints {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificates = try TargetCertificates.generate()
        let caFile = (directory as NSString).appendingPathComponent("target-ca.pem")
        try certificates.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)

        func tls(_ identity: TargetCertificates.Identity) throws -> TLSConfiguration {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8)).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        }
        let http = try await listen(.http1(), name: "http")
        let https = try await listen(try .http2Upgrade(tlsConfiguration: try tls(certificates.leaf)), name: "https")
        let h2c = try await listen(.plaintextHTTP2(), name: "h2c")
        let expired = try await listen(try .http2Upgrade(tlsConfiguration: try tls(certificates.expiredLeaf)), name: "expired")
        let wrongHost = try await listen(try .http2Upgrade(tlsConfiguration: try tls(certificates.wrongHostLeaf)), name: "wronghost")
        let hole = try Blackhole()
        blackhole = hole
        let refuser = try RefusingPort()
        refusing = refuser
        let group = MultiThreadedEventLoopGroup.singleton
        let ws = WebSocketTarget(group: group, tls: nil)
        let wss = WebSocketTarget(group: group, tls: try NIOSSLContext(configuration: try tls(certificates.leaf)))
        webSockets = [ws, wss]
        let wsPort = try await ws.start()
        let wssPort = try await wss.start()
        let uploads = try await listenForUploads()
        let h3Port = await h3Peer?.start(identity: certificates.leaf)
        return TargetEndpoints(
            http: "http://127.0.0.1:\(http)", https: "https://127.0.0.1:\(https)", h2c: "http://127.0.0.1:\(h2c)",
            httpsExpired: "https://127.0.0.1:\(expired)", httpsWrongHost: "https://127.0.0.1:\(wrongHost)",
            blackhole: "http://127.0.0.1:\(hole.port)", refused: "http://127.0.0.1:\(refuser.port)",
            ws: "ws://127.0.0.1:\(wsPort)", wss: "wss://127.0.0.1:\(wssPort)", caFile: caFile,
            uploads: "http://127.0.0.1:\(uploads)", h3: h3Port.map { "https://127.0.0.1:\($0)" },
            h3Unavailable: h3Port == nil ? h3Peer?.unavailableReason : nil)
    }

    /// Starts one listener and returns its port once it is bound.
    private func listen(_ server: HTTPServerBuilder, name: String) async throws -> Int {
        var logger = Logger(label: "sonde.target.\(name)")
        logger.logLevel = logLevel
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: TargetRoutes.build(), server: server,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "sonde-target"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let task = Task(executorPreference: TargetExecutor.shared) {
            defer { continuation.finish() }
            try await app.run()
        }
        tasks.append(task)
        for await port in ports where port > 0 { return port }
        throw TargetError("the \(name) listener did not start")
    }

    /// Starts the resumable-upload listener (`UploadTarget`); uploads are kept under `directory/uploads`.
    private func listenForUploads() async throws -> Int {
        var logger = Logger(label: "sonde.target.uploads")
        logger.logLevel = logLevel
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let target = UploadTarget(directory: (directory as NSString).appendingPathComponent("uploads"))
        tasks.append(Task(executorPreference: TargetExecutor.shared) {
            defer { continuation.finish() }
            try await target.run(logger: logger) { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }
        })
        for await port in ports where port > 0 { return port }
        throw TargetError("the uploads listener did not start")
    }

    public func stop() async {
        for task in tasks { task.cancel() }
        for task in tasks { _ = try? await task.value }
        tasks.removeAll()
        blackhole?.close()
        blackhole = nil
        refusing?.close()
        refusing = nil
        for target in webSockets { await target.stop() }
        webSockets.removeAll()
        await h3Peer?.stop()
    }
}
