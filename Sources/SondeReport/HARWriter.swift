import SondeCore

/// Streams `report.har` (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/): one entry per
/// transaction, so a run opens in HAR viewers and browser developer tools.
///
/// Timing semantics are HAR's, not sonde's `phases`: `connect` includes `ssl` (and `ssl` is also
/// given on its own); `dns`, `connect` and `ssl` are -1 when they did not happen (a reused
/// connection); `blocked` is the transaction's `queue` (the hop's wait in sonde's queue before
/// libcurl started it; -1 in reports that predate it); `send`, `wait` and `receive` are never
/// negative (0 when a failed transfer never reached them). Invariant: `time` equals the sum of the
/// non-negative timings except `ssl`, which is sonde's `queue + phases.total`.
/// Every field of the transaction that HAR's standard members do not carry is a `_<key>` member
/// derived from the model's fields (`HARFieldTable.transaction`, `HARFieldWriter`): e.g.
/// `_libcurlQueue`, libcurl's own queue time (`CURLINFO_QUEUE_TIME_T`, libcurl 8.6+; -1 before),
/// which lies inside `blocked` and the first phase and is not added to `time`; `_http3Fallback`,
/// why an `--http3` race ended on TCP (null otherwise); `_altSvc`, why a connection is h3 without
/// `--http3`; `_altSvcFailure`, which Alt-Svc alternative failed before this transaction went to
/// the origin over TCP. The task's own members follow:
/// `_name` the task's request name (`RequestName`: as in report.json's `summary.byRequest`);
/// `_link` the emulated link's profile name when the task crossed one (the emulator's counters
/// per connection are known only when the link stops, after its entries were written: they are in
/// report.json's `link.connections`).
/// sonde's own fields carry a leading underscore, as the spec asks.
/// Strings were redacted when the transactions were recorded; nothing is added here.
public struct HARWriter {
    private var output = JSONOutput(capacity: 1 << 16)
    private var firstEntry = true

    public init(tool: ToolInfo, run: RunInfo) {
        output.appendRaw(Array(#"{"log":{"version":"1.2","creator":"#.utf8))
        output.object { o in
            o.member("name", tool.name)
            o.member("version", tool.version)
            o.member("comment", "libcurl \(tool.libcurl ?? "unknown")")
        }
        output.appendRaw(Array(#","pages":[],"comment":"#.utf8))
        output.string("sonde \(run.command) run \(run.id)")
        output.appendRaw(Array(#","entries":["#.utf8))
    }

    /// The document's opening, up to the entries.
    public mutating func start() -> [UInt8] { take() }

    /// Adds the task's transactions, appending the bytes ready to be written to `buffer`.
    /// (Copied, not handed over: the output's own storage stays unshared, so it is reused.)
    public mutating func add(_ task: ProbeTask, to buffer: inout [UInt8]) {
        for transaction in task.transactionMetrics {
            if !firstEntry { output.appendRaw(Self.comma) }
            firstEntry = false
            Self.writeEntry(transaction, task: task, to: &output)
        }
        output.withBytes { buffer.append(contentsOf: $0) }
        output.reset()
    }

    /// Closes the document; returns the remaining bytes.
    public mutating func finish() -> [UInt8] {
        output.appendRaw(Array("]}}\n".utf8))
        return take()
    }

    private mutating func take() -> [UInt8] {
        let bytes = output.bytes
        output.reset()
        return bytes
    }

    private static let comma: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "\n")]

    /// The transaction's own `_` members (`HARFieldTable.transaction`), one per field of its walk.
    static let transactionMembers = HARFieldTable.transaction.members(of: TransactionMetrics.self)

    static func writeEntry(_ t: TransactionMetrics, task: ProbeTask, to output: inout JSONOutput) {
        let timings = Timings(t.phases, queue: t.queue)
        let version = httpVersion(t.networkProtocolName)
        output.object { o in
            o.member("startedDateTime", t.fetchStartDate ?? task.taskInterval.start)
            o.member("time", timings.time)
            o.key("request")
            o.object { r in
                r.member("method", t.request.method)
                r.member("url", t.request.url)
                r.member("httpVersion", version)
                r.key("cookies"); r.array([Int]()) { _, _ in }
                r.key("headers"); writeHeaders(t.request.headers, to: &r)
                r.key("queryString"); writeQuery(t.request.url, to: &r)
                r.member("headersSize", t.countOfRequestHeaderBytesSent > 0 ? t.countOfRequestHeaderBytesSent : -1)
                r.member("bodySize", t.countOfRequestBodyBytesSent)
            }
            o.key("response")
            o.object { r in
                let headers = t.response?.headers ?? []
                r.member("status", t.response?.statusCode ?? 0)
                r.member("statusText", t.response.flatMap { reasonPhrase($0.statusCode) } ?? "")
                r.member("httpVersion", t.response == nil ? "" : version)
                r.key("cookies"); r.array([Int]()) { _, _ in }
                r.key("headers"); writeHeaders(headers, to: &r)
                r.key("content")
                r.object { c in
                    // HAR 1.2: the content's length as decoded; `compression`, the bytes the
                    // content coding saved, only when the body was decoded to more than came in.
                    let decoded = t.countOfResponseBodyBytesAfterDecoding ?? t.countOfResponseBodyBytesReceived
                    c.member("size", decoded)
                    if decoded > t.countOfResponseBodyBytesReceived {
                        c.member("compression", decoded - t.countOfResponseBodyBytesReceived)
                    }
                    c.member("mimeType", header("content-type", in: headers) ?? "x-unknown")
                }
                r.member("redirectURL", header("location", in: headers) ?? "")
                r.member("headersSize", t.response == nil ? -1 : t.countOfResponseHeaderBytesReceived)
                r.member("bodySize", t.response == nil ? -1 : t.countOfResponseBodyBytesReceived)
            }
            o.key("cache"); o.object { _ in }
            o.key("timings")
            o.object { m in
                m.member("blocked", timings.blocked)
                for phase in Phase.timeline {
                    if let slot = phase.harSlot, let value = timings[phase] { m.member(slot, value) }
                }
            }
            if let address = t.remoteAddress { o.member("serverIPAddress", address) }
            if let id = t.connectionID { o.member("connection", String(id)) }
            HARFieldWriter.write(t, members: transactionMembers, to: &o)
            o.member("_name", task.requestName)
            o.member("_iteration", task.iteration)
            if let link = task.link { o.member("_link", link) }
            if let error = task.error, t == task.transactionMetrics.last {
                o.member("_error", error.code.rawValue + ": " + error.message)
            }
        }
    }

    /// HAR timings (ms) from sonde's phases. See the type's invariant.
    struct Timings {
        var blocked: Double, dns: Double, connect: Double, ssl: Double, send: Double, wait: Double, receive: Double

        init(_ p: Phases, queue: Double?) {
            blocked = queue ?? -1
            dns = p.dns ?? -1
            ssl = p.tls ?? -1
            connect = p.connect.map { $0 + (p.tls ?? 0) } ?? -1
            send = p.send ?? 0
            wait = p.wait ?? 0
            receive = p.receive ?? 0
        }

        /// The value of `phase`'s HAR slot (`Phase.harSlot`).
        subscript(phase: Phase) -> Double? {
            switch phase {
            case .dns: dns
            case .connect: connect
            case .tls: ssl
            case .send: send
            case .wait: wait
            case .receive: receive
            case .total: nil
            }
        }

        /// The sum, rounded to the microsecond the timings have (a sum of doubles is not exact:
        /// 217.772 came out as 217.77200000000002).
        var time: Double { ((max(0, blocked) + max(0, dns) + max(0, connect) + send + wait + receive) * 1000).rounded() / 1000 }
    }

    static func httpVersion(_ name: String?) -> String {
        switch name {
        case "http/1.0": return "HTTP/1.0"
        case "http/1.1": return "HTTP/1.1"
        case "h2", "h2c": return "HTTP/2"
        case "h3": return "HTTP/3"
        default: return ""
        }
    }

    private static func writeHeaders(_ headers: [HeaderField], to output: inout JSONOutput) {
        output.array(headers) { o, header in o.nameValueObject(name: header.name, value: header.value) }
    }

    /// The URL's query as name/value pairs (as they appear in the already-redacted URL).
    private static func writeQuery(_ url: String, to output: inout JSONOutput) {
        var pairs: [(Substring, Substring)] = []
        if let mark = url.utf8.firstIndex(of: UInt8(ascii: "?")) {
            var query = url[url.index(after: mark)...]
            if let hash = query.utf8.firstIndex(of: UInt8(ascii: "#")) { query = query[..<hash] }
            for pair in query.split(separator: "&") {
                if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    pairs.append((pair[..<equals], pair[pair.index(after: equals)...]))
                } else {
                    pairs.append((pair, ""))
                }
            }
        }
        output.array(pairs) { o, pair in
            o.object { q in
                q.member("name", String(pair.0))
                q.member("value", String(pair.1))
            }
        }
    }

    /// The last header called `name` (lowercase ASCII), compared byte by byte without allocating.
    private static func header(_ name: StaticString, in headers: [HeaderField]) -> String? {
        let wanted = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return headers.last { header in
            var candidate = header.name
            return candidate.withUTF8 { bytes in
                guard bytes.count == wanted.count else { return false }
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    if (byte >= 65 && byte <= 90 ? byte + 32 : byte) != wanted[index] { return false }
                }
                return true
            }
        }?.value
    }
}
