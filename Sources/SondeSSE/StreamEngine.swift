import Synchronization
import SondeCore
import SondeHTTP
import Foundation

/// Runs `streams` EventSource clients of one URL at once on one libcurl multi handle
/// (`ConcurrentTransfers`: HTTP/2 streams share a connection, HTTP/1.1 ones each take their own),
/// for `durationS` or until each has `maxEventsPerStream` events, reconnecting as EventSource
/// does: after the server's `retry:` delay (default 3 s), with `Last-Event-ID`; never after a
/// response that is not a 200 `text/event-stream` (a clear error), nor after an oversized line or event.
///
/// Threading: `run` blocks the calling thread (libcurl's callbacks run on it); `status` may be
/// read from any thread meanwhile.
public final class StreamEngine: Sendable {
    public let options: StreamOptions
    private let redactor: Redactor
    private let live = Mutex(LiveCounts())

    /// The counters the status line shows.
    public struct LiveCounts: Sendable {
        public var events = 0
        public var comments = 0
        public var reconnects = 0
        public var up = 0
        public var lastEventID = ""
    }

    public init(options: StreamOptions, redactor: Redactor) {
        self.options = options
        self.redactor = redactor
    }

    public var counts: LiveCounts { live.withLock { $0 } }

    /// A status line's text: `up 2/2, 120 events, 4 comments, 1 reconnect, last id 119`.
    public var status: String {
        let counts = self.counts
        return "up \(counts.up)/\(options.streams), \(counts.events) event\(counts.events == 1 ? "" : "s"), \(counts.comments) comment"
            + "\(counts.comments == 1 ? "" : "s"), \(counts.reconnects) reconnect\(counts.reconnects == 1 ? "" : "s")"
            + (counts.lastEventID.isEmpty ? "" : ", last id \(TerminalSafe.text(counts.lastEventID, max: 32))")
    }

    /// One stream's state on the engine's thread.
    private final class Slot {
        var parser: EventStreamParser
        var tracker: StreamTracker
        var attempt = 0
        /// Set by the consumer: why it ended the transfer (a bad response, an overflow, the event count).
        var stopCause: (cause: StreamEndCause, error: TaskError?)?
        /// The response was a 200 event stream.
        var accepted = false
        var responded = false
        /// Monotonic µs at which the next connection starts; nil: none planned.
        var nextStart: Int64?
        var nextDelayMs: Int?
        var done = false

        init(stream: Int, options: StreamOptions) {
            parser = EventStreamParser(maxEventBytes: options.maxEventBytes)
            tracker = StreamTracker(stream: stream, stampField: options.stampField)
        }
    }

    /// Runs the streams to their end. `note` gets the terminal's lines' events, on this thread.
    /// - Parameter shouldStop: polled about every 100 ms (Ctrl-C, the run's time limit).
    /// - Throws: when libcurl cannot set up the transfers (nothing ran then).
    public func run(check: String? = nil, shouldStop: () -> Bool, note: (StreamNote) -> Void) throws(TaskError) -> StreamReport {
        let transfers = try ConcurrentTransfers(options: options.transport, redactor: redactor, count: options.streams,
                                                multiplex: options.mayMultiplex)
        let startedAt = Timestamp.now()
        let start = monotonicMicroseconds()
        let deadline = start + Int64(options.durationS * 1_000_000)
        let slots = (0..<options.streams).map { Slot(stream: $0 + 1, options: options) }
        let pending = Pending()
        pending.slots = slots
        func flush() {
            for item in pending.notes { note(item) }
            pending.notes.removeAll()
        }
        var failure: String?
        for index in slots.indices { slots[index].nextStart = start }
        var interrupted = false
        while true {
            let now = monotonicMicroseconds()
            if shouldStop() { interrupted = true }
            if interrupted || now >= deadline {
                for index in slots.indices {
                    if let response = transfers.cancel(index) {
                        flush()
                        ended(slots[index], index, response, cause: interrupted ? .interrupted : .plannedEnd, transfers, note)
                    }
                    slots[index].nextStart = nil
                    slots[index].done = true
                }
                break
            }
            for (index, slot) in slots.enumerated() where !slot.done && !transfers.isRunning(index) {
                guard let next = slot.nextStart, next <= now else { continue }
                if let problem = begin(slot, index, transfers, pending, at: now) {
                    failure = failure ?? problem
                    slot.done = true
                }
            }
            if slots.allSatisfy(\.done) { break }
            let soonest = slots.compactMap { $0.done ? nil : $0.nextStart }.min().map { max(0, ($0 - now) / 1000) } ?? 100
            for (index, response) in transfers.drive(waitMs: Int32(min(100, max(1, soonest)))) {
                flush()
                ended(slots[index], index, response, cause: nil, transfers, note)
            }
            flush()
        }
        let figures = slots.map(\.tracker.finished)
        return StreamReport(url: redactor.redact(url: options.url), config: options.config(redactor: redactor), startedAt: startedAt,
                            finishedAt: .now(), check: check, streams: figures,
                            total: Self.totals(figures, slots.map(\.tracker), setupFailure: failure))
    }

    /// Starts `slot`'s next connection; a problem when libcurl refused it.
    private func begin(_ slot: Slot, _ index: Int, _ transfers: ConcurrentTransfers, _ pending: Pending, at now: Int64) -> String? {
        slot.attempt += 1
        slot.stopCause = nil
        slot.accepted = false
        slot.responded = false
        slot.parser.beginStream()
        let lastID = slot.parser.lastEventID.isEmpty ? nil : slot.parser.lastEventID
        slot.tracker.begin(attempt: slot.attempt, at: now, lastEventIDSent: slot.attempt > 1 ? lastID : nil,
                           delayMs: slot.attempt > 1 ? slot.nextDelayMs : nil)
        slot.nextStart = nil
        do throws(TaskError) {
            try transfers.start(index, url: options.url, headers: options.requestHeaders(lastEventID: slot.attempt > 1 ? lastID : nil)) {
                [unowned self, unowned slot, unowned transfers, unowned pending] head, chunk in
                self.consume(slot, index, head, chunk, transfers, pending)
            }
        } catch {
            _ = slot.tracker.end(cause: .networkError, error: error, bytes: 0, firstByteMicros: nil, at: now) { _ in }
            return error.message
        }
        return nil
    }

    /// One body chunk of `slot`'s connection: the response judged once, then parsed.
    private func consume(_ slot: Slot, _ index: Int, _ head: ResponseHead, _ chunk: UnsafeRawBufferPointer,
                         _ transfers: ConcurrentTransfers, _ pending: Pending) -> Bool {
        let now = monotonicMicroseconds()
        if !slot.responded {
            slot.responded = true
            let contentType = head.value("Content-Type")
            slot.tracker.responded(status: head.status, contentType: contentType, httpVersion: transfers.httpVersion(index),
                                   connectionID: transfers.connectionID(index))
            if let problem = Self.responseProblem(status: head.status, contentType: contentType) {
                slot.stopCause = (.badResponse, TaskError(code: .protocolError, message: problem))
                return false
            }
            slot.accepted = true
            live.withLock { $0.up += 1 }
            pending.notes.append(.connected(stream: slot.tracker.figures.stream, attempt: slot.attempt,
                                           httpVersion: transfers.httpVersion(index), connectionID: transfers.connectionID(index)))
            markSharing(pending)
        }
        let wall = Timestamp.now()
        var wantMore = true
        do throws(EventStreamOverflow) {
            try slot.parser.feed(chunk) { item in
                switch item {
                case .event(let event):
                    guard wantMore else { return }
                    slot.tracker.event(event, at: now, wall: wall) { pending.notes.append($0) }
                    live.withLock {
                        $0.events += 1
                        if event.carriedID { $0.lastEventID = event.lastEventID }
                    }
                    if let most = options.maxEventsPerStream, slot.tracker.figures.events >= most {
                        slot.stopCause = (.plannedEnd, nil)
                        wantMore = false
                    }
                case .comment:
                    slot.tracker.comment()
                    live.withLock { $0.comments += 1 }
                case .retry(let ms):
                    slot.tracker.retry(ms)
                case .retryRejected(let value):
                    slot.tracker.retryRejected(value)
                    pending.notes.append(.retryRejected(stream: slot.tracker.figures.stream, value: value))
                }
            }
        } catch {
            slot.stopCause = (.oversized, TaskError(code: .protocolError, message: error.message))
            return false
        }
        return wantMore
    }

    /// Notes made inside libcurl's callbacks, handed out after each drive, and the streams (engine thread only).
    private final class Pending {
        var notes: [StreamNote] = []
        var slots: [Slot] = []
    }

    /// Every running stream's connection learns how many running streams share it (equal connection ids).
    private func markSharing(_ pending: Pending) {
        let current = pending.slots.map { $0.accepted ? $0.tracker.current?.connectionID : nil }
        var counts: [Int64: Int] = [:]
        for id in current.compactMap({ $0 }) { counts[id, default: 0] += 1 }
        for (slot, id) in zip(pending.slots, current) {
            guard let id, let count = counts[id] else { continue }
            slot.tracker.shared(by: count)
        }
    }

    /// A connection of `slot` ended: recorded, and the next one planned when EventSource would reconnect.
    private func ended(_ slot: Slot, _ index: Int, _ response: StreamedResponse, cause forced: StreamEndCause?,
                       _ transfers: ConcurrentTransfers, _ note: (StreamNote) -> Void) {
        let now = monotonicMicroseconds()
        var cause: StreamEndCause
        var error = response.error
        if let forced {
            cause = forced
        } else if let stop = slot.stopCause {
            cause = stop.cause
            error = stop.error
        } else if !slot.accepted, let head = response.head, let problem = Self.responseProblem(status: head.status, contentType: head.value("Content-Type")) {
            cause = .badResponse
            error = TaskError(code: .protocolError, message: problem)
            slot.tracker.responded(status: head.status, contentType: head.value("Content-Type"), httpVersion: transfers.httpVersion(index),
                                   connectionID: transfers.connectionID(index))
        } else {
            cause = response.error == nil ? .serverClosed : .networkError
        }
        if slot.accepted { live.withLock { $0.up -= 1 } }
        let reconnects = options.reconnect && (cause == .serverClosed || cause == .networkError)
        let delay = slot.tracker.figures.retryMs ?? options.defaultRetryMs
        let record = slot.tracker.end(cause: cause, error: error, bytes: response.bodyBytes, firstByteMicros: response.firstByteMicros, at: now) { note($0) }
        note(.ended(stream: slot.tracker.figures.stream, attempt: slot.attempt, cause: cause, error: error?.message,
                    events: record?.events ?? 0, delayMs: reconnects ? delay : nil,
                    lastEventID: slot.parser.lastEventID.isEmpty ? nil : slot.parser.lastEventID))
        if reconnects {
            slot.nextStart = now + Int64(delay) * 1000
            slot.nextDelayMs = delay
            live.withLock { $0.reconnects += 1 }
        } else {
            slot.done = true
        }
    }

    /// Why a response is not an event stream EventSource would read, or nil: a 200 whose
    /// Content-Type is `text/event-stream` (parameters allowed).
    static func responseProblem(status: Int, contentType: String?) -> String? {
        let type = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if status == 200 && type == "text/event-stream" { return nil }
        let shown = contentType.map { "Content-Type \(TerminalSafe.text($0, max: 80))" } ?? "no Content-Type"
        return "the response was \(status) with \(shown), not 200 text/event-stream: EventSource fails the connection and does not reconnect"
    }

    /// The figures over every stream.
    static func totals(_ figures: [StreamFigures], _ trackers: [StreamTracker], setupFailure: String?) -> StreamTotals {
        var gaps = LatencyDistribution()
        var delays = LatencyDistribution()
        var first = LatencyDistribution()
        var eligible = 0, bunched = 0
        for tracker in trackers {
            gaps.add(tracker.gapDistribution)
            delays.add(tracker.delayDistribution)
            eligible += tracker.burstCounts.eligible
            bunched += tracker.burstCounts.bunched
        }
        for stream in figures { if let ms = stream.firstEventMs { first.record(milliseconds: ms) } }
        let firstConnections = figures.compactMap { $0.connections.first?.connectionID }
        let perConnection = Dictionary(grouping: firstConnections, by: { $0 }).mapValues(\.count)
        let bad = figures.flatMap(\.connections).first { $0.endCause == .badResponse || $0.endCause == .oversized }
        let silent = figures.first { $0.events == 0 && $0.connections.first?.endCause == .networkError }
        let failure = setupFailure ?? bad?.error?.message ?? silent.map { "stream \($0.stream) never received an event: "
            + ($0.connections.first?.error?.message ?? "the connection failed") }
        return StreamTotals(events: figures.reduce(0) { $0 + $1.events }, comments: figures.reduce(0) { $0 + $1.comments },
                            reconnects: figures.reduce(0) { $0 + $1.reconnects }, firstEventMs: first.summary,
                            gapsMs: gaps.summary, deliveryDelayMs: delays.summary,
                            burstIndex: eligible > 0 ? Double(bunched) / Double(eligible) : nil, bursts: figures.reduce(0) { $0 + $1.bursts },
                            lostIDs: figures.reduce(0) { $0 + $1.ids.lost }, repeatedIDs: figures.reduce(0) { $0 + $1.ids.repeated },
                            connections: perConnection.count, maxStreamsPerConnection: perConnection.values.max() ?? 0,
                            passed: failure == nil, failure: failure)
    }
}
