import Foundation
import NIOCore
import NIOSSL
import NIOTLS
import SondeCore
import SondeHTTP
import SondeSuite

/// TLS for the tcp prober, as blackbox_exporter's Go client makes it: the module's `tls_config`
/// as an NIOSSL context (Go 1.19's client defaults: TLS 1.2 to 1.3, its key-exchange groups), the
/// server name (`server_name`, or the target's host) sent in SNI and verified, and the series a
/// handshake gives (`record`).
enum BlackboxTLS {
    /// Go's zero `time.Time` as `Unix()`: what blackbox writes for a chain expiry it has no verified chain for.
    static let goZeroTimeUnix = -62_135_596_800.0

    /// The context for one probe (files read now, so that a renewed CA is taken).
    static func context(_ tls: BlackboxModule.TLSConfig) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = version(tls.minVersion) ?? .tlsv12
        configuration.maximumTLSVersion = version(tls.maxVersion) ?? .tlsv13
        configuration.curves = [.x25519, .secp256r1, .secp384r1, .secp521r1]
        if tls.insecureSkipVerify {
            configuration.certificateVerification = .none
        } else if let caFile = tls.caFile {
            configuration.trustRoots = .file(caFile)
        }
        if let certFile = tls.certFile, let keyFile = tls.keyFile {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certFile).map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
        }
        return try NIOSSLContext(configuration: configuration)
    }

    static func version(_ name: String?) -> TLSVersion? {
        switch name {
        case "TLS10": return .tlsv1
        case "TLS11": return .tlsv11
        case "TLS12": return .tlsv12
        case "TLS13": return .tlsv13
        default: return nil
        }
    }

    /// The client handler: SNI with the server name unless it is an IP address (then NIOSSL
    /// verifies the certificate against the address connected to, as Go verifies an IP name).
    static func handler(context: NIOSSLContext, serverName: String) throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: context, serverHostname: isIPAddress(serverName) ? nil : serverName)
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// What a finished handshake tells: the version and the leaf (DER).
    struct Facts: Sendable {
        var version: TLSVersion?
        var leafDER: [UInt8]?

        init(version: TLSVersion? = nil, leafDER: [UInt8]? = nil) {
            self.version = version
            self.leafDER = leafDER
        }
    }

    /// blackbox's TLS series from a handshake: `probe_ssl_earliest_cert_expiry`,
    /// `probe_tls_version_info`, `probe_ssl_last_chain_expiry_timestamp_seconds`,
    /// `probe_ssl_last_chain_info`. NIOSSL gives the leaf only (not the chain the server sent, nor
    /// the verified chain), so both expiries are the leaf's: blackbox's when the leaf expires
    /// first, as it does in most chains. Without verification (`insecure_skip_verify`) Go has no
    /// verified chain and writes its zero time for the chain expiry, and so does sonde.
    static func record(_ facts: Facts, verified: Bool, into exposition: inout BlackboxExposition) {
        let leaf = facts.leafDER.map { CertificateDERFacts.peerCertificate(der: $0) }
        // Go's `Unix()`: whole seconds, rounded down.
        let expiry = leaf?.notAfter.map { ($0.microsecondsSince1970 / 1_000_000 - ($0.microsecondsSince1970 % 1_000_000 < 0 ? 1 : 0)) }.map(Double.init)
        exposition.set("probe_ssl_earliest_cert_expiry", expiry ?? goZeroTimeUnix)
        exposition.set("probe_tls_version_info", 1, labels: [("version", versionText(facts.version))])
        exposition.set("probe_ssl_last_chain_expiry_timestamp_seconds", verified ? (expiry ?? goZeroTimeUnix) : goZeroTimeUnix)
        if let leaf, let labels = BlackboxExposition.chainInfoLabels(leaf) {
            exposition.set("probe_ssl_last_chain_info", 1, labels: labels)
        }
    }

    /// Go's names: `TLS 1.3`, or `unknown`.
    static func versionText(_ version: TLSVersion?) -> String {
        switch version {
        case .tlsv1: return "TLS 1.0"
        case .tlsv11: return "TLS 1.1"
        case .tlsv12: return "TLS 1.2"
        case .tlsv13: return "TLS 1.3"
        default: return "unknown"
        }
    }
}

/// Completes `promise` with what the handshake told (`BlackboxTLS.Facts`, read from `tls` at that
/// moment: a server that closes right after can take the handler out of the pipeline before the
/// probe would ask it) when the TLS handshake before it in the pipeline completes; fails it when
/// the handshake fails or the connection closes first. Lives on the channel's event loop.
final class TLSHandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<BlackboxTLS.Facts>
    private let tls: NIOSSLClientHandler
    /// Whether the promise is completed (it is completed once).
    private var done = false

    init(promise: EventLoopPromise<BlackboxTLS.Facts>, watching tls: NIOSSLClientHandler) {
        self.promise = promise
        self.tls = tls
    }

    private func complete(_ result: Result<BlackboxTLS.Facts, Error>) {
        guard !done else { return }
        done = true
        promise.completeWith(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            complete(.success(BlackboxTLS.Facts(version: tls.tlsVersion, leafDER: try? tls.peerCertificate?.toDERBytes())))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        complete(.failure(error))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.failure(ChannelError.eof))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        complete(.failure(ChannelError.ioOnClosedChannel))
    }
}
