import SondeCore

/// libcurl's cumulative timers for one transfer, in microseconds from the transfer's start
/// (`CURLINFO_*_TIME_T`), plus the one instant sonde measures itself.
///
/// A timer is 0 when its milestone was not reached (a failed transfer) or did not apply.
public struct CurlTimers: Sendable, Equatable {
    public var nameLookup: Int64
    public var connect: Int64
    public var appConnect: Int64
    public var preTransfer: Int64
    public var startTransfer: Int64
    public var total: Int64
    /// When the last request body byte was handed to libcurl, measured by sonde's read
    /// callback on the same time base; nil for requests without a body.
    public var requestBodyEnd: Int64?
    /// When libcurl sent the request's last byte (`CURLINFO_POSTTRANSFER_TIME_T`, libcurl 8.10.0
    /// and later); nil on an older libcurl. 0 when not reached, like the others.
    public var postTransfer: Int64?

    public init(nameLookup: Int64, connect: Int64, appConnect: Int64, preTransfer: Int64,
                startTransfer: Int64, total: Int64, requestBodyEnd: Int64? = nil, postTransfer: Int64? = nil) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.appConnect = appConnect
        self.preTransfer = preTransfer
        self.startTransfer = startTransfer
        self.total = total
        self.requestBodyEnd = requestBodyEnd
        self.postTransfer = postTransfer
    }

    /// The end of the request as libcurl or sonde saw it: libcurl's post-transfer time when it
    /// has one (8.10+), else sonde's last-body-byte time; nil when neither is known.
    var requestSent: Int64? {
        if let postTransfer, postTransfer > 0 { return postTransfer }
        return requestBodyEnd
    }
}

/// Phases and milestones of one transaction, derived from `CurlTimers` without double counting.
///
/// Milestones are cumulative microsecond offsets from the transfer start and never decrease:
/// `dnsEnd ≤ connectEnd ≤ tlsEnd(= ready) ≤ requestEnd ≤ responseStart ≤ responseEnd`.
/// `requestEnd` is libcurl's post-transfer time on libcurl 8.10+, else the moment sonde handed
/// libcurl the last body byte, else the pretransfer time (a request without a body).
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
        if ready != nil, let pre = reach(t.preTransfer) {
            requestStart = pre
            // The request ends when its last byte went (never after the response began).
            if let sent = t.requestSent, sent > pre {
                let limit = t.startTransfer > 0 ? min(t.startTransfer, end) : end
                cursor = max(cursor, min(sent, limit))
            }
            requestEnd = cursor
            responseStart = reach(t.startTransfer)
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
