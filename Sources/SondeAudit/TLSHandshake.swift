import CurlShim
import Foundation
import SondeCore
import SondeHTTP

/// Where the audit connects: a host (name or IP literal), a port, the CA file to verify with
/// (nil: the TLS library's default store) and the bounds of each handshake.
public struct TLSEndpoint: Sendable, Equatable {
    public var host: String
    /// 1…65535 (checked where the endpoint is made from a URL).
    public var port: Int
    public var caFile: String?
    /// The TCP connect bound of one handshake (ms).
    public var connectTimeoutMs: Int
    /// The whole bound of one handshake or request (ms).
    public var probeTimeoutMs: Int
    /// The URL a fetching handshake GETs (the audited URL); `https://host:port/` by default.
    public var url: String
    /// CURLOPT_RESOLVE entries (`HOST:PORT:ADDRESS[,ADDRESS]…`), `AuditOptions.resolve`.
    public var resolve: [String]

    public init(host: String, port: Int, caFile: String? = nil, connectTimeoutMs: Int = 2_000, probeTimeoutMs: Int = 3_000, url: String? = nil,
                resolve: [String] = []) {
        self.host = host
        self.resolve = resolve
        self.port = port
        self.url = url ?? Self.baseURL(host: host, port: port)
        self.caFile = caFile
        self.connectTimeoutMs = connectTimeoutMs
        self.probeTimeoutMs = probeTimeoutMs
    }

    /// `https://host:port/`, an IPv6 literal in brackets.
    var baseURL: String { Self.baseURL(host: host, port: port) }

    static func baseURL(host: String, port: Int) -> String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "https://\(bracketed):\(port)/"
    }
}

/// What one handshake offers: the protocol versions (CURLOPT_SSLVERSION), the TLS 1.2-and-older
/// cipher list (CURLOPT_SSL_CIPHER_LIST, where `@SECLEVEL=0` goes), the TLS 1.3 suites
/// (CURLOPT_TLS13_CIPHERS), and what to ask of the server.
struct HandshakeRequest: Sendable {
    var sslVersion: Int
    var cipherList: String?
    var tls13Ciphers: String?
    /// Verify the chain against the endpoint's CA file (the host name is checked by `AuditRules`
    /// from the SAN, not here).
    var verifyPeer = false
    /// Ask for a stapled OCSP response and fail without one (CURLOPT_SSL_VERIFYSTATUS).
    var requestStatus = false
    /// Collect the served certificates (CURLOPT_CERTINFO).
    var certificateInfo = false
    /// GET the endpoint's URL instead of stopping after the handshake (CURLOPT_CONNECT_ONLY):
    /// libcurl 8 hands out the TLS session only during a transfer, so the handshake's facts
    /// (`PeerFacts`) and the response headers are read in the header callback. The body is not read.
    var fetch = false
}

/// The facts the shim reads from a completed handshake (`sonde_tls_peer`).
struct PeerFacts: Sendable, Equatable {
    var version: String
    var cipher: String
    var group: String
    var keyType: String
    var keyBits: Int
    var keyGroup: String
    var signature: String
    var signatureDigest: String
    /// -1 when unknown.
    var peerChainLength: Int
    var stapledOCSPLength: Int
}

extension PeerFacts {
    /// The facts of the shim's `sonde_tls_peer` (`EasyHandle.tlsPeer`).
    init(_ info: sonde_tls_peer) {
        var info = info
        self.init(version: fixed(&info.version), cipher: fixed(&info.cipher), group: fixed(&info.group),
                  keyType: fixed(&info.key_type), keyBits: Int(info.key_bits), keyGroup: fixed(&info.key_group),
                  signature: fixed(&info.signature), signatureDigest: fixed(&info.signature_digest),
                  peerChainLength: Int(info.peer_chain_length), stapledOCSPLength: Int(info.stapled_ocsp_length))
    }
}

/// How one handshake ended.
struct HandshakeOutcome: Sendable {
    enum Kind: Sendable, Equatable {
        /// The handshake completed.
        case completed
        /// The server refused what was offered (an alert, or it closed the connection).
        case refused
        /// The client's TLS library cannot offer it (a suite or version it lacks): unknown either way.
        case clientCannot
        /// No TCP connection (refused, unreachable, no address).
        case unreachable
        /// The connect or handshake bound ran out.
        case timedOut
        /// The handshake completed, but the chain did not verify (`verifyResult` says why).
        case unverified
        /// A stapled OCSP response was asked for and none, or a bad one, came (`detail` says which).
        case badStatus
    }

    var kind: Kind
    var curlCode: Int
    /// libcurl's error text ("" on success).
    var detail: String
    var peer: PeerFacts?
    /// CURLINFO_CERTINFO's lines per certificate, leaf first (when asked for).
    var certificates: [[String]]
    /// CURLINFO_SSL_VERIFYRESULT: OpenSSL's X509_V_* code (0: ok).
    var verifyResult: Int
    /// Wall time of the probe (ms).
    var milliseconds: Double
    /// A fetching handshake's response status and headers (the last response block).
    var status: Int? = nil
    var headers: [HeaderField] = []

    /// The first response header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// One line for evidence: "TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256 x25519" or the failure.
    var summary: String {
        if kind == .completed || kind == .unverified || kind == .badStatus, let peer {
            let group = peer.group.isEmpty ? "" : " \(peer.group)"
            let failure = kind == .completed ? "" : " (\(detail))"
            return "\(peer.version) \(peer.cipher)\(group)\(failure)"
        }
        return detail.isEmpty ? "\(kind) (curl \(curlCode))" : "\(kind): \(detail)"
    }
}

/// One TLS handshake on SondeHTTP's `EasyHandle` with CURLOPT_CONNECT_ONLY: the connection is
/// made, the handshake done and read, and the connection closed; no HTTP request is sent (a
/// fetching handshake, `HandshakeRequest.fetch`, GETs the URL and stops at the body).
///
/// Threading: each call makes its own easy handle, so calls may run on several threads at once
/// (libcurl's global init is `CurlLibrary.initialise`'s, which `EasyHandle` calls).
enum TLSHandshake {
    /// The most certificates (16) and lines per certificate (256) read from CURLINFO_CERTINFO: a
    /// server sends a handful.
    static let maxCertificates = 16
    static let maxCertificateLines = 256
    /// The most response header bytes kept by a fetching handshake (64 KiB; the rest are dropped).
    static let maxHeaderBytes = 64 * 1024

    static func perform(_ request: HandshakeRequest, to endpoint: TLSEndpoint) -> HandshakeOutcome {
        let started = monotonicMicroseconds()
        func elapsed() -> Double { Double(monotonicMicroseconds() - started) / 1000 }
        func cannot(_ code: Int, _ detail: String) -> HandshakeOutcome {
            HandshakeOutcome(kind: .clientCannot, curlCode: code, detail: detail, peer: nil, certificates: [], verifyResult: 0,
                             milliseconds: elapsed())
        }
        let easy: EasyHandle
        do {
            easy = try EasyHandle()
        } catch {
            return HandshakeOutcome(kind: .clientCannot, curlCode: -1, detail: "libcurl could not create a handle", peer: nil,
                                    certificates: [], verifyResult: 0, milliseconds: 0)
        }
        do {
            try easy.set(CURLOPT_PROTOCOLS_STR, string: "https")
            if request.fetch {
                try easy.setURL(endpoint.url)
                try easy.set(CURLOPT_USERAGENT, string: "sonde-audit")
                easy.readsTLSPeer = true
            } else {
                try easy.setURL(endpoint.baseURL)
                try easy.set(CURLOPT_CONNECT_ONLY, 1)
            }
            try easy.set(CURLOPT_FRESH_CONNECT, 1)
            try easy.set(CURLOPT_FORBID_REUSE, 1)
            try easy.set(CURLOPT_PROXY, string: "")
            if !endpoint.resolve.isEmpty { try easy.setResolve(endpoint.resolve) }
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, endpoint.connectTimeoutMs)
            try easy.set(CURLOPT_TIMEOUT_MS, endpoint.probeTimeoutMs)
            try easy.set(CURLOPT_SSLVERSION, request.sslVersion)
            // No session cache: every probe is a full handshake (a resumed session would skip the
            // negotiation being measured).
            try easy.set(CURLOPT_SSL_SESSIONID_CACHE, 0)
            try easy.set(CURLOPT_SSL_VERIFYPEER, request.verifyPeer ? 1 : 0)
            try easy.set(CURLOPT_SSL_VERIFYHOST, 0)
            if let ca = endpoint.caFile {
                try easy.set(CURLOPT_CAINFO, string: ca)
            } else if let bundle = CurlLibrary.caBundleOverride {
                try easy.set(CURLOPT_CAINFO, string: bundle)
            }
            if request.requestStatus { try easy.set(CURLOPT_SSL_VERIFYSTATUS, 1) }
            if request.certificateInfo { try easy.set(CURLOPT_CERTINFO, 1) }
        } catch {
            let code = error.curlCode.map { CURLcode(UInt32(clamping: $0)) } ?? CURLE_FAILED_INIT
            return cannot(Int(code.rawValue), "libcurl refused an option: \(EasyHandle.describe(code))")
        }
        // A cipher list the TLS library cannot use is refused here (CURLE_SSL_CIPHER) or at connect.
        if let list = request.cipherList {
            do { try easy.set(CURLOPT_SSL_CIPHER_LIST, string: list) } catch {
                return cannot(error.curlCode ?? -1, "cipher list \(list) refused by libcurl")
            }
        }
        if let suites = request.tls13Ciphers {
            do { try easy.set(CURLOPT_TLS13_CIPHERS, string: suites) } catch {
                return cannot(error.curlCode ?? -1, "TLS 1.3 suites \(suites) refused by libcurl")
            }
        }
        // A fetch stops at the body's first bytes: the headers are all the audit reads.
        if request.fetch { easy.bodyConsumer = { _ in false } }
        let code = easy.perform()
        easy.bodyConsumer = nil
        let verify = easy.long(CURLINFO_SSL_VERIFYRESULT)
        let detail = easy.errorDetail
        let certificates = request.certificateInfo
            ? easy.certificateInfo(maxCertificates: Self.maxCertificates, maxLines: Self.maxCertificateLines) : []
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        // The consumer stops a fetch at the body's first bytes (CURLE_WRITE_ERROR): the response
        // came, the handshake completed.
        let stoppedAtBody = request.fetch && code == CURLE_WRITE_ERROR && status > 0
        return HandshakeOutcome(kind: stoppedAtBody ? .completed : classify(code, detail: detail), curlCode: Int(code.rawValue),
                                detail: stoppedAtBody ? "" : detail, peer: easy.tlsPeer.map(PeerFacts.init),
                                certificates: certificates, verifyResult: verify, milliseconds: elapsed(), status: status > 0 ? status : nil,
                                headers: request.fetch ? Self.bounded(easy.responseHeaders) : [])
    }

    /// The leading headers whose lines (`name: value` and CRLF) fit in `maxHeaderBytes`.
    static func bounded(_ headers: [HeaderField]) -> [HeaderField] {
        var bytes = 0
        var kept: [HeaderField] = []
        for header in headers {
            bytes += header.name.utf8.count + header.value.utf8.count + 4
            guard bytes <= maxHeaderBytes else { break }
            kept.append(header)
        }
        return kept
    }

    /// What a libcurl result means for the audit. A local refusal (OpenSSL found nothing to offer:
    /// "no ciphers available", "no protocols available") is the client's, not the server's.
    static func classify(_ code: CURLcode, detail: String) -> HandshakeOutcome.Kind {
        switch code {
        case CURLE_OK: return .completed
        case CURLE_SSL_CIPHER, CURLE_NOT_BUILT_IN, CURLE_UNKNOWN_OPTION: return .clientCannot
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST: return .unreachable
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_PEER_FAILED_VERIFICATION: return .unverified
        case CURLE_SSL_INVALIDCERTSTATUS: return .badStatus
        default:
            let lower = detail.lowercased()
            if lower.contains("no ciphers available") || lower.contains("no protocols available")
                || lower.contains("no cipher match") || lower.contains("no suitable signature algorithm") {
                return .clientCannot
            }
            return .refused
        }
    }
}

private func fixed<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
}
