import NIOCore
import SondeCore
import Testing
@testable import SondeWebSocket

@Suite struct MessageSequencerTests {
    private func message(_ sequencer: inout MessageSequencer, size: Int = 32, at time: UInt64 = 0) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        sequencer.writeNext(size: size, into: &buffer, at: time)
        return buffer
    }

    @Test func countsEveryFateOfAMessage() {
        var sequencer = MessageSequencer()
        let first = message(&sequencer, at: 1_000)
        let second = message(&sequencer, at: 2_000)
        let third = message(&sequencer)
        let fourth = message(&sequencer)
        _ = message(&sequencer)  // never echoed: lost

        #expect(sequencer.receive(second, at: 5_000) == 3_000)
        #expect(sequencer.receive(first, at: 6_000) == 5_000)  // after a later one: reordered
        #expect(sequencer.receive(first, at: 7_000) == nil)  // again: duplicated
        var damaged = third
        damaged.setInteger(UInt8(0xFF), at: damaged.readerIndex + 20)
        #expect(sequencer.receive(damaged, at: 8_000) == nil)  // corrupted
        var short = fourth
        short.moveWriterIndex(to: short.writerIndex - 1)
        #expect(sequencer.receive(short, at: 8_000) == nil)  // truncated: corrupted
        var forged = ByteBufferAllocator().buffer(capacity: 32)
        forged.writeInteger(MessageSequencer.magic)
        forged.writeInteger(UInt64(999))
        #expect(sequencer.receive(forged, at: 8_000) == nil)  // sonde's format, never sent: corrupted

        let counts = sequencer.closeAttempt()
        #expect(counts.sent == 5)
        #expect(counts.received == 2)
        #expect(counts.reordered == 1)
        #expect(counts.duplicated == 1)
        #expect(counts.corrupted == 3)
        #expect(counts.lost == 1)
        // Accounting: what was sent is received, lost, or corrupted (the forged one was never sent).
        #expect(counts.sent == counts.received + counts.lost + counts.corrupted - 1)
    }

    @Test func whatIsInFlightAtACloseIsLostAndSequencesGoOn() {
        var sequencer = MessageSequencer()
        let early = message(&sequencer)
        _ = message(&sequencer)
        #expect(sequencer.closeAttempt().lost == 2)
        let next = message(&sequencer)
        #expect(sequencer.lastSent == 3)
        // An echo of the previous connection's message on the new one is not counted as received.
        #expect(sequencer.receive(early, at: 1) == nil)
        #expect(sequencer.receive(next, at: 1) != nil)
        let counts = sequencer.closeAttempt()
        #expect(counts.sent == 1 && counts.received == 1 && counts.lost == 0 && counts.duplicated == 1)
    }

    /// Servers push messages of their own (greetings, subscriptions, presence): only a message in
    /// sonde's format is an echo candidate, even one whose first 8 bytes read as a sent sequence.
    @Test func messagesThatAreNotSondesAreTheServersOwnNotCorruptedEchoes() {
        var sequencer = MessageSequencer()
        let mine = message(&sequencer, at: 1_000)
        let welcome = ByteBufferAllocator().buffer(string: "welcome")
        var lookalike = ByteBufferAllocator().buffer(capacity: 16)
        lookalike.writeInteger(UInt64(1))
        lookalike.writeString("presence")
        #expect(sequencer.receive(welcome, at: 2_000) == nil)
        #expect(sequencer.receive(lookalike, at: 2_000) == nil)
        #expect(sequencer.receive(mine, at: 3_000) == 2_000)
        let counts = sequencer.closeAttempt()
        #expect(counts.corrupted == 0 && counts.duplicated == 0 && counts.received == 1 && counts.lost == 0, "\(counts)")
        #expect(counts.fromServer.count == 2 && counts.fromServer.bytes == 7 + 16, "\(counts)")
    }
}
