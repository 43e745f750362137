import CurlShim
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// One gRPC unary call (a request message, a response message and the call's status) over
/// HTTP/2 on libcurl: serve's grpc prober (`grpc.health.v1.Health/Check`) and, later, an OTLP
/// gRPC exporter (`opentelemetry.proto.collector.*.Export`).
///
/// Why libcurl rather than grpc-swift: a unary call is one HTTP/2 POST (RFC 9113) with a
/// 5-byte length prefix before the message and the status in the trailers (gRPC's
/// PROTOCOL-HTTP2.md), which sonde's engine already makes, with its TLS (OpenSSL, ALPN h2, the
/// certificate chain through CURLINFO_CERTINFO), its timeouts and its address pinning; libcurl
/// hands HTTP/2 trailers to the header callback like headers. grpc-swift 2 would add its
/// transport (grpc-swift-nio-transport), swift-protobuf and their code generation to a build that
/// a fresh `make run` must finish in under 6 minutes, for two one-field messages. The caller
/// encodes and decodes its messages (protobuf's wire format; swift-protobuf for larger ones).
///
/// Not done here: streaming calls, compression (`grpc-encoding`; a compressed response is
/// refused as INTERNAL), retries, a pooled channel (each call makes its own connection, as a
/// probe wants).
///
/// Threading: `call` blocks the calling thread for at most `timeoutMs`; the value is Sendable and
/// may be used from several threads (each call has its own libcurl handle).
public struct GRPCUnaryCall: Sendable {
    /// gRPC status codes (grpc/doc/statuscodes.md).
    public enum Code: Int, Sendable, CaseIterable {
        case ok = 0, cancelled, unknown, invalidArgument, deadlineExceeded, notFound, alreadyExists, permissionDenied,
             resourceExhausted, failedPrecondition, aborted, outOfRange, unimplemented, internalError, unavailable, dataLoss, unauthenticated
    }

    /// TLS for a call over `https`.
    public struct TLS: Sendable, Equatable {
        /// PEM roots the server's chain must reach; nil: libcurl's bundle.
        public var caFile: String?
        /// A client certificate and its key (PEM), both or neither.
        public var certFile: String?
        public var keyFile: String?
        /// Skip verifying the server's chain and name.
        public var insecureSkipVerify = false
        /// The name sent in SNI and verified; nil: the URL's host.
        public var serverName: String?
        /// Lowest and highest version, libcurl's CURL_SSLVERSION_* (`TLSv1.2` = 6, `TLSv1.3` = 7); nil: libcurl's default.
        public var minVersion: TLSVersion?
        public var maxVersion: TLSVersion?
        /// OpenSSL's key-exchange group list (`X25519:P-256`); nil: the library's.
        public var groups: String?

        public init() {}
    }

    public enum TLSVersion: Sendable, Equatable {
        case tls10, tls11, tls12, tls13
    }

    /// `http` (HTTP/2 with prior knowledge, h2c) or `https` (TLS, ALPN h2).
    public var scheme: String
    /// The host as the request names it (`:authority`, and with TLS the SNI and verified name
    /// unless `tls.serverName`).
    public var host: String
    public var port: Int
    /// The address to connect to (numeric, IPv4 or IPv6): the host is not resolved again.
    public var address: String
    /// `/package.Service/Method`.
    public var path: String
    /// The call's deadline (ms), sent as `grpc-timeout` and enforced by libcurl; 1 to 86,400,000.
    public var timeoutMs: Int
    public var tls = TLS()
    /// Extra request metadata (lowercase names; no `grpc-`/`:` names, which the call sets).
    public var metadata: [HeaderField] = []
    public var userAgent = "grpc-sonde/\(SondeVersion.current)"
    /// The largest response message accepted (bytes); gRPC's default receive limit.
    public var maxResponseBytes = 4 << 20

    public init(scheme: String, host: String, port: Int, address: String, path: String, timeoutMs: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.address = address
        self.path = path
        self.timeoutMs = timeoutMs
    }

    /// What a call came to.
    public struct Result: Sendable {
        /// The call's status: the server's `grpc-status`, or what gRPC's clients make of a call
        /// that did not get one (UNAVAILABLE for a connection that failed, DEADLINE_EXCEEDED at
        /// the deadline, the HTTP status's code per gRPC's http-grpc-status-mapping, INTERNAL for
        /// a malformed response).
        public var code: Code = .unknown
        /// The status's code as the server sent it (a number outside `Code` is UNKNOWN in `code`).
        public var rawCode: Int?
        /// `grpc-message`, percent-decoded.
        public var message = ""
        /// The response message (without its 5-byte prefix); nil unless the call was OK with one.
        public var response: [UInt8]?
        /// Whether the server answered at all (a response head came): a gRPC peer was reached.
        public var answered = false
        /// The HTTP status of the response, 0 without one.
        public var httpStatus = 0
        /// With TLS: the version (`TLSv1.3`) and the certificates the server sent, leaf first.
        public var tlsVersion: String?
        public var peerCertificates: [PeerCertificate] = []
        /// libcurl's failure, when the exchange failed below gRPC.
        public var transportError: TaskError?
        /// µs from the call's start to its end.
        public var durationMicros: Int64 = 0
    }

    /// Makes the call with `request` (an encoded protobuf message). Never throws: every failure is
    /// a status in the result.
    public func call(_ request: [UInt8]) -> Result {
        let start = monotonicMicroseconds()
        var result = Result()
        defer { result.durationMicros = monotonicMicroseconds() - start }
        guard (1...65_535).contains(port), (1...86_400_000).contains(timeoutMs), scheme == "http" || scheme == "https",
              request.count <= Int(UInt32.max) else {
            result.code = .invalidArgument
            result.message = "the call's port, deadline, scheme or message size is out of range"
            return result
        }
        if let problem = metadataProblem {
            result.code = .invalidArgument
            result.message = problem
            return result
        }
        let easy: EasyHandle
        do throws(TaskError) {
            easy = try EasyHandle()
            try configure(easy)
            try easy.setRequestBody(Self.frame(request))
        } catch {
            result.code = .internalError
            result.message = error.message
            result.transportError = error
            return result
        }
        easy.prepareForTransfer()
        var body: [UInt8] = []
        var oversized = false
        let limit = maxResponseBytes + 5
        easy.bodyConsumer = { chunk in
            guard body.count + chunk.count <= limit else {
                oversized = true
                return false
            }
            body.append(contentsOf: chunk)
            return true
        }
        let code = curl_easy_perform(easy.raw)
        easy.bodyConsumer = nil
        result.httpStatus = easy.long(CURLINFO_RESPONSE_CODE)
        result.answered = result.httpStatus > 0
        if scheme == "https", result.answered {
            result.tlsVersion = easy.tls?.version
            result.peerCertificates = CertificateInfoParser.parse(easy.certificateInfo())
        }
        let headers = easy.responseHeaders
        func header(_ name: String) -> String? { headers.last { $0.name.lowercased() == name }?.value }
        if oversized {
            result.code = .resourceExhausted
            result.message = "the response message is larger than \(maxResponseBytes) bytes"
            return result
        }
        guard code == CURLE_OK else {
            let failure = CurlErrorClassifier.classify(easy.failureFacts(code, url: url, redactor: Redactor(), viaProxy: false, overQUIC: false))
            result.transportError = failure
            result.code = failure.code == .timedOut ? .deadlineExceeded : .unavailable
            result.message = failure.message
            return result
        }
        guard easy.long(CURLINFO_HTTP_VERSION) == Int(CURL_HTTP_VERSION_2_0) else {
            result.code = .unavailable
            result.message = "the server did not speak HTTP/2"
            return result
        }
        guard result.httpStatus == 200 else {
            result.code = Self.code(httpStatus: result.httpStatus)
            result.message = "HTTP status \(result.httpStatus)"
            return result
        }
        guard let statusText = header("grpc-status") else {
            result.code = .internalError
            result.message = "the response has no grpc-status"
            return result
        }
        guard let raw = Int(statusText.trimmingCharacters(in: .whitespaces)), (0...999_999).contains(raw) else {
            result.code = .unknown
            result.message = "grpc-status '\(statusText.prefix(32))' is not a number"
            return result
        }
        result.rawCode = raw
        result.code = Code(rawValue: raw) ?? .unknown
        result.message = Self.percentDecoded(header("grpc-message") ?? "")
        guard result.code == .ok else { return result }
        switch Self.unframe(body) {
        case .success(let message): result.response = message
        case .failure(let problem):
            result.code = .internalError
            result.message = problem.description
        }
        return result
    }

    /// Why `metadata` or `userAgent` cannot be sent (a name that is not a lowercase token, one the
    /// call sets itself, a control character that would split a header line), nil when they can.
    var metadataProblem: String? {
        func hasControl(_ text: String) -> Bool { text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }
        if hasControl(userAgent) { return "the user agent holds a control character" }
        let reserved = ["content-type", "te", "user-agent", "host"]
        for field in metadata {
            let name = field.name
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }),
                  !name.hasPrefix("grpc-"), !reserved.contains(name) else {
                return "metadata name '\(name.prefix(64))' is not a lowercase token the call may send"
            }
            if hasControl(field.value) { return "metadata '\(name)' holds a control character" }
        }
        return nil
    }

    /// The URL libcurl is given: the host (or `tls.serverName`) as named, pinned to `address` by CURLOPT_RESOLVE.
    var url: String {
        let name = scheme == "https" ? (tls.serverName ?? host) : host
        return "\(scheme)://\(Self.bracketed(name)):\(port)\(path)"
    }

    static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    private func configure(_ easy: EasyHandle) throws(TaskError) {
        try easy.set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try easy.set(CURLOPT_USERAGENT, string: userAgent)
        try easy.setURL(url)
        let name = scheme == "https" ? (tls.serverName ?? host) : host
        // CURLOPT_RESOLVE takes a numeric host too (libcurl then skips it): always pin to the address.
        try easy.setResolve(["\(Self.bracketed(name)):\(port):\(Self.bracketed(address))"])
        try easy.set(CURLOPT_IPRESOLVE, Int(address.contains(":") ? CURL_IPRESOLVE_V6 : CURL_IPRESOLVE_V4))
        // h2c with prior knowledge; over TLS, ALPN offers h2 (a server that picks http/1.1 is refused after).
        try easy.set(CURLOPT_HTTP_VERSION, Int(scheme == "https" ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
        try easy.set(CURLOPT_TIMEOUT_MS, timeoutMs)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, timeoutMs)
        try easy.set(CURLOPT_FORBID_REUSE, 1)
        try easy.set(CURLOPT_PROXY, string: "")
        if scheme == "https" {
            try easy.set(CURLOPT_CERTINFO, 1)
            if tls.insecureSkipVerify {
                try easy.set(CURLOPT_SSL_VERIFYPEER, 0)
                try easy.set(CURLOPT_SSL_VERIFYHOST, 0)
            }
            if let caFile = tls.caFile {
                try easy.set(CURLOPT_CAINFO, string: caFile)
            } else if let bundle = CurlLibrary.caBundleOverride {
                try easy.set(CURLOPT_CAINFO, string: bundle)
            }
            if let certFile = tls.certFile, let keyFile = tls.keyFile {
                try easy.set(CURLOPT_SSLCERT, string: certFile)
                try easy.set(CURLOPT_SSLKEY, string: keyFile)
            }
            if let groups = tls.groups { try easy.set(CURLOPT_SSL_EC_CURVES, string: groups) }
            if tls.minVersion != nil || tls.maxVersion != nil {
                try easy.set(CURLOPT_SSLVERSION, Self.sslVersion(min: tls.minVersion, max: tls.maxVersion))
            }
        }
        var headers = [HeaderField(name: "Content-Type", value: "application/grpc"), HeaderField(name: "TE", value: "trailers"),
                       HeaderField(name: "grpc-timeout", value: "\(timeoutMs)m")]
        headers += metadata
        try easy.setHeaders(headers, removing: ["Accept", "Expect"])
    }

    /// CURLOPT_SSLVERSION's value: the minimum in the low bits, the maximum shifted (0: libcurl's default).
    static func sslVersion(min: TLSVersion?, max: TLSVersion?) -> Int {
        func low(_ version: TLSVersion) -> Int {
            switch version {
            case .tls10: return Int(CURL_SSLVERSION_TLSv1_0)
            case .tls11: return Int(CURL_SSLVERSION_TLSv1_1)
            case .tls12: return Int(CURL_SSLVERSION_TLSv1_2)
            case .tls13: return Int(CURL_SSLVERSION_TLSv1_3)
            }
        }
        return (min.map(low) ?? Int(CURL_SSLVERSION_DEFAULT)) | (max.map { low($0) << 16 } ?? 0)
    }

    /// A message with gRPC's prefix: a compressed flag (0) and its length, 4 bytes big-endian.
    public static func frame(_ message: [UInt8]) -> [UInt8] {
        let length = UInt32(truncatingIfNeeded: message.count)
        return [0, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + message
    }

    /// The one message of a unary response body; the problem when the body is not exactly one
    /// uncompressed prefixed message.
    public static func unframe(_ body: [UInt8]) -> Swift.Result<[UInt8], UnframeProblem> {
        guard body.count >= 5 else { return .failure(UnframeProblem("the response has no message (\(body.count) bytes)")) }
        guard body[0] == 0 else { return .failure(UnframeProblem("the response message is compressed (not supported)")) }
        let length = Int(body[1]) << 24 | Int(body[2]) << 16 | Int(body[3]) << 8 | Int(body[4])
        guard body.count == 5 + length else {
            return .failure(UnframeProblem("the response's message prefix says \(length) bytes, the body has \(body.count - 5)"))
        }
        return .success(Array(body[5...]))
    }

    public struct UnframeProblem: Error, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// gRPC's code for an HTTP status that is not 200 (grpc/doc/http-grpc-status-mapping.md).
    public static func code(httpStatus: Int) -> Code {
        switch httpStatus {
        case 400: return .internalError
        case 401: return .unauthenticated
        case 403: return .permissionDenied
        case 404: return .unimplemented
        case 429, 502, 503, 504: return .unavailable
        default: return .unknown
        }
    }

    /// `grpc-message`'s percent-encoding undone (bytes that do not decode are kept as sent).
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        return text.removingPercentEncoding ?? text
    }
}
