import CurlShim

/// A TLS protocol version the audit probes, oldest first. SSL 2 and 3 are not probed: no OpenSSL 3
/// client can speak them (testssl.sh reaches them with its own sockets).
public enum TLSProtocolVersion: Int, Sendable, CaseIterable, Comparable {
    case tls1_0 = 0, tls1_1, tls1_2, tls1_3

    /// The name OpenSSL's SSL_get_version and the report use ("TLSv1.2"; "TLSv1.0" for OpenSSL's "TLSv1").
    public var name: String {
        switch self {
        case .tls1_0: return "TLSv1.0"
        case .tls1_1: return "TLSv1.1"
        case .tls1_2: return "TLSv1.2"
        case .tls1_3: return "TLSv1.3"
        }
    }

    /// The version OpenSSL names `text` ("TLSv1" is 1.0), nil for any other.
    public init?(openSSLName text: String) {
        switch text {
        case "TLSv1", "TLSv1.0": self = .tls1_0
        case "TLSv1.1": self = .tls1_1
        case "TLSv1.2": self = .tls1_2
        case "TLSv1.3": self = .tls1_3
        default: return nil
        }
    }

    /// The version of a wire code point (0x0301…0x0304), nil for any other.
    public init?(code: UInt16) {
        guard (0x0301...0x0304).contains(code) else { return nil }
        self.init(rawValue: Int(code) - 0x0301)
    }

    /// CURLOPT_SSLVERSION's value for exactly this version: the minimum (CURL_SSLVERSION_TLSv1_x)
    /// in the low 16 bits, the same as maximum (CURL_SSLVERSION_MAX_TLSv1_x = min << 16) above
    /// (https://curl.se/libcurl/c/CURLOPT_SSLVERSION.html).
    var curlExactly: Int {
        let minimum = Int(CURL_SSLVERSION_TLSv1_0) + rawValue
        return minimum | (minimum << 16)
    }

    /// From this version up to the library's highest.
    var curlAtLeast: Int { Int(CURL_SSLVERSION_TLSv1_0) + rawValue }

    public static func < (lhs: TLSProtocolVersion, rhs: TLSProtocolVersion) -> Bool { lhs.rawValue < rhs.rawValue }
}
