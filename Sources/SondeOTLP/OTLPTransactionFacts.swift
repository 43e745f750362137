import Foundation
import SondeCore

/// What OpenTelemetry's HTTP client conventions say of one transaction (a redirect hop), read
/// from sonde's `TransactionMetrics`: the stable attributes of `http.client.request.duration`
/// (`http.request.method`, `server.address`, `server.port`, `url.scheme`,
/// `network.protocol.name`/`version`, `http.response.status_code`, `error.type`) and its
/// duration in seconds. docs/otlp.md has the whole mapping.
///
/// A method the conventions do not know (`OTLPSettings.knownMethods`, case-sensitive) is
/// `_OTHER`, with the method sent in `originalMethod` (`http.request.method_original`), and its
/// span is named `HTTP`.
struct OTLPTransactionFacts {
    /// `http.request.method`: the method sent, or `_OTHER`.
    var method: String
    /// The method sent when `method` is `_OTHER`; nil for a known method.
    var originalMethod: String?
    /// The client span's name: the method, or `HTTP` for `_OTHER`.
    var spanName: String { originalMethod == nil ? method : "HTTP" }
    var serverAddress: String?
    var serverPort: Int?
    var scheme: String?
    /// "1.0", "1.1", "2", "3"; nil when no response came.
    var protocolVersion: String?
    var statusCode: Int?
    /// The status code as text for a 4xx/5xx answer, the task's error code for a hop that got no
    /// answer; nil for a success.
    var errorType: String?
    /// `phases.total` in seconds (the hop from its start to its last byte), nil when not measured.
    var durationSeconds: Double?
    /// "warm" on a reused connection, else "cold" (`sonde.connection`).
    var connection: String

    /// - Parameter taskError: the task's error, given for its last hop only (the hop it ended on).
    init(_ transaction: TransactionMetrics, taskError: TaskError?, knownMethods: Set<String>) {
        let (method, original) = Self.method(transaction.request.method, knownMethods: knownMethods)
        self.method = method
        originalMethod = original
        let url = URLComponents(string: transaction.request.url)
        scheme = url?.scheme?.lowercased()
        serverAddress = url?.host.map { $0.hasPrefix("[") && $0.hasSuffix("]") ? String($0.dropFirst().dropLast()) : $0 }
        serverPort = url?.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        protocolVersion = transaction.networkProtocolName.flatMap(Self.protocolVersion)
        statusCode = transaction.response?.statusCode
        if let status = statusCode, status >= 400 {
            errorType = String(status)
        } else if statusCode == nil {
            errorType = taskError?.code.rawValue ?? "_OTHER"
        }
        durationSeconds = transaction.phases.total.map { $0 / 1000 }
        connection = transaction.isReusedConnection ? "warm" : "cold"
    }

    /// `http.request.method` and `http.request.method_original` (nil when the method is known) of `sent`.
    static func method(_ sent: String, knownMethods: Set<String>) -> (method: String, original: String?) {
        knownMethods.contains(sent) ? (sent, nil) : ("_OTHER", sent)
    }

    /// sonde's protocol names (`networkProtocolName`) as `network.protocol.version`.
    static func protocolVersion(_ name: String) -> String? {
        switch name {
        case "http/1.0": return "1.0"
        case "http/1.1": return "1.1"
        case "h2", "h2c": return "2"
        case "h3": return "3"
        default: return nil
        }
    }

    /// The attributes both the duration histogram and the client span carry.
    var stableAttributes: [OTLPAttribute] {
        var attributes: [OTLPAttribute] = [.string("http.request.method", method)]
        if let serverAddress { attributes.append(.string("server.address", serverAddress)) }
        if let serverPort { attributes.append(.int("server.port", serverPort)) }
        if let scheme { attributes.append(.string("url.scheme", scheme)) }
        if let protocolVersion {
            attributes.append(.string("network.protocol.name", "http"))
            attributes.append(.string("network.protocol.version", protocolVersion))
        }
        if let statusCode { attributes.append(.int("http.response.status_code", statusCode)) }
        if let errorType { attributes.append(.string("error.type", errorType)) }
        return attributes
    }
}
