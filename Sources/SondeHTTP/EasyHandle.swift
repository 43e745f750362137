import CurlShim
#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// A libcurl easy handle behind a Swift type, in the shape of swift-corelibs-foundation's
/// `EasyHandle`: one named setter per curl option (each documented with its curl page), typed
/// C shims for the variadic calls, and errors thrown instead of trapping.
///
/// Threading: an `EasyHandle` is confined to the thread that drives its `MultiHandle` (or, without
/// one, the thread that calls `perform()`); libcurl invokes the callbacks below on that thread,
/// during `curl_multi_perform` or `perform()`.
///
/// Every sonde request goes through this type (one libcurl path): the probe engine, the transfer
/// trials, and `sonde audit`'s handshakes and fetches (SondeAudit, through the `package` members).
///
/// Per-transfer state (response headers, body byte count, TLS facts, request body) is reset by
/// `prepareForTransfer()` before every transfer; the connection pool is the multi handle's.
public final class EasyHandle {
    /// The raw `CURL *`. Valid for the lifetime of this object.
    let raw: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Where the C shim keeps the socket libcurl opened last when `sonde_easy_track_socket` is on
    /// (-1: none open). Freed after `curl_easy_cleanup`, whose socket closing writes to it.
    let socketSlot: UnsafeMutablePointer<Int32>
    /// Where the C shim's CURLOPT_PREREQFUNCTION writes the monotonic µs at which this transfer's
    /// connection was ready and its request about to leave (0: not yet). Freed in `deinit`.
    private let requestStartSlot: UnsafeMutablePointer<Int64>
    /// libcurl's informational text of the current transfer, once `collectText()` turned it on
    /// (nil before). Freed after `curl_easy_cleanup`.
    private var textLog: UnsafeMutablePointer<sonde_text_log>?
    /// The CURLOPT_URL libcurl holds for this handle (set only through `setURL`); nil before one.
    private var urlSet: String?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    private var connectToList: UnsafeMutablePointer<curl_slist>?

    // Per-transfer state, written by callbacks.
    package private(set) var responseHeaders: [HeaderField] = []
    /// The last response's field strings, reused when the next repeats them.
    private var headerStrings = HeaderStringMemo()
    /// The status code of the response block being received (from its status line); nil before one.
    private var blockStatus: Int?
    private(set) var bodyBytesReceived: Int64 = 0
    /// Set when libcurl decodes the body (`configureTransport`): the decoded body's bound.
    var decodedBodyLimit: DecodedBodyLimit?
    /// The decoded body went past `decodedBodyLimit`: the write callback cut the transfer.
    private(set) var decodedBodyLimitExceeded = false
    private(set) var tls: NegotiatedTLS?
    private var requestBody: [UInt8] = []
    private var requestBodyOffset = 0
    /// Monotonic µs when the last body byte was handed to libcurl; nil until then.
    private(set) var requestBodyEndMicros: Int64?
    /// Monotonic µs of the first header callback after the request started (libcurl had read the
    /// response's first bytes); nil until then. Headers before it (a proxy's CONNECT answer) do
    /// not count.
    private(set) var firstResponseByteMicros: Int64?
    /// Receives every chunk of the response body as libcurl delivers it; returning false aborts
    /// the transfer (CURLE_WRITE_ERROR). nil: the body is only counted.
    package var bodyConsumer: ((UnsafeRawBufferPointer) -> Bool)?
    /// Fills libcurl's upload buffer (CURLOPT_READFUNCTION): the bytes written, 0 at the end, or
    /// `CURL_READFUNC_ABORT` to abort. Takes precedence over `setRequestBody`'s bytes.
    var bodySource: ((UnsafeMutableRawBufferPointer) -> Int)?
    /// Read the TLS peer's facts (`tlsPeer`) at each transfer's first status line: off by
    /// default (the probe engine reads the lighter `tls`).
    package var readsTLSPeer = false
    /// The handshake's facts (`sonde_read_tls_peer`: version, cipher, group, key, signature, chain
    /// length, stapled OCSP), read during the transfer when `readsTLSPeer` is on; nil before a
    /// status line, without TLS, or when the shim cannot read the session.
    package private(set) var tlsPeer: sonde_tls_peer?
    /// The 1xx responses before the final one (e.g. 104 Upload Resumption Supported), in order.
    private(set) var informationalHeads: [(status: Int, headers: [HeaderField])] = []

    /// What the TLS library negotiated, read during the transfer.
    struct NegotiatedTLS: Equatable {
        var version: String
        var cipher: String
        var alpn: String
        var sessionReused: Bool
    }

    package init() throws(TaskError) {
        CurlLibrary.initialise()
        guard let handle = curl_easy_init() else {
            throw TaskError(code: .internalError, message: "libcurl could not create an easy handle (out of memory?)")
        }
        raw = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        socketSlot = .allocate(capacity: 1)
        socketSlot.initialize(to: -1)
        requestStartSlot = .allocate(capacity: 1)
        requestStartSlot.initialize(to: 0)
        let me = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(errorBuffer))
        try set(CURLOPT_NOSIGNAL, 1)
        try setCallback(CURLOPT_HEADERFUNCTION, easyHeaderCallback)
        try set(CURLOPT_HEADERDATA, pointer: UnsafeRawPointer(me))
        try setCallback(CURLOPT_WRITEFUNCTION, easyWriteCallback)
        try set(CURLOPT_WRITEDATA, pointer: UnsafeRawPointer(me))
        try setCallback(CURLOPT_READFUNCTION, easyReadCallback)
        try set(CURLOPT_READDATA, pointer: UnsafeRawPointer(me))
        let code = sonde_easy_record_request_start(raw, requestStartSlot)
        guard code == CURLE_OK else {
            throw TaskError(code: .unsupportedFeature, message: "libcurl \(CurlLibrary.version) has no CURLOPT_PREREQFUNCTION (7.80.0 or later is needed)",
                            curlCode: Int(code.rawValue))
        }
    }

    deinit {
        curl_easy_cleanup(raw)
        curl_slist_free_all(headerList)
        curl_slist_free_all(resolveList)
        curl_slist_free_all(connectToList)
        errorBuffer.deallocate()
        socketSlot.deallocate()
        requestStartSlot.deallocate()
        textLog?.deallocate()
    }

    /// Clears what the previous transfer left.
    func prepareForTransfer() {
        responseHeaders.removeAll(keepingCapacity: true)
        informationalHeads.removeAll()
        blockStatus = nil
        bodyBytesReceived = 0
        decodedBodyLimitExceeded = false
        tls = nil
        tlsPeer = nil
        requestBodyOffset = 0
        requestBodyEndMicros = nil
        firstResponseByteMicros = nil
        requestStartSlot.pointee = 0
        errorBuffer[0] = 0
        if let textLog { sonde_text_log_reset(textLog) }
    }

    /// Turns on libcurl's verbose text for every transfer of this handle, kept (not printed) for
    /// `transferText`: CURLOPT_VERBOSE with a debug callback that keeps CURLINFO_TEXT lines only,
    /// up to 16 KiB per transfer. It costs a formatted line per libcurl event, so only transfers
    /// that need libcurl's own account (an HTTP/3 attempt) turn it on.
    func collectText() throws(TaskError) {
        guard textLog == nil else { return }
        let log = UnsafeMutablePointer<sonde_text_log>.allocate(capacity: 1)
        log.initialize(to: sonde_text_log())
        textLog = log
        let code = sonde_easy_collect_text(raw, log)
        guard code == CURLE_OK else {
            throw TaskError(code: .internalError, message: "libcurl refused its verbose text: \(String(cString: curl_easy_strerror(code)))",
                            curlCode: Int(code.rawValue))
        }
    }

    /// libcurl's informational text of the current (or last) transfer; "" unless `collectText()` ran.
    var transferText: String {
        guard let textLog else { return "" }
        guard let text = sonde_text_log_text(textLog) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: textLog.pointee.used), as: UTF8.self)
    }

    /// The QUIC lines of the current (or last) transfer's text (see `QUICAttemptLog`).
    var quicAttempt: QUICAttemptLog { QUICAttemptLog(text: transferText) }

    /// Monotonic µs at which libcurl had this transfer's connection ready (new or reused, TLS and
    /// ALPN done) and was about to send the request; nil until then. From then on the
    /// connection's protocol is known, so other transfers to its origin can multiplex on it.
    var requestStartMicros: Int64? { requestStartSlot.pointee > 0 ? requestStartSlot.pointee : nil }

    /// libcurl's detailed message for the last failure (CURLOPT_ERRORBUFFER), or "".
    package var errorDetail: String { String(cString: errorBuffer) }

    /// Runs one transfer on the calling thread and blocks until it ends (curl_easy_perform,
    /// https://curl.se/libcurl/c/curl_easy_perform.html): for a handle outside a `MultiHandle`.
    /// Calls `prepareForTransfer()` first.
    package func perform() -> CURLcode {
        prepareForTransfer()
        return curl_easy_perform(raw)
    }

    /// libcurl's text for `code` (curl_easy_strerror).
    package static func describe(_ code: CURLcode) -> String { String(cString: curl_easy_strerror(code)) }

    // MARK: - Option setters (https://curl.se/libcurl/c/curl_easy_setopt.html)

    package func set(_ option: CURLoption, _ value: Int) throws(TaskError) {
        try check(sonde_easy_setopt_long(raw, option, value), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws(TaskError) {
        try check(sonde_easy_setopt_off(raw, option, curl_off_t(value)), option)
    }

    package func set(_ option: CURLoption, string value: String?) throws(TaskError) {
        let code: CURLcode
        if let value {
            code = value.withCString { sonde_easy_setopt_pointer(raw, option, $0) }
        } else {
            code = sonde_easy_setopt_pointer(raw, option, nil)
        }
        try check(code, option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeRawPointer?) throws(TaskError) {
        try check(sonde_easy_setopt_pointer(raw, option, value), option)
    }

    private func setCallback(_ option: CURLoption, _ callback: sonde_data_callback) throws(TaskError) {
        try check(sonde_easy_setopt_data_callback(raw, option, callback), option)
    }

    /// CURLOPT_URL (https://curl.se/libcurl/c/CURLOPT_URL.html). libcurl copies the string and
    /// keeps it for the handle's next transfers, so the same URL again is not handed over again
    /// (a `--count` run's hops repeat it; libcurl parses it at every transfer's start either way).
    package func setURL(_ url: String) throws(TaskError) {
        if url == urlSet { return }
        urlSet = nil  // unknown until libcurl took it
        try set(CURLOPT_URL, string: url)
        urlSet = url
    }

    /// CURLOPT_HTTPHEADER (https://curl.se/libcurl/c/CURLOPT_HTTPHEADER.html): replaces the list.
    /// `removing` names headers libcurl would add on its own that must not be sent.
    func setHeaders(_ headers: [HeaderField], removing: [String] = []) throws(TaskError) {
        curl_slist_free_all(headerList)
        headerList = nil
        for header in headers {
            // "Name;" is libcurl's way to send a header with an empty value.
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            headerList = curl_slist_append(headerList, line)
        }
        for name in removing {
            headerList = curl_slist_append(headerList, "\(name):")
        }
        try set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(headerList))
    }

    /// CURLOPT_RESOLVE (https://curl.se/libcurl/c/CURLOPT_RESOLVE.html): `host:port:address` entries.
    package func setResolve(_ entries: [String]) throws(TaskError) {
        curl_slist_free_all(resolveList)
        resolveList = nil
        for entry in entries { resolveList = curl_slist_append(resolveList, entry) }
        try set(CURLOPT_RESOLVE, pointer: UnsafeRawPointer(resolveList))
    }

    /// CURLOPT_CONNECT_TO (https://curl.se/libcurl/c/CURLOPT_CONNECT_TO.html):
    /// `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` entries; replaces the list.
    package func setConnectTo(_ entries: [String]) throws(TaskError) {
        curl_slist_free_all(connectToList)
        connectToList = nil
        for entry in entries { connectToList = curl_slist_append(connectToList, entry) }
        try set(CURLOPT_CONNECT_TO, pointer: UnsafeRawPointer(connectToList))
    }

    /// The request body, streamed through CURLOPT_READFUNCTION so that sonde sees when the last
    /// byte leaves (https://curl.se/libcurl/c/CURLOPT_READFUNCTION.html). nil: no body.
    func setRequestBody(_ body: [UInt8]?) throws(TaskError) {
        requestBody = body ?? []
        if let body {
            try set(CURLOPT_POST, 1)
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
        } else {
            try set(CURLOPT_POST, 0)
        }
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(TaskError) {
        guard code != CURLE_OK else { return }
        let text = String(cString: curl_easy_strerror(code))
        let error = code == CURLE_UNKNOWN_OPTION || code == CURLE_NOT_BUILT_IN
            ? ErrorCode.unsupportedFeature : ErrorCode.internalError
        throw TaskError(code: error, message: "libcurl rejected option \(option.rawValue): \(text)",
                        curlCode: Int(code.rawValue))
    }

    // MARK: - Info getters (https://curl.se/libcurl/c/curl_easy_getinfo.html)

    package func long(_ info: CURLINFO) -> Int {
        var value = 0
        return sonde_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : 0
    }

    /// CURLINFO_ACTIVESOCKET: the socket of the connection the last transfer used while that
    /// connection is still in the pool; -1 once it is gone.
    var activeSocket: Int32 { sonde_easy_active_socket(raw) }

    func offset(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return sonde_easy_getinfo_off(raw, info, &value) == CURLE_OK ? Int64(value) : 0
    }

    /// A CURLINFO newer than sonde's headers (`ModernCurlInfo`), or nil when the running libcurl
    /// does not have it or does not answer.
    func offset(ifAvailable info: ModernCurlInfo) -> Int64? {
        guard info.available else { return nil }
        var value: curl_off_t = 0
        return sonde_easy_getinfo_off(raw, info.info, &value) == CURLE_OK ? Int64(value) : nil
    }

    /// Whether the last transfer used https (CURLINFO_SCHEME, compared without building a String).
    var schemeIsHTTPS: Bool {
        var value: UnsafePointer<CChar>? = nil
        guard sonde_easy_getinfo_string(raw, CURLINFO_SCHEME, &value) == CURLE_OK, let value else { return false }
        return strcasecmp(value, "https") == 0
    }

    package func string(_ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>? = nil
        guard sonde_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// CURLINFO_CERTINFO: one array of "Name:value" lines per certificate, leaf first; at most
    /// `maxCertificates` certificates of at most `maxLines` lines each (unbounded by default).
    package func certificateInfo(maxCertificates: Int = .max, maxLines: Int = .max) -> [[String]] {
        var info: UnsafeMutablePointer<curl_certinfo>? = nil
        guard sonde_easy_getinfo_certinfo(raw, &info) == CURLE_OK, let info, let lists = info.pointee.certinfo else {
            return []
        }
        var result: [[String]] = []
        for index in 0..<min(max(0, maxCertificates), Int(max(0, info.pointee.num_of_certs))) {
            var lines: [String] = []
            var node = lists[index]
            while let current = node, lines.count < maxLines {
                if let data = current.pointee.data { lines.append(String(cString: data)) }
                node = current.pointee.next
            }
            result.append(lines)
        }
        return result
    }

    // MARK: - Callbacks

    fileprivate func didReceiveHeader(_ bytes: UnsafeRawBufferPointer) {
        if firstResponseByteMicros == nil && requestStartSlot.pointee > 0 { firstResponseByteMicros = monotonicMicroseconds() }
        var end = bytes.count
        while end > 0 && (bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D) { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        if line.starts(with: Self.httpPrefix) {
            // A new response block (after 1xx, a proxy's CONNECT answer, or on each redirect hop): start over.
            // A status line arrives after the TLS handshake, so the session is readable now (and only
            // during the transfer): look once per response block until one is found.
            if tls == nil { readTLSSession() }
            if readsTLSPeer && tlsPeer == nil {
                var peer = sonde_tls_peer()
                if sonde_read_tls_peer(raw, &peer) == 1 { tlsPeer = peer }
            }
            blockStatus = Self.statusCode(line)
            responseHeaders.removeAll(keepingCapacity: true)
        } else if line.isEmpty {
            // The end of a header block: a 1xx block is complete now (a 104's Location must be
            // usable while the request body is still being sent).
            if let code = blockStatus, (100..<200).contains(code) {
                informationalHeads.append((code, responseHeaders))
            }
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            var valueStart = colon + 1
            var valueEnd = line.count
            while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            let slot = 2 * responseHeaders.count
            responseHeaders.append(HeaderField(
                name: headerStrings.string(UnsafeRawBufferPointer(rebasing: line[..<colon]), slot: slot),
                value: headerStrings.string(UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd]), slot: slot + 1)))
        }
    }

    /// The ALPN protocol the running transfer's TLS connection negotiated ("h2", "http/1.1"), or
    /// nil without TLS. Only valid while the transfer is in progress (e.g. once its request is
    /// about to leave).
    func negotiatedALPN() -> String? {
        var info = sonde_tls_info()
        guard sonde_read_tls_info(raw, &info) == 1 else { return nil }
        return fixedString(&info.alpn)
    }

    private func readTLSSession() {
        var info = sonde_tls_info()
        if sonde_read_tls_info(raw, &info) == 1 {
            tls = NegotiatedTLS(version: fixedString(&info.version), cipher: fixedString(&info.cipher),
                                alpn: fixedString(&info.alpn), sessionReused: info.session_reused == 1)
        }
    }

    private static let httpPrefix: [UInt8] = Array("HTTP/".utf8)

    /// The status code of an `HTTP/x yyy reason` line: the three digits after the first space
    /// (RFC 9112, section 4), read from the bytes without building a string.
    static func statusCode(_ line: UnsafeRawBufferPointer) -> Int? {
        guard let space = line.firstIndex(of: 0x20), space + 4 <= line.count else { return nil }
        var code = 0
        for index in space + 1...space + 3 {
            let byte = line[index]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            code = code * 10 + Int(byte - 0x30)
        }
        return space + 4 == line.count || line[space + 4] == 0x20 ? code : nil
    }

    /// Counts decoded body bytes; false when the decoded body passed its bound (the transfer is cut).
    fileprivate func didReceiveBody(count: Int) -> Bool {
        bodyBytesReceived += Int64(count)
        guard let limit = decodedBodyLimit, bodyBytesReceived > limit.ratioFloor || bodyBytesReceived > limit.maxBytes else { return true }
        // libcurl counts the body as it came off the wire (before decoding) in SIZE_DOWNLOAD.
        guard limit.isExceeded(decoded: bodyBytesReceived, wire: offset(CURLINFO_SIZE_DOWNLOAD_T)) else { return true }
        decodedBodyLimitExceeded = true
        return false
    }

    fileprivate func fillRequestBody(_ buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        if let source = bodySource {
            return source(UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
        }
        let remaining = requestBody.count - requestBodyOffset
        guard remaining > 0 else {
            if requestBodyEndMicros == nil { requestBodyEndMicros = monotonicMicroseconds() }
            return 0
        }
        let count = min(remaining, capacity)
        requestBody.withUnsafeBytes { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + requestBodyOffset, byteCount: count)
        }
        requestBodyOffset += count
        if requestBodyOffset == requestBody.count { requestBodyEndMicros = monotonicMicroseconds() }
        return count
    }
}

private func fixedString<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { raw in
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private let easyHeaderCallback: sonde_data_callback = { buffer, size, count, userdata in
    let length = size * count
    guard let userdata, let buffer else { return length }
    Unmanaged<EasyHandle>.fromOpaque(userdata).takeUnretainedValue()
        .didReceiveHeader(UnsafeRawBufferPointer(start: buffer, count: length))
    return length
}

private let easyWriteCallback: sonde_data_callback = { buffer, size, count, userdata in
    let length = size * count
    guard let userdata else { return length }
    let easy = Unmanaged<EasyHandle>.fromOpaque(userdata).takeUnretainedValue()
    guard easy.didReceiveBody(count: length) else { return 0 }
    if let consumer = easy.bodyConsumer, !consumer(UnsafeRawBufferPointer(start: buffer, count: length)) { return 0 }
    return length
}

private let easyReadCallback: sonde_data_callback = { buffer, size, count, userdata in
    guard let userdata, let buffer else { return 0 }
    return Unmanaged<EasyHandle>.fromOpaque(userdata).takeUnretainedValue()
        .fillRequestBody(buffer, capacity: size * count)
}
