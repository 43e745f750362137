@testable import SondeCore
import Testing

/// `CaptureMatcher.reuseAgrees`: the packets contradict libcurl's reuse flag only beyond the
/// clocks' slack, each way against the instant that decides it (issue 39 #21).
@Suite struct CaptureMatcherReuseTests {
    /// A transaction starting at `fetch` (µs), after `queue` ms in sonde's queue, its request at `request` (µs).
    static func transaction(reused: Bool, fetch: Int64, queue: Double? = nil, request: Int64? = nil) -> TransactionMetrics {
        var t = TransactionMetrics(request: RequestRecord(method: "GET", url: "http://127.0.0.1:80/", headers: []),
                                   fetchStartDate: Timestamp(microsecondsSince1970: fetch), networkProtocolName: "http/1.1",
                                   isReusedConnection: reused, phases: Phases())
        t.queue = queue
        t.requestStartDate = request.map { Timestamp(microsecondsSince1970: $0) }
        return t
    }

    static func agrees(syn: Int64, _ transaction: TransactionMetrics) -> Bool? {
        CaptureMatcher.reuseAgrees(openedAt: Timestamp(microsecondsSince1970: syn), transaction)
    }

    @Test func theIssuesReusedTransactionAgrees() {
        // SYN at .398593, the reused transaction at .399164 (its request a few µs later).
        #expect(Self.agrees(syn: 1_398_593, Self.transaction(reused: true, fetch: 1_399_164, request: 1_399_180)) == true)
    }

    @Test func aQueuedHopThatReusesTheConnectionOpenedMeanwhileAgrees() {
        // Queued 0.8 ms from 1.000000 while another hop opened the connection (SYN at 1.000300).
        #expect(Self.agrees(syn: 1_000_300, Self.transaction(reused: true, fetch: 1_000_000, queue: 0.8, request: 1_000_950)) == true)
        // A new connection's SYN comes after the hop left the queue, not after it was queued.
        #expect(Self.agrees(syn: 1_000_900, Self.transaction(reused: false, fetch: 1_000_000, queue: 0.8)) == true)
        #expect(Self.agrees(syn: 997_000, Self.transaction(reused: false, fetch: 1_000_000, queue: 2.0)) == false)
    }

    @Test func clearContradictionsStillDisagree() {
        // "Reused", but the connection's SYN went out 3 ms after the request.
        #expect(Self.agrees(syn: 1_004_000, Self.transaction(reused: true, fetch: 1_000_000, request: 1_001_000)) == false)
        // "New", but its SYN went out 3 ms before the transaction began.
        #expect(Self.agrees(syn: 997_000, Self.transaction(reused: false, fetch: 1_000_000)) == false)
        // Within the slack, the flag stands.
        #expect(Self.agrees(syn: 999_500, Self.transaction(reused: false, fetch: 1_000_000)) == true)
        #expect(Self.agrees(syn: 1_001_500, Self.transaction(reused: true, fetch: 1_000_000, request: 1_000_800)) == true)
        #expect(CaptureMatcher.reuseAgrees(openedAt: nil, Self.transaction(reused: true, fetch: 1_000_000)) == nil)
    }
}
