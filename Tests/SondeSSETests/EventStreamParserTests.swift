import Testing
@testable import SondeSSE

@Suite struct EventStreamParserTests {
    /// Feeds `chunks` and returns what came out.
    private func parse(_ chunks: [[UInt8]], max: Int = 1 << 20) throws(EventStreamOverflow) -> [EventStreamItem] {
        var parser = EventStreamParser(maxEventBytes: max)
        var items: [EventStreamItem] = []
        for chunk in chunks {
            try parser.feed(array: chunk) { items.append($0) }
        }
        return items
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func fieldsCommentsAndDispatch() throws {
        let items = try parse([bytes(": hello\nevent: tick\ndata: a\ndata:b\nid: 7\nretry: 1500\n\ndata: second\n\n")])
        #expect(items == [
            .comment(" hello"),
            .retry(1500),
            .event(ServerSentEvent(type: "tick", data: "a\nb", lastEventID: "7", carriedID: true)),
            .event(ServerSentEvent(type: "message", data: "second", lastEventID: "7", carriedID: false)),
        ])
    }

    @Test func lineEndsCRLFLFAndCRSplitAcrossChunks() throws {
        // CR at one chunk's end, LF at the next one's start: one line end, not a blank line.
        let items = try parse([bytes("data: one\r"), bytes("\ndata: two\r\r"), bytes("data: three\n\n")])
        #expect(items == [.event(ServerSentEvent(data: "one\ntwo")), .event(ServerSentEvent(data: "three"))])
    }

    @Test func leadingBOMSkippedOnceEvenWhenSplit() throws {
        let items = try parse([[0xEF, 0xBB], [0xBF] + bytes("data: x\n\n") + [0xEF, 0xBB, 0xBF] + bytes("data: y\n\n")])
        // A BOM after the start is no BOM: it is part of the line's field name, which is then unknown.
        #expect(items == [.event(ServerSentEvent(data: "x"))])
    }

    @Test func emptyDataDispatchesNothingAndFieldWithoutColon() throws {
        let items = try parse([bytes("event: a\n\ndata\n\n")])
        // The first block has no data: nothing, and its event type does not carry over.
        #expect(items == [.event(ServerSentEvent(data: ""))])
    }

    @Test func retryOutOfRangeOrNotDigitsIsRejected() throws {
        let items = try parse([bytes("retry: 99999999999999\nretry: 12a\nretry: 600000\n")])
        #expect(items == [.retryRejected("99999999999999"), .retryRejected("12a"), .retry(600_000)])
    }

    @Test func idWithNULIsIgnored() throws {
        let items = try parse([bytes("id: 5\n\0id: x\0y\ndata: z\n\n")])
        if case .event(let event) = items.last { #expect(event.lastEventID == "5") } else { Issue.record("no event") }
    }

    @Test func endlessLineIsBounded() {
        var parser = EventStreamParser(maxEventBytes: 1024)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 300)
        var thrown: EventStreamOverflow?
        for _ in 0..<10 {
            do throws(EventStreamOverflow) {
                try parser.feed(array: chunk) { _ in }
            } catch {
                thrown = error
                break
            }
        }
        #expect(thrown == EventStreamOverflow(limit: 1024, line: true))
        #expect(parser.heldBytes <= 1024)
    }

    @Test func hugeEventIsBounded() {
        var parser = EventStreamParser(maxEventBytes: 1024)
        let line = bytes("data: " + String(repeating: "b", count: 200) + "\n")
        var thrown: EventStreamOverflow?
        for _ in 0..<10 {
            do throws(EventStreamOverflow) {
                try parser.feed(array: line) { _ in }
            } catch {
                thrown = error
                break
            }
        }
        #expect(thrown == EventStreamOverflow(limit: 1024, line: false))
    }

    @Test func unfinishedEventIsDroppedOnANewStreamButTheLastIDKept() throws {
        var parser = EventStreamParser(maxEventBytes: 1 << 16)
        var items: [EventStreamItem] = []
        try parser.feed(array: bytes("id: 41\ndata: done\n\nid: 42\ndata: half")) { items.append($0) }
        parser.beginStream()
        try parser.feed(array: bytes("data: next\n\n")) { items.append($0) }
        #expect(items == [.event(ServerSentEvent(data: "done", lastEventID: "41", carriedID: true)),
                          .event(ServerSentEvent(data: "next", lastEventID: "42", carriedID: false))])
    }
}

extension EventStreamParser {
    /// Feeds the bytes of `array` (the tests' chunks).
    mutating func feed(array: [UInt8], _ sink: (EventStreamItem) -> Void) throws(EventStreamOverflow) {
        var failure: EventStreamOverflow?
        array.withUnsafeBytes { bytes in
            do throws(EventStreamOverflow) { try self.feed(bytes, sink) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
