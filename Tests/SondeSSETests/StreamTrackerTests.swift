import Foundation
import SondeCore
import Testing
@testable import SondeSSE

/// The stream figures' definitions (docs/sse.md): gaps, the burst index and bursts, id continuity,
/// the send stamp.
@Suite struct StreamTrackerTests {
    private func event(_ id: Int, sent: Double? = nil) -> ServerSentEvent {
        ServerSentEvent(data: sent.map { "{\"sent\": \($0), \"n\": \(id)}" } ?? "x", lastEventID: "\(id)", carriedID: true)
    }

    /// Events every 100 ms by their stamps that arrive 5 at a time (held and let go): 4 of every
    /// 5 eligible ones are bunched, each group a burst; the delivery delay is the holding.
    @Test func heldEventsAreBunchedAndBursts() {
        var tracker = StreamTracker(stream: 1, stampField: "sent")
        var notes: [StreamNote] = []
        let wall0 = Date().timeIntervalSince1970
        tracker.begin(attempt: 1, at: 0, lastEventIDSent: nil, delayMs: nil)
        for n in 0..<20 {
            let sent = wall0 + Double(n) * 0.1
            let group = n / 5
            // Released at the end of the group's last send: 500 ms per group, 1 ms apart inside it.
            let arrival = Int64(group + 1) * 500_000 + Int64(n % 5) * 1000
            let wall = Timestamp(microsecondsSince1970: Int64((wall0 + Double(arrival) / 1e6) * 1e6))
            tracker.event(event(n + 1, sent: sent), at: arrival, wall: wall) { notes.append($0) }
        }
        _ = tracker.end(cause: .plannedEnd, error: nil, bytes: 0, firstByteMicros: nil, at: 3_000_000) { notes.append($0) }
        let figures = tracker.finished
        #expect(figures.events == 20)
        // 19 gaps, all eligible (100 ms stamps apart); 16 within 25 ms of the previous arrival.
        #expect(figures.burstIndex == 16.0 / 19.0)
        #expect(figures.bursts == 4)
        #expect(notes.filter { if case .burst = $0 { return true } else { return false } }.count == 4)
        // The first event waits 500 ms, the fifth of a group 100 ms.
        #expect((figures.deliveryDelayMs?.max ?? 0) > 450 && (figures.deliveryDelayMs?.min ?? 1000) < 120, "\(String(describing: figures.deliveryDelayMs))")
        #expect(figures.ids.lost == 0 && figures.ids.repeated == 0)
    }

    /// Without stamps the cadence is the mean arrival gap so far: steady events are not bunched.
    @Test func steadyEventsWithoutStampsHaveNoBursts() {
        var tracker = StreamTracker(stream: 1, stampField: nil)
        tracker.begin(attempt: 1, at: 0, lastEventIDSent: nil, delayMs: nil)
        for n in 0..<30 { tracker.event(event(n + 1), at: Int64(n) * 50_000 + 10_000, wall: .now()) { _ in } }
        let figures = tracker.finished
        #expect(figures.burstIndex == 0 && figures.bursts == 0)
        #expect(figures.gapsMs?.p50 == 50 && figures.gapsMs?.count == 29)
        #expect(figures.deliveryDelayMs == nil && figures.unstamped == 0)
    }

    /// Ids skipped within a connection and across a reconnect (against the Last-Event-ID sent),
    /// and ids received again.
    @Test func lostAndRepeatedIDs() {
        var tracker = StreamTracker(stream: 1, stampField: nil)
        var lost: [String] = []
        tracker.begin(attempt: 1, at: 0, lastEventIDSent: nil, delayMs: nil)
        for id in [1, 2, 3, 6, 7] { tracker.event(event(id), at: Int64(id) * 1000, wall: .now()) { if case .idsLost(_, let a, let b) = $0 { lost.append("\(a)-\(b)") } } }
        _ = tracker.end(cause: .serverClosed, error: nil, bytes: 0, firstByteMicros: nil, at: 10_000) { _ in }
        tracker.begin(attempt: 2, at: 20_000, lastEventIDSent: "7", delayMs: 100)
        for id in [10, 10, 11] { tracker.event(event(id), at: 30_000 + Int64(id), wall: .now()) { if case .idsLost(_, let a, let b) = $0 { lost.append("\(a)-\(b)") } } }
        let figures = tracker.finished
        #expect(figures.ids.lost == 4 && figures.ids.lostAcrossReconnects == 2)
        #expect(figures.ids.repeated == 1 && figures.ids.repeatedAcrossReconnects == 0)
        #expect(figures.ids.lostRanges == ["4-5", "8-9"] && lost == ["4-5", "8-9"])
        #expect(figures.reconnects == 0, "the reconnect counts when its connection ends")
    }

    /// Ids at the ends of Int64 from a server: counted, held at the largest count, never a trap.
    @Test func extremeIDsDoNotTrap() {
        var tracker = StreamTracker(stream: 1, stampField: nil)
        tracker.begin(attempt: 1, at: 0, lastEventIDSent: nil, delayMs: nil)
        for id in [Int64.min, Int64.max, Int64.min, 0, Int64.max] {
            tracker.event(ServerSentEvent(data: "x", lastEventID: "\(id)", carriedID: true), at: 1000, wall: .now()) { _ in }
        }
        let ids = tracker.finished.ids
        #expect(ids.lost == Int.max && ids.repeated == 3)
        #expect(ids.lostRanges.first == "\(Int64.min + 1)-\(Int64.max - 1)")
    }

    @Test func stampsAreRangeChecked() {
        let now = Date().timeIntervalSince1970
        #expect(abs((StreamTracker.stamp(in: "{\"sent\": \(now)}", field: "sent") ?? 0) - now) < 0.001)
        #expect(StreamTracker.stamp(in: "{\"sent\": \"\(now)\"}", field: "sent") != nil)
        #expect(StreamTracker.stamp(in: "{\"sent\": 1e300}", field: "sent") == nil)
        #expect(StreamTracker.stamp(in: "{\"sent\": true}", field: "sent") == nil)
        #expect(StreamTracker.stamp(in: "{\"other\": 1}", field: "sent") == nil)
        #expect(StreamTracker.stamp(in: "[1, 2]", field: "sent") == nil)
    }

    @Test func onlyA200EventStreamIsAccepted() {
        #expect(StreamEngine.responseProblem(status: 200, contentType: "text/event-stream; charset=utf-8") == nil)
        #expect(StreamEngine.responseProblem(status: 200, contentType: "Text/Event-Stream") == nil)
        #expect(StreamEngine.responseProblem(status: 200, contentType: "text/html")?.contains("Content-Type text/html") == true)
        #expect(StreamEngine.responseProblem(status: 204, contentType: nil)?.contains("204 with no Content-Type") == true)
    }
}
