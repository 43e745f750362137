import CurlShim
import SondeCore

/// Several long-lived transfers at once on one libcurl multi handle (one connection pool), each
/// with its body streamed to a consumer: the engine of event streams (`sonde stream`), where N
/// streams to one host either share a connection (HTTP/2 multiplexing) or each take their own
/// (HTTP/1.1), as a browser's would. Each slot holds one transfer at a time and may be started
/// again when its transfer ended (a reconnect), with other headers (`Last-Event-ID`).
///
/// Threading: confined to the thread that calls `drive`; libcurl calls the consumer on it.
public final class ConcurrentTransfers {
    private let multi: MultiHandle
    private let slots: [EasyHandle]
    private let redactor: Redactor
    private let viaProxy: Bool
    /// The URL each slot's transfer under way was started with; nil when the slot is idle.
    private var running: [String?]
    /// Monotonic µs at which each slot's transfer under way started.
    private var startedAt: [Int64]
    private var firstByte: [Int64?]
    private var bodyBytes: [Int64]
    private var aborted: [Bool]

    /// - Parameters:
    ///   - count: the slots (streams), 1 or more.
    ///   - multiplex: let HTTP/2 transfers share a connection (CURLPIPE_MULTIPLEX, and each new
    ///     transfer waits for a connection under way to say whether it multiplexes: CURLOPT_PIPEWAIT).
    public init(options: ProbeOptions, redactor: Redactor, count: Int, multiplex: Bool = true) throws(TaskError) {
        multi = try MultiHandle(multiplex: multiplex)
        var made: [EasyHandle] = []
        for _ in 0..<max(1, count) {
            let easy = try EasyHandle()
            try easy.configureTransport(options)
            try easy.set(CURLOPT_FOLLOWLOCATION, 1)
            try easy.set(CURLOPT_MAXREDIRS, options.maxRedirects)
            if multiplex { try easy.set(CURLOPT_PIPEWAIT, 1) }
            made.append(easy)
        }
        slots = made
        self.redactor = redactor
        viaProxy = options.proxy != nil
        running = Array(repeating: nil, count: made.count)
        startedAt = Array(repeating: 0, count: made.count)
        firstByte = Array(repeating: nil, count: made.count)
        bodyBytes = Array(repeating: 0, count: made.count)
        aborted = Array(repeating: false, count: made.count)
    }

    deinit {
        for (index, easy) in slots.enumerated() where running[index] != nil { multi.remove(easy) }
    }

    /// The number of slots.
    public var count: Int { slots.count }

    /// Whether `slot` has a transfer under way.
    public func isRunning(_ slot: Int) -> Bool { running[slot] != nil }

    /// Starts a GET of `url` on the idle `slot`. `consumer` sees the response head with every
    /// body chunk; returning false ends the transfer there (`abortedByConsumer`).
    public func start(_ slot: Int, url: String, headers: [HeaderField],
                      consumer: @escaping (ResponseHead, UnsafeRawBufferPointer) -> Bool) throws(TaskError) {
        let easy = slots[slot]
        easy.prepareForTransfer()
        try easy.setURL(url)
        try easy.set(CURLOPT_HTTPGET, 1)
        try easy.setHeaders(headers)
        startedAt[slot] = monotonicMicroseconds()
        firstByte[slot] = nil
        bodyBytes[slot] = 0
        aborted[slot] = false
        easy.bodyConsumer = { [unowned self, unowned easy] chunk in
            if self.firstByte[slot] == nil { self.firstByte[slot] = monotonicMicroseconds() - self.startedAt[slot] }
            self.bodyBytes[slot] += Int64(chunk.count)
            let head = ResponseHead(status: easy.long(CURLINFO_RESPONSE_CODE), headers: easy.responseHeaders)
            guard consumer(head, chunk) else {
                self.aborted[slot] = true
                return false
            }
            return true
        }
        try multi.add(easy)
        running[slot] = url
    }

    /// Runs what can run, waits up to `waitMs` for activity, and returns the transfers that ended
    /// (their slots are idle again). With no transfer running it sleeps `waitMs` (curl_multi_poll
    /// waits its whole timeout then), so a caller between reconnects does not spin.
    public func drive(waitMs: Int32) -> [(slot: Int, response: StreamedResponse)] {
        _ = multi.perform()
        multi.wait(timeoutMs: waitMs)
        _ = multi.perform()
        var ended: [(slot: Int, response: StreamedResponse)] = []
        for done in multi.completedTransfers() {
            guard let slot = slots.firstIndex(where: { $0.raw == done.easy }) else { continue }
            ended.append((slot, finish(slot, code: done.result)))
        }
        return ended
    }

    /// Ends the transfer of `slot` now (a stream stopped at its planned end); idle slots are left alone.
    public func cancel(_ slot: Int) -> StreamedResponse? {
        guard running[slot] != nil else { return nil }
        aborted[slot] = true
        return finish(slot, code: CURLE_WRITE_ERROR)
    }

    /// The connection of `slot`'s transfer (under way, or just ended): libcurl's connection id
    /// (CURLINFO_CONN_ID, libcurl 8.2.0) when the running libcurl has it, else the local port
    /// (on one host the connection's other end is the same for every slot); nil without a connection.
    public func connectionID(_ slot: Int) -> Int64? {
        let easy = slots[slot]
        if ModernCurlInfo.connectionID.available, let id = easy.offset(ifAvailable: .connectionID), id >= 0 { return id }
        let port = easy.long(CURLINFO_LOCAL_PORT)
        return port > 0 ? Int64(port) : nil
    }

    /// The HTTP version of `slot`'s response (CURLINFO_HTTP_VERSION): "h1", "h2", "h3", nil before one.
    public func httpVersion(_ slot: Int) -> String? {
        switch slots[slot].long(CURLINFO_HTTP_VERSION) {
        case CURL_HTTP_VERSION_1_0, CURL_HTTP_VERSION_1_1: return "h1"
        case CURL_HTTP_VERSION_2_0: return "h2"
        case CURL_HTTP_VERSION_3: return "h3"
        default: return nil
        }
    }

    private func finish(_ slot: Int, code: CURLcode) -> StreamedResponse {
        let easy = slots[slot]
        var result = StreamedResponse()
        result.bodyBytes = bodyBytes[slot]
        result.firstByteMicros = firstByte[slot]
        result.durationMicros = monotonicMicroseconds() - startedAt[slot]
        result.abortedByConsumer = aborted[slot]
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        if status > 0 { result.head = ResponseHead(status: status, headers: easy.responseHeaders) }
        let localPort = easy.long(CURLINFO_LOCAL_PORT)
        if localPort > 0 {
            result.connection = RequestConnection(isReusedConnection: easy.long(CURLINFO_NUM_CONNECTS) == 0, localPort: localPort,
                                                  connectMs: nil, tlsMs: nil)
        }
        if code != CURLE_OK && !(aborted[slot] && code == CURLE_WRITE_ERROR), let url = running[slot] {
            result.error = CurlErrorClassifier.classify(easy.failureFacts(code, url: url, redactor: redactor, viaProxy: viaProxy, overQUIC: false))
        }
        multi.remove(easy)
        easy.bodyConsumer = nil
        running[slot] = nil
        return result
    }
}
