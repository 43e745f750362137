#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket
import SondeCore

/// Turns what SwiftNIO and NIOSSL throw into sonde's error taxonomy, with a message a person can act on.
enum WebSocketErrorClassifier {
    static func classify(connectError error: Error, url: WebSocketURL) -> TaskError {
        let target = url.hostHeader
        if let error = error as? ChannelError, case .connectTimeout = error {
            return TaskError(code: .connectTimeout, message: "TCP connect to \(target) timed out (--connect-timeout)")
        }
        if let error = error as? IOError {
            return classify(errno: error.errnoCode, target: target, during: "connect")
        }
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first?.error {
            return classify(connectError: first, url: url)
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return TaskError(code: .tlsFailure, message: "TLS setup for \(target) failed: \(error)")
        }
        return TaskError(code: .connectionClosed, message: "could not connect to \(target): \(error)")
    }

    static func classify(handshakeError error: Error, url: WebSocketURL, tlsDone: Bool) -> TaskError {
        let target = url.hostHeader
        if let error = error as? NIOSSLError {
            let text = String(describing: error)
            let reason: String?
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                reason = text.contains("expired") ? "expired" : "verificationFailed"
            } else if case .unableToValidateCertificate = error {
                reason = "hostnameMismatch"
            } else {
                reason = nil
            }
            // BoringSSL's error text carries the reason as "…:OPENSSL_internal:REASON at file:line".
            let brief = text.range(of: "OPENSSL_internal:").map { range in
                String(text[range.upperBound...].prefix { $0.isLetter || $0 == "_" || $0.isNumber })
            } ?? text
            var message = "TLS handshake with \(target) failed: \(brief)"
            if reason != nil { message += " (give --cacert FILE for a private CA, or --insecure to skip verification)" }
            return TaskError(code: .tlsFailure, message: message, reason: reason)
        }
        if error is BoringSSLError || error is NIOSSLExtraError {
            return TaskError(code: .tlsFailure, message: "TLS with \(target) failed: \(error)")
        }
        if let error = error as? IOError {
            return classify(errno: error.errnoCode, target: target, during: tlsDone ? "the upgrade" : "the handshake")
        }
        return TaskError(code: .protocolError, message: "the WebSocket handshake with \(target) failed: \(error)")
    }

    static func classify(errno code: CInt, target: String, during step: String) -> TaskError {
        switch code {
        case ECONNREFUSED:
            return TaskError(code: .connectionRefused, message: "\(target) refused the connection (nothing listens on that port?)")
        case ECONNRESET:
            return TaskError(code: .connectionReset, message: "\(target) reset the connection during \(step)")
        case EHOSTUNREACH, ENETUNREACH:
            return TaskError(code: .hostUnreachable, message: "\(target) is unreachable: \(String(cString: strerror(code)))")
        case ETIMEDOUT:
            return TaskError(code: .connectTimeout, message: "TCP connect to \(target) timed out")
        default:
            return TaskError(code: .connectionClosed, message: "\(step) with \(target) failed: \(String(cString: strerror(code)))")
        }
    }
}
