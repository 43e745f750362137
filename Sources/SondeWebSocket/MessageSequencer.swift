import NIOCore
import SondeCore

/// Sequence-numbered application messages of one logical connection, across its reconnects.
///
/// A message is `[magic "sond": 4 bytes][sequence: UInt64 big-endian][filler]`, `size` bytes in
/// all (`SoakConfig` asks for at least 16), where filler byte i is
/// `UInt8(truncatingIfNeeded: sequence &* 31 &+ i)`, so any change to an echo is caught. Only a
/// message that starts with the magic is an echo candidate: anything else is a message the
/// server sent of its own accord (greetings, subscriptions, presence), counted as such and never
/// as corruption. Sequences keep counting across reconnects; an echo is expected on the
/// connection that sent it, so whatever is outstanding when a connection ends is lost.
///
/// Accounting invariant, per attempt: sent = received + lost + corrupted (an echo that does not
/// match is counted corrupted, not also lost; an echo whose magic was damaged counts as a message
/// of the server's and its original as lost); duplicates and reorders are counted on top.
/// Memory: one entry per message in flight.
struct MessageSequencer {
    /// "sond", the first 4 bytes of every message sonde sends.
    static let magic: UInt32 = 0x736F_6E64
    /// The magic and the sequence number, bytes.
    static let headerSize = 12

    private(set) var lastSent: UInt64 = 0
    /// In flight on the current connection: sequence → monotonic send time (ns).
    private var outstanding: [UInt64: UInt64] = [:]
    private var highestEchoed: UInt64 = 0
    private var counts = SoakAttempt.Messages()
    private var size = 0

    /// Writes the next message: `size` bytes, or the header alone if `size` is smaller.
    mutating func writeNext(size: Int, into buffer: inout ByteBuffer, at now: UInt64) {
        lastSent += 1
        self.size = size
        let sequence = lastSent
        buffer.writeInteger(Self.magic)
        buffer.writeInteger(sequence)
        let filler = max(0, size - Self.headerSize)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: filler) { raw in
            for i in 0..<filler { raw[i] = UInt8(truncatingIfNeeded: sequence &* 31 &+ UInt64(i)) }
            return filler
        }
        outstanding[sequence] = now
        counts.sent += 1
    }

    /// Checks one data message from the server: an echo of sonde's (returns its RTT, ns, when it
    /// is an intact first echo) or a message of the server's own (returns nil).
    mutating func receive(_ message: ByteBuffer, at now: UInt64) -> UInt64? {
        var buffer = message
        guard buffer.readInteger(as: UInt32.self) == Self.magic, let sequence = buffer.readInteger(as: UInt64.self) else {
            counts.fromServer.count += 1
            counts.fromServer.bytes += message.readableBytes
            return nil
        }
        guard sequence >= 1 && sequence <= lastSent else {
            // Not a sequence this connection sent: a corrupted header.
            counts.corrupted += 1
            return nil
        }
        guard let sentAt = outstanding.removeValue(forKey: sequence) else {
            counts.duplicated += 1
            return nil
        }
        let intact = buffer.readableBytes == size - Self.headerSize && buffer.withUnsafeReadableBytes { raw in
            for i in 0..<raw.count where raw[i] != UInt8(truncatingIfNeeded: sequence &* 31 &+ UInt64(i)) { return false }
            return true
        }
        guard intact else {
            counts.corrupted += 1
            return nil
        }
        counts.received += 1
        if sequence < highestEchoed { counts.reordered += 1 } else { highestEchoed = sequence }
        return now &- sentAt
    }

    /// The current connection's counts so far (messages in flight are not yet lost).
    var current: SoakAttempt.Messages { counts }

    /// Ends the current connection's accounting: what is still in flight is lost. Returns the
    /// attempt's counts and starts a fresh attempt.
    mutating func closeAttempt() -> SoakAttempt.Messages {
        counts.lost = outstanding.count
        let result = counts
        outstanding.removeAll()
        counts = SoakAttempt.Messages()
        highestEchoed = lastSent
        return result
    }
}
