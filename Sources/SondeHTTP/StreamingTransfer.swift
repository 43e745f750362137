import CSignalFlags
import CurlShim
#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// The status and header fields of the response whose body a `StreamingTransfer` delivers.
public struct ResponseHead: Sendable, Equatable {
    public var status: Int
    public var headers: [HeaderField]

    public init(status: Int, headers: [HeaderField]) {
        self.status = status
        self.headers = headers
    }

    /// The value of the last field named `name` (case-insensitive), or nil.
    public func value(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }
}

/// A request body streamed from the caller (an upload): `length` bytes, produced by `read`,
/// which fills the buffer and returns the count (0 at the end), or `UploadBody.abort`.
public struct UploadBody {
    public var length: Int64
    public var read: (UnsafeMutableRawBufferPointer) -> Int
    /// What `read` returns to abort the transfer (CURL_READFUNC_ABORT).
    public static let abort = Int(CURL_READFUNC_ABORT)

    public init(length: Int64, read: @escaping (UnsafeMutableRawBufferPointer) -> Int) {
        self.length = length
        self.read = read
    }
}

/// What one `StreamingTransfer.perform` did.
public struct StreamedResponse: Sendable {
    /// The final response's head (after redirects); nil when no response arrived.
    public var head: ResponseHead?
    /// The 1xx responses that came before it (104 Upload Resumption Supported, …).
    public var informational: [ResponseHead] = []
    /// Body bytes handed to the consumer.
    public var bodyBytes: Int64 = 0
    /// Request body bytes handed to libcurl (CURLINFO_SIZE_UPLOAD_T): sent, or in flight when it failed.
    public var uploadedBytes: Int64 = 0
    /// Why the transfer did not complete; nil when it did. An abort by the consumer is
    /// `abortedByConsumer`, not an error.
    public var error: TaskError?
    /// The consumer returned false, or the upload body's `read` returned `UploadBody.abort`.
    public var abortedByConsumer = false
    /// µs from the start of `perform` to the first body byte; nil when none came.
    public var firstByteMicros: Int64?
    /// µs from the start of `perform` to its end.
    public var durationMicros: Int64 = 0
    /// The connection the request went out on; nil when libcurl never had one.
    public var connection: RequestConnection?
}

/// One blocking HTTP transfer at a time on one libcurl easy handle (so that consecutive
/// transfers reuse the connection), with the body streamed to a consumer: the engine of resume
/// trials and resumability checks, where the bytes matter and not only their timing.
///
/// Threading: confined to the calling thread; `perform` blocks until the transfer ends, the
/// consumer aborts it, a stall exceeds `stallTimeoutMs`, or SIGINT/SIGTERM arrives.
public final class StreamingTransfer {
    private let easy: EasyHandle
    private let redactor: Redactor
    private var head: ResponseHead?
    /// Set by `dropConnection` and `openNewConnectionNext`: the next request opens a fresh
    /// connection. A QUIC connection does not see its UDP socket go (no RST, no FIN), so libcurl
    /// would keep reusing the dead one.
    private var freshConnectionNext = false
    /// The progress watch's state (stall clock, signal check), read by the C callback.
    private let progress: UnsafeMutablePointer<sonde_progress_state>
    /// nil: no stall limit.
    public let stallTimeoutMs: Int?
    /// Whether transfers go through `--proxy` (a stalled CONNECT is then not a TLS timeout).
    private let viaProxy: Bool
    /// Whether transfers can only use QUIC (`--http3-only`): a failure to connect is QUIC's.
    private let overQUIC: Bool

    /// - Parameters:
    ///   - stallTimeoutMs: a transfer that receives nothing for this long fails with
    ///     `timedOut` (CURLOPT_LOW_SPEED_TIME); nil for no limit.
    ///   - followsRedirects: false: a 3xx is the final response (its head is returned and nothing
    ///     is sent to its Location), for callers whose requests carry credentials for one host only.
    public init(options: ProbeOptions, redactor: Redactor, stallTimeoutMs: Int? = nil, followsRedirects: Bool = true) throws(TaskError) {
        easy = try EasyHandle()
        self.redactor = redactor
        viaProxy = options.proxy != nil
        overQUIC = options.httpVersion == .http3Only
        try easy.configureTransport(options)
        try easy.set(CURLOPT_FOLLOWLOCATION, followsRedirects ? 1 : 0)
        try easy.set(CURLOPT_MAXREDIRS, options.maxRedirects)
        // One transfer at a time: the pool keeps the last connection only, so a request that opens
        // a new one (`openNewConnectionNext`, after `dropConnection`) leaves no older one behind
        // for the next request to pick up (and `dropConnection` to miss: it cuts the last socket).
        try easy.set(CURLOPT_MAXCONNECTS, 1)
        // Larger reads: fewer callbacks per byte for large files (libcurl's default is 16 KiB).
        try easy.set(CURLOPT_BUFFERSIZE, 256 * 1024)
        // No transparent decompression: the bytes counted and hashed are the bytes on the wire.
        try easy.set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        // libcurl's own CURLOPT_LOW_SPEED_TIME averages over seconds of history, so a stall after
        // a fast start goes unseen for that long: the shim's watch times the silence itself.
        progress = .allocate(capacity: 1)
        progress.initialize(to: sonde_progress_state())
        progress.pointee.stall_us = Int64(stallTimeoutMs ?? 0) * 1000
        self.stallTimeoutMs = stallTimeoutMs
        var code = sonde_easy_watch_progress(easy.raw, progress)
        if code == CURLE_OK { code = sonde_easy_track_socket(easy.raw, easy.socketSlot) }
        guard code == CURLE_OK else {
            throw TaskError(code: .internalError, message: "libcurl rejected a callback option: \(String(cString: curl_easy_strerror(code)))")
        }
    }

    deinit { progress.deallocate() }

    /// The run's stop, kept alive while the progress callback may read it.
    private var stop: RunStop?

    /// Ends every later transfer within about a second of `stop` being pulled (error
    /// `interrupted`), a stalled one included; nil watches signals only.
    public func watch(stop: RunStop?) {
        self.stop = stop
        progress.pointee.stop = stop.map { UnsafePointer($0.flag) }
    }

    /// Why `url` cannot be transferred (malformed, or not http/https), or nil when it can.
    /// - Parameter allowingSpaces: take spaces as the probe engine's `CURLOPT_URL` does.
    public static func problem(url: String, allowingSpaces: Bool = false) -> String? {
        guard let parts = URLParts(url, allowingSpaces: allowingSpaces) else { return "'\(url)' is not a URL libcurl can parse" }
        guard parts.scheme == "http" || parts.scheme == "https" else {
            return "'\(parts.scheme)' is not supported here: give an http:// or https:// URL"
        }
        return nil
    }

    /// Runs one request. `consumer` sees the response head with every body chunk; returning
    /// false stops the transfer there (the bytes of that chunk it did not want are its business).
    /// - Parameters:
    ///   - method: any method; HEAD asks for no body.
    ///   - body: an upload body streamed through libcurl's read callback (no `Expect: 100-continue`).
    public func perform(url: String, method: String = "GET", headers: [HeaderField] = [], body: UploadBody? = nil,
                        consumer: (ResponseHead, UnsafeRawBufferPointer) -> Bool = { _, _ in true }) -> StreamedResponse {
        var result = StreamedResponse()
        let start = monotonicMicroseconds()
        head = nil
        easy.prepareForTransfer()
        sonde_progress_reset(progress)
        do {
            try easy.setURL(url)
            try easy.set(CURLOPT_FRESH_CONNECT, freshConnectionNext ? 1 : 0)
            freshConnectionNext = false
            // Reset the method first: each of these options overrides the others.
            try easy.set(CURLOPT_NOBODY, method == "HEAD" ? 1 : 0)
            if method != "HEAD" { try easy.set(CURLOPT_HTTPGET, 1) }
            if let body {
                try easy.set(CURLOPT_UPLOAD, 1)
                try easy.set(CURLOPT_INFILESIZE_LARGE, offset: body.length)
            }
            try easy.set(CURLOPT_CUSTOMREQUEST, string: method == "GET" || method == "HEAD" ? nil : method)
            try easy.setHeaders(headers, removing: body != nil ? ["Expect"] : [])
        } catch {
            result.error = error
            return result
        }
        var sourceAborted = false
        if let body {
            easy.bodySource = { buffer in
                let count = body.read(buffer)
                if count == UploadBody.abort { sourceAborted = true }
                return count
            }
        }
        defer {
            easy.bodySource = nil
            if body != nil { _ = try? easy.set(CURLOPT_UPLOAD, 0) }
        }
        let code = withoutActuallyEscaping(consumer) { consumer -> CURLcode in
            easy.bodyConsumer = { [unowned self] chunk in
                let current = self.currentHead()
                if result.firstByteMicros == nil { result.firstByteMicros = monotonicMicroseconds() - start }
                result.bodyBytes += Int64(chunk.count)
                guard consumer(current, chunk) else {
                    result.abortedByConsumer = true
                    return false
                }
                return true
            }
            defer { easy.bodyConsumer = nil }
            return curl_easy_perform(easy.raw)
        }
        result.durationMicros = monotonicMicroseconds() - start
        if sourceAborted { result.abortedByConsumer = true }
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        if status > 0 { result.head = head ?? ResponseHead(status: status, headers: easy.responseHeaders) }
        result.uploadedBytes = easy.offset(CURLINFO_SIZE_UPLOAD_T)
        result.informational = easy.informationalHeads.map { ResponseHead(status: $0.status, headers: $0.headers) }
        result.connection = currentConnection
        if code != CURLE_OK && !(result.abortedByConsumer && code == CURLE_WRITE_ERROR) && !(sourceAborted && code == CURLE_ABORTED_BY_CALLBACK) {
            if code == CURLE_ABORTED_BY_CALLBACK && sonde_received_signal() != 0 {
                result.error = TaskError(code: .interrupted, message: "interrupted by signal \(sonde_received_signal())",
                                         curlCode: Int(code.rawValue))
            } else if code == CURLE_ABORTED_BY_CALLBACK && stop?.isPulled == true {
                result.error = TaskError(code: .interrupted, message: "stopped: the run ended (its time limit) during the transfer",
                                         curlCode: Int(code.rawValue))
            } else if code == CURLE_ABORTED_BY_CALLBACK && progress.pointee.stalled == 1 {
                result.error = TaskError(code: .timedOut, message: "the transfer stalled: nothing moved for \(stallTimeoutMs ?? 0) ms "
                    + "(after \(result.bodyBytes) body bytes)", curlCode: Int(code.rawValue))
            } else {
                result.error = CurlErrorClassifier.classify(easy.failureFacts(code, url: url, redactor: redactor, viaProxy: viaProxy, overQUIC: overQUIC))
            }
        }
        return result
    }

    /// The 1xx responses received so far by the transfer under way (call it from a callback).
    public var informationalSoFar: [ResponseHead] {
        easy.informationalHeads.map { ResponseHead(status: $0.status, headers: $0.headers) }
    }

    /// Makes the next request open a new connection rather than take one from the pool: what a
    /// process that starts afresh (an app relaunched after it was killed) has to do.
    public func openNewConnectionNext() {
        freshConnectionNext = true
    }

    /// The connection of the request under way (from a consumer) or just ended, from libcurl's
    /// counters: opened for it when CURLINFO_NUM_CONNECTS says so; nil without a local port.
    public var currentConnection: RequestConnection? {
        let localPort = easy.long(CURLINFO_LOCAL_PORT)
        guard localPort > 0 else { return nil }
        let opened = easy.long(CURLINFO_NUM_CONNECTS) > 0
        let connect = easy.offset(CURLINFO_CONNECT_TIME_T)
        let appConnect = easy.offset(CURLINFO_APPCONNECT_TIME_T)
        func ms(_ micros: Int64) -> Double { milliseconds(fromMicroseconds: micros) }
        return RequestConnection(isReusedConnection: !opened, localPort: localPort,
                                 connectMs: opened && connect > 0 ? ms(connect) : nil,
                                 tlsMs: opened && appConnect > connect ? ms(appConnect - connect) : nil)
    }

    /// Resets the transfer's connection under libcurl, the way a path that drops it would: the
    /// socket is made to close with an RST (SO_LINGER 0, so what the kernel still buffers for it is
    /// discarded), and an unconnected socket takes its descriptor, so libcurl's next read fails.
    /// Call it from the consumer.
    public func dropConnection() {
        let socket = easy.socketSlot.pointee
        guard socket >= 0 else { return }
        freshConnectionNext = true
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        let placeholder = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard placeholder >= 0 else {
            shutdown(socket, Int32(SHUT_RDWR))
            return
        }
        // dup2 closes the connected socket (its last reference: RST) and leaves libcurl a dead one.
        _ = dup2(placeholder, socket)
        close(placeholder)
    }

    /// The head of the response being received, made once per response.
    private func currentHead() -> ResponseHead {
        if let head { return head }
        let made = ResponseHead(status: easy.long(CURLINFO_RESPONSE_CODE), headers: easy.responseHeaders)
        head = made
        return made
    }
}
