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

/// One TLS handshake through libcurl with CURLOPT_CONNECT_ONLY: the connection is made, the
/// handshake done and read, and the connection closed; no HTTP request is sent.
///
/// Threading: each call makes its own easy handle, so calls may run on several threads at once
/// (libcurl's global init is `CurlLibrary.initialise`'s).
enum TLSHandshake {
    static func perform(_ request: HandshakeRequest, to endpoint: TLSEndpoint) -> HandshakeOutcome {
        CurlLibrary.initialise()
        let started = monotonicMicroseconds()
        func elapsed() -> Double { Double(monotonicMicroseconds() - started) / 1000 }
        guard let handle = curl_easy_init() else {
            return HandshakeOutcome(kind: .clientCannot, curlCode: -1, detail: "libcurl could not create a handle", peer: nil,
                                    certificates: [], verifyResult: 0, milliseconds: 0)
        }
        defer { curl_easy_cleanup(handle) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        var resolveList: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(resolveList) }

        var setupCode = CURLE_OK
        func set(_ option: CURLoption, _ value: Int) {
            if setupCode == CURLE_OK { setupCode = sonde_easy_setopt_long(handle, option, value) }
        }
        func set(_ option: CURLoption, _ text: String) {
            if setupCode == CURLE_OK { setupCode = text.withCString { sonde_easy_setopt_pointer(handle, option, $0) } }
        }
        _ = sonde_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeRawPointer(errorBuffer))
        set(CURLOPT_URL, endpoint.baseURL)
        set(CURLOPT_PROTOCOLS_STR, "https")
        set(CURLOPT_NOSIGNAL, 1)
        let transfer = TransferState(handle: handle)
        if request.fetch {
            set(CURLOPT_URL, endpoint.url)
            set(CURLOPT_USERAGENT, "sonde-audit")
            if setupCode == CURLE_OK { setupCode = sonde_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, auditHeaderCallback) }
            if setupCode == CURLE_OK {
                setupCode = sonde_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, UnsafeRawPointer(Unmanaged.passUnretained(transfer).toOpaque()))
            }
            if setupCode == CURLE_OK { setupCode = sonde_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, auditStopAtBody) }
        } else {
            set(CURLOPT_CONNECT_ONLY, 1)
        }
        set(CURLOPT_FRESH_CONNECT, 1)
        set(CURLOPT_FORBID_REUSE, 1)
        set(CURLOPT_PROXY, "")
        if !endpoint.resolve.isEmpty {
            for entry in endpoint.resolve { resolveList = curl_slist_append(resolveList, entry) }
            if setupCode == CURLE_OK { setupCode = sonde_easy_setopt_pointer(handle, CURLOPT_RESOLVE, UnsafeRawPointer(resolveList)) }
        }
        set(CURLOPT_CONNECTTIMEOUT_MS, endpoint.connectTimeoutMs)
        set(CURLOPT_TIMEOUT_MS, endpoint.probeTimeoutMs)
        set(CURLOPT_SSLVERSION, request.sslVersion)
        // No session cache: every probe is a full handshake (a resumed session would skip the
        // negotiation being measured).
        set(CURLOPT_SSL_SESSIONID_CACHE, 0)
        set(CURLOPT_SSL_VERIFYPEER, request.verifyPeer ? 1 : 0)
        set(CURLOPT_SSL_VERIFYHOST, 0)
        if let ca = endpoint.caFile { set(CURLOPT_CAINFO, ca) } else if let bundle = CurlLibrary.caBundleOverride { set(CURLOPT_CAINFO, bundle) }
        if request.requestStatus { set(CURLOPT_SSL_VERIFYSTATUS, 1) }
        if request.certificateInfo { set(CURLOPT_CERTINFO, 1) }
        if setupCode != CURLE_OK {
            return HandshakeOutcome(kind: .clientCannot, curlCode: Int(setupCode.rawValue),
                                    detail: "libcurl refused an option: \(String(cString: curl_easy_strerror(setupCode)))",
                                    peer: nil, certificates: [], verifyResult: 0, milliseconds: elapsed())
        }
        // A cipher list the TLS library cannot use is refused here (CURLE_SSL_CIPHER) or at connect.
        if let list = request.cipherList {
            let code = list.withCString { sonde_easy_setopt_pointer(handle, CURLOPT_SSL_CIPHER_LIST, $0) }
            if code != CURLE_OK {
                return HandshakeOutcome(kind: .clientCannot, curlCode: Int(code.rawValue), detail: "cipher list \(list) refused by libcurl",
                                        peer: nil, certificates: [], verifyResult: 0, milliseconds: elapsed())
            }
        }
        if let suites = request.tls13Ciphers {
            let code = suites.withCString { sonde_easy_setopt_pointer(handle, CURLOPT_TLS13_CIPHERS, $0) }
            if code != CURLE_OK {
                return HandshakeOutcome(kind: .clientCannot, curlCode: Int(code.rawValue), detail: "TLS 1.3 suites \(suites) refused by libcurl",
                                        peer: nil, certificates: [], verifyResult: 0, milliseconds: elapsed())
            }
        }
        let code = withExtendedLifetime(transfer) { curl_easy_perform(handle) }
        var verify = 0
        _ = sonde_easy_getinfo_long(handle, CURLINFO_SSL_VERIFYRESULT, &verify)
        let detail = String(cString: errorBuffer)
        let certificates = request.certificateInfo ? certificateLines(handle) : []
        var status = 0
        _ = sonde_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        // The write callback stops a fetch at the body's first bytes (CURLE_WRITE_ERROR): the
        // response came, the handshake completed.
        let stoppedAtBody = request.fetch && code == CURLE_WRITE_ERROR && status > 0
        return HandshakeOutcome(kind: stoppedAtBody ? .completed : classify(code, detail: detail), curlCode: Int(code.rawValue),
                                detail: stoppedAtBody ? "" : detail, peer: transfer.peer, certificates: certificates, verifyResult: verify,
                                milliseconds: elapsed(), status: status > 0 ? status : nil, headers: transfer.headers)
    }

    /// The handshake's facts from the transfer's TLS session (valid only during the transfer).
    static func readPeer(_ handle: UnsafeMutableRawPointer) -> PeerFacts? {
        var info = sonde_tls_peer()
        guard sonde_read_tls_peer(handle, &info) == 1 else { return nil }
        return PeerFacts(version: fixed(&info.version), cipher: fixed(&info.cipher), group: fixed(&info.group),
                         keyType: fixed(&info.key_type), keyBits: Int(info.key_bits), keyGroup: fixed(&info.key_group),
                         signature: fixed(&info.signature), signatureDigest: fixed(&info.signature_digest),
                         peerChainLength: Int(info.peer_chain_length), stapledOCSPLength: Int(info.stapled_ocsp_length))
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

    private static func certificateLines(_ handle: UnsafeMutableRawPointer) -> [[String]] {
        var info: UnsafeMutablePointer<curl_certinfo>? = nil
        guard sonde_easy_getinfo_certinfo(handle, &info) == CURLE_OK, let info, let lists = info.pointee.certinfo else { return [] }
        var result: [[String]] = []
        // A server sends a handful of certificates; more than 16 are not read.
        for index in 0..<min(16, Int(max(0, info.pointee.num_of_certs))) {
            var lines: [String] = []
            var node = lists[index]
            while let current = node, lines.count < 256 {
                if let data = current.pointee.data { lines.append(String(cString: data)) }
                node = current.pointee.next
            }
            result.append(lines)
        }
        return result
    }
}

private func fixed<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
}

/// What a fetching handshake's callbacks collect, on the thread that runs `curl_easy_perform`: the
/// TLS facts (read at the first header line, when the session exists) and the last response
/// block's headers (at most `maxHeaderBytes`).
private final class TransferState {
    let handle: UnsafeMutableRawPointer
    var peer: PeerFacts?
    var headers: [HeaderField] = []
    var bytes = 0
    static let maxHeaderBytes = 64 * 1024

    init(handle: UnsafeMutableRawPointer) { self.handle = handle }

    func add(_ line: UnsafeRawBufferPointer) {
        if peer == nil { peer = TLSHandshake.readPeer(handle) }
        bytes += line.count
        guard bytes <= Self.maxHeaderBytes else { return }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            headers.removeAll()
        } else if let colon = text.firstIndex(of: ":") {
            headers.append(HeaderField(name: String(text[..<colon]),
                                       value: text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
    }
}

private let auditHeaderCallback: sonde_data_callback = { buffer, size, count, userdata in
    let length = size * count
    guard let buffer, let userdata else { return length }
    Unmanaged<TransferState>.fromOpaque(userdata).takeUnretainedValue().add(UnsafeRawBufferPointer(start: buffer, count: length))
    return length
}

/// Stops a fetch at the body's first bytes: the headers are all the audit reads.
private let auditStopAtBody: sonde_data_callback = { _, _, _, _ in 0 }
