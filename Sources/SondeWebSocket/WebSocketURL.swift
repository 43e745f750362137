import Foundation
import SondeCore

/// A `ws://` or `wss://` URL split into what the handshake needs. Parsing is strict: a URL
/// sonde cannot use is a `malformedURL` or `unsupportedScheme` error with a message, never a crash.
public struct WebSocketURL: Sendable, Equatable {
    public var secure: Bool
    /// Host name or address literal, without IPv6 brackets.
    public var host: String
    public var port: Int
    /// Path and query, as sent in the request line (`/` when empty).
    public var requestTarget: String
    /// The `Host` header value (brackets for IPv6, port when not the default).
    public var hostHeader: String

    /// True when `host` is an IPv4 or IPv6 literal (no DNS lookup, no SNI).
    public var hostIsAddress: Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    public init(_ text: String) throws(TaskError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw TaskError(code: .malformedURL, message: "\(text) is not a URL: give ws://host[:port]/path or wss://…")
        }
        switch scheme {
        case "ws": secure = false
        case "wss": secure = true
        default:
            throw TaskError(code: .unsupportedScheme,
                            message: "\(scheme):// is not a WebSocket scheme: sonde soak takes ws:// or wss:// URLs")
        }
        guard var host = components.host, !host.isEmpty else {
            throw TaskError(code: .malformedURL, message: "\(text) has no host")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        host = host.lowercased()
        self.host = host
        let defaultPort = secure ? 443 : 80
        if let port = components.port {
            guard (1...65535).contains(port) else {
                throw TaskError(code: .malformedURL, message: "\(text): port \(port) is out of range (1-65535)")
            }
            self.port = port
        } else {
            port = defaultPort
        }
        guard components.fragment == nil else {
            throw TaskError(code: .malformedURL, message: "\(text): a WebSocket URL must not have a fragment (RFC 6455 §3)")
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let bracketed = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }
}
