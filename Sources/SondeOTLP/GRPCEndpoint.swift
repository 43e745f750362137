import Foundation

/// An OTLP gRPC endpoint (`http://collector:4317`, `https://[::1]:4317`): scheme, host and port,
/// nothing else (a path would be ignored by a gRPC client, so it is refused rather than
/// dropped). The port defaults to the scheme's (80, 443), as a URL's does.
struct GRPCEndpoint: Equatable {
    /// `http` (HTTP/2 prior knowledge) or `https` (ALPN h2).
    var scheme: String
    /// The host as written, IPv6 literals without brackets.
    var host: String
    var port: Int

    init?(_ text: String) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", var host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
              components.path.isEmpty || components.path == "/" else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65_535).contains(port) else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }
}
