import NIOCore
import SondeCore

/// Sequence-numbered application messages of one logical connection, across its reconnects.
///
/// A message is `[sequence: UInt64 big-endian][filler]`, `size` bytes in all, where filler byte
/// i is `UInt8(truncatingIfNeeded: sequence &* 31 &+ i)`, so any change to an echo is caught.
/// Sequences keep counting across reconnects; an echo is expected on the connection that sent
/// it, so whatever is outstanding when a connection ends is lost.
///
/// Accounting invariant, per attempt: sent = received + lost + corrupted (an echo that does not
/// match is counted corrupted, not also lost); duplicates and reorders are counted on top.
/// Memory: one entry per message in flight.
struct MessageSequencer {
    private(set) var lastSent: UInt64 = 0
    /// In flight on the current connection: sequence → monotonic send time (ns).
    private var outstanding: [UInt64: UInt64] = [:]
    private var highestEchoed: UInt64 = 0
    private var counts = SoakAttempt.Messages()
    private var size = 0

    mutating func writeNext(size: Int, into buffer: inout ByteBuffer, at now: UInt64) {
        lastSent += 1
        self.size = size
        let sequence = lastSent
        buffer.writeInteger(sequence)
        let filler = size - 8
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: filler) { raw in
            for i in 0..<filler { raw[i] = UInt8(truncatingIfNeeded: sequence &* 31 &+ UInt64(i)) }
            return filler
        }
        outstanding[sequence] = now
        counts.sent += 1
    }

    /// Checks one echo; returns its RTT (ns) when it is an intact first echo.
    mutating func receive(_ buffer: ByteBuffer, at now: UInt64) -> UInt64? {
        var buffer = buffer
        guard let sequence = buffer.readInteger(as: UInt64.self) else {
            counts.corrupted += 1
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
        let intact = buffer.readableBytes == size - 8 && buffer.withUnsafeReadableBytes { raw in
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
