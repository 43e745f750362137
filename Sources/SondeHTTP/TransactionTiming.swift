import SondeCore

/// libcurl's cumulative timers for one transfer, in microseconds from the transfer's start
/// (`CURLINFO_*_TIME_T`), plus the instants sonde observes itself on the same time base.
///
/// A libcurl timer is 0 when its milestone was not reached (a failed transfer) or did not apply.
/// sonde's own instants are nil when not observed. libcurl 8.23 stamps PRETRANSFER and
/// POSTTRANSFER after the request left (measured 35–150 µs late on a reused connection, over
/// HTTP/2 about when the response arrived: docs/measurements.md, 2026-11-25), so the request's
/// and the response's start are sonde's own instants, taken in libcurl's callbacks.
public struct CurlTimers: Sendable, Equatable {
    public var nameLookup: Int64
    public var connect: Int64
    public var appConnect: Int64
    public var preTransfer: Int64
    public var startTransfer: Int64
    public var total: Int64
    /// When libcurl, its connection ready, was about to send the request (sonde's
    /// CURLOPT_PREREQFUNCTION, called right before libcurl hands the request to the connection).
    public var requestStart: Int64?
    /// When the last request body byte was handed to libcurl, measured by sonde's read
    /// callback; nil for requests without a body.
    public var requestBodyEnd: Int64?
    /// When the first byte of the response reached sonde (the first CURLOPT_HEADERFUNCTION call
    /// after the request started: libcurl had read and parsed the status line).
    public var firstResponseByte: Int64?

    public init(nameLookup: Int64, connect: Int64, appConnect: Int64, preTransfer: Int64,
                startTransfer: Int64, total: Int64, requestStart: Int64? = nil, requestBodyEnd: Int64? = nil,
                firstResponseByte: Int64? = nil) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.appConnect = appConnect
        self.preTransfer = preTransfer
        self.startTransfer = startTransfer
        self.total = total
        self.requestStart = requestStart
        self.requestBodyEnd = requestBodyEnd
        self.firstResponseByte = firstResponseByte
    }
}

/// Phases and milestones of one transaction, derived from `CurlTimers` without double counting.
///
/// Milestones are cumulative microsecond offsets from the transfer start and never decrease:
/// `dnsEnd ≤ connectEnd ≤ tlsEnd(= ready) ≤ requestEnd ≤ responseStart ≤ responseEnd`.
/// `requestStart` is sonde's pre-request instant (else libcurl's pretransfer time); `requestEnd`
/// is the moment sonde handed libcurl the last body byte, or `requestStart` for a request without
/// a body (libcurl sends its few hundred header bytes in the call that follows the pre-request
/// callback); `responseStart` is sonde's first-header instant (else libcurl's starttransfer).
/// Each phase is the difference of two consecutive milestones, so the phases add up to
/// `total` exactly (in µs). On a reused connection there is no DNS, connect or TLS: `ready` is 0.
public struct TransactionTiming: Sendable, Equatable {
    /// Milestones in µs from the transfer start; nil when not reached.
    public var dnsEnd: Int64?
    public var connectEnd: Int64?
    public var tlsEnd: Int64?
    public var requestStart: Int64?
    public var requestEnd: Int64?
    public var responseStart: Int64?
    public var responseEnd: Int64
    /// Phase durations in µs; nil when the phase did not happen.
    public var dns: Int64?
    public var connect: Int64?
    public var tls: Int64?
    public var send: Int64?
    public var wait: Int64?
    public var receive: Int64?
    public var total: Int64

    /// - Parameters:
    ///   - reused: the transfer ran on a connection that already existed (`CURLINFO_NUM_CONNECTS` = 0).
    ///   - secure: the connection uses TLS.
    ///   - completed: a response arrived in full; when false, the phase in progress at the failure
    ///     gets the time from the last milestone to the end, so the failed phase is visible.
    ///   - networkStarted: false when the transfer failed before any network activity
    ///     (malformed URL, unsupported scheme): then only `total` is set.
    public init(timers t: CurlTimers, reused: Bool, secure: Bool, completed: Bool, networkStarted: Bool = true) {
        let end = max(0, t.total)
        total = end
        responseEnd = end
        guard networkStarted else { return }

        // The milestones that were reached, clamped so that they never go backwards.
        var cursor: Int64 = 0
        func reach(_ value: Int64) -> Int64? {
            guard value > 0 else { return nil }
            cursor = min(max(cursor, value), end)
            return cursor
        }
        var ready: Int64? = 0
        if !reused {
            dnsEnd = reach(t.nameLookup)
            connectEnd = dnsEnd == nil ? nil : reach(t.connect)
            if secure {
                tlsEnd = connectEnd == nil ? nil : reach(t.appConnect)
                ready = tlsEnd
            } else {
                ready = connectEnd
            }
        }
        // sonde's own instants, where seen; 0 µs after the start is still reached.
        let firstByte = t.firstResponseByte.map { max(1, $0) } ?? t.startTransfer
        if ready != nil, let pre = reach(t.requestStart.map { max(1, $0) } ?? t.preTransfer) {
            requestStart = pre
            // The request ends when its last body byte went (never after the response began).
            if let sent = t.requestBodyEnd, sent > pre {
                let limit = firstByte > 0 ? min(firstByte, end) : end
                cursor = max(cursor, min(sent, limit))
            }
            requestEnd = cursor
            responseStart = reach(firstByte)
        }

        // Phases between consecutive reached milestones.
        if !reused {
            dns = dnsEnd
            if let c = connectEnd, let d = dnsEnd { connect = c - d }
            if let s = tlsEnd, let c = connectEnd { tls = s - c }
        }
        if let r = ready, let q = requestEnd { send = q - r }
        if let q = requestEnd, let s = responseStart { wait = s - q }
        if let s = responseStart, completed { receive = end - s }

        if completed && responseStart != nil { return }
        // The phase in progress when the transfer ended gets the remaining time.
        if let s = responseStart {
            receive = end - s
        } else if let q = requestEnd {
            wait = end - q
        } else if reused || ready != nil {
            send = end - (ready ?? 0)
        } else if secure, let c = connectEnd {
            tls = end - c
        } else if let d = dnsEnd {
            connect = end - d
        } else {
            dns = end
        }
    }

    /// The phases in the report's units (milliseconds).
    public var phases: Phases {
        func ms(_ value: Int64?) -> Double? { value.map(milliseconds(fromMicroseconds:)) }
        return Phases(dns: ms(dns), connect: ms(connect), tls: ms(tls), send: ms(send), wait: ms(wait),
                      receive: ms(receive), total: ms(total))
    }
}
