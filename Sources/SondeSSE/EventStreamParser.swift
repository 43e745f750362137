/// What one line-level step of an event stream produced.
public enum EventStreamItem: Equatable, Sendable {
    /// An event was dispatched (a blank line ended a block with data).
    case event(ServerSentEvent)
    /// A comment line (`:` first): what servers send as heartbeats. The text after the colon.
    case comment(String)
    /// A `retry:` field of ASCII digits within `EventStreamParser.retryRange` (ms).
    case retry(Int)
    /// A `retry:` field that was not taken: not only digits, or beyond `retryRange`. As received (cut to 64 bytes).
    case retryRejected(String)
}

/// One event as the EventSource interface dispatches it.
public struct ServerSentEvent: Equatable, Sendable {
    /// The `event:` field, "message" when absent.
    public var type: String
    /// The `data:` lines joined with LF (the last LF removed).
    public var data: String
    /// The last event ID buffer when the event was dispatched (it persists across events and reconnects).
    public var lastEventID: String
    /// Whether this event's own block carried an `id:` field.
    public var carriedID: Bool

    public init(type: String = "message", data: String, lastEventID: String = "", carriedID: Bool = false) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.carriedID = carriedID
    }
}

/// Why a stream was given up by the parser: a hostile or broken server.
public struct EventStreamOverflow: Error, Equatable, Sendable {
    /// The bound that was passed (bytes).
    public var limit: Int
    /// True: one line without an end; false: one event's data.
    public var line: Bool

    public var message: String {
        line ? "a line went past \(limit) bytes without a line end: the stream was given up"
            : "an event's data went past \(limit) bytes before its blank line: the stream was given up"
    }
}

/// The WHATWG HTML "event stream" interpretation (html.spec.whatwg.org, section 9.2.6), fed
/// with the body's bytes as they come: UTF-8, a leading BOM skipped, lines ended by CRLF, LF or
/// CR (a CR at a chunk's end and an LF at the next one's start are one line end), comments,
/// `event`/`data`/`id`/`retry` fields, a blank line dispatching the event (none when its data is
/// empty), an unfinished event at the stream's end discarded.
///
/// Memory is bounded: a line, and an event's data, longer than `maxEventBytes` end the stream
/// (`EventStreamOverflow`), so a server that never sends a line end cannot make sonde hold more.
/// The last event ID outlives `beginStream` (a reconnect sends it as `Last-Event-ID`).
///
/// Threading: a value; used by one thread at a time.
public struct EventStreamParser: Sendable {
    /// The `retry:` values taken (ms): 0 to 10 minutes. Browsers take any digits; a value beyond
    /// this is reported and the previous delay kept.
    public static let retryRange = 0...600_000

    public let maxEventBytes: Int
    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var sawID = false
    /// The last event ID buffer.
    public private(set) var lastEventID = ""
    /// The previous byte was a CR that ended a line: an LF right after it belongs to that end.
    private var afterCR = false
    /// Bytes of the stream seen so far (for the BOM at its start).
    private var started = false
    private var bomMatched = 0

    public init(maxEventBytes: Int) {
        self.maxEventBytes = max(16, maxEventBytes)
    }

    /// A new connection's stream: the partial line and event of the last one dropped (as the spec
    /// drops an unfinished event), the BOM looked for again; the last event ID kept.
    public mutating func beginStream() {
        line.removeAll(keepingCapacity: true)
        data.removeAll(keepingCapacity: true)
        eventType.removeAll(keepingCapacity: true)
        sawID = false
        afterCR = false
        started = false
        bomMatched = 0
    }

    /// Bytes of the partial line and event held now (at most about twice `maxEventBytes`).
    public var heldBytes: Int { line.count + data.count + eventType.count }

    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Feeds the next bytes of the stream; `sink` gets each item in order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ sink: (EventStreamItem) -> Void) throws(EventStreamOverflow) {
        var index = 0
        while !started && index < bytes.count {
            // The BOM is taken only whole, at the very start: a partial one is data.
            if bytes[index] == Self.bom[bomMatched] {
                bomMatched += 1
                index += 1
                if bomMatched == Self.bom.count { started = true }
            } else {
                started = true
                line.append(contentsOf: Self.bom[0..<bomMatched])
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == 0x0A || byte == 0x0D {
                if byte == 0x0A && afterCR {
                    afterCR = false
                    continue
                }
                afterCR = byte == 0x0D
                try endLine(sink)
                continue
            }
            afterCR = false
            // Copy the run up to the next line end at once.
            var end = index
            while end < bytes.count && bytes[end] != 0x0A && bytes[end] != 0x0D { end += 1 }
            guard line.count + 1 + (end - index) <= maxEventBytes else { throw EventStreamOverflow(limit: maxEventBytes, line: true) }
            line.append(byte)
            line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<end]))
            index = end
        }
    }

    private mutating func endLine(_ sink: (EventStreamItem) -> Void) throws(EventStreamOverflow) {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            dispatch(sink)
            return
        }
        if line[0] == UInt8(ascii: ":") {
            sink(.comment(Self.text(line[1...])))
            return
        }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = colon.map { line[..<$0] } ?? line[...]
        var valueStart = colon.map { $0 + 1 } ?? line.count
        if valueStart < line.count && line[valueStart] == 0x20 { valueStart += 1 }
        let value = line[valueStart...]
        switch Self.text(name) {
        case "event":
            eventType = Array(value)
        case "data":
            guard data.count + value.count + 1 <= maxEventBytes else { throw EventStreamOverflow(limit: maxEventBytes, line: false) }
            data.append(contentsOf: value)
            data.append(0x0A)
        case "id":
            if !value.contains(0) {
                lastEventID = Self.text(value)
                sawID = true
            }
        case "retry":
            let digits = value.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            var ms = 0
            var inRange = digits && !value.isEmpty
            if inRange {
                for digit in value {
                    ms = ms * 10 + Int(digit - 0x30)
                    if ms > Self.retryRange.upperBound {
                        inRange = false
                        break
                    }
                }
            }
            sink(inRange ? .retry(ms) : .retryRejected(Self.text(value.prefix(64))))
        default:
            break
        }
    }

    private mutating func dispatch(_ sink: (EventStreamItem) -> Void) {
        defer {
            data.removeAll(keepingCapacity: true)
            eventType.removeAll(keepingCapacity: true)
            sawID = false
        }
        guard !data.isEmpty else { return }
        data.removeLast()
        sink(.event(ServerSentEvent(type: eventType.isEmpty ? "message" : Self.text(eventType[...]), data: Self.text(data[...]),
                                    lastEventID: lastEventID, carriedID: sawID)))
    }

    /// UTF-8 with invalid sequences replaced (U+FFFD), as the spec decodes the stream.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
