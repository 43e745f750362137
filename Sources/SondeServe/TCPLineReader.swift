import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The lines of a connection as Go's `bufio.Scanner` with `ScanLines` gives them: split at `\n`,
/// a `\r` before it dropped, the last line without a newline given at the end of the stream, and
/// a line longer than 64 KiB an error (`bufio.ErrTooLong`), so that a peer sending no newline
/// cannot make the probe hold more than that.
///
/// Threading: owned by the probe's task.
struct TCPLineReader {
    /// Go's `bufio.MaxScanTokenSize`.
    static let maxLine = 64 * 1024

    enum Failure: Error {
        /// A line longer than `maxLine`.
        case tooLong
    }

    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    /// Bytes received and not yet taken start at `start`: a line taken moves `start` (no copy of
    /// the rest, so a buffer of many short lines costs its length once, not once per line).
    private var pending: [UInt8] = []
    private var start = 0
    /// Where the search for a newline goes on from (bytes from `start` up to it hold none).
    private var searched = 0
    private var ended = false

    init(_ iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator) {
        self.iterator = iterator
    }

    /// The next line (bytes, without its line end); nil at the end of the stream.
    /// - Throws: `Failure.tooLong`, or the channel's error (a closed connection at the deadline).
    mutating func next() async throws -> [UInt8]? {
        while true {
            if let newline = Self.newline(in: pending, from: max(start, searched)) {
                var line = Array(pending[start..<newline])
                start = newline + 1
                searched = start
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return line
            }
            searched = pending.count
            if pending.count - start >= Self.maxLine { throw Failure.tooLong }
            if ended {
                guard start < pending.count else { return nil }
                defer { discardBuffered() }
                let rest = pending[start...]
                return rest.last == UInt8(ascii: "\r") ? Array(rest.dropLast()) : Array(rest)
            }
            guard let buffer = try await iterator.next() else {
                ended = true
                continue
            }
            // What was taken goes before more is appended (at most one copy of the rest per read).
            if start > 0 {
                pending.removeFirst(start)
                searched -= start
                start = 0
            }
            pending.append(contentsOf: buffer.readableBytesView)
        }
    }

    /// The index of the first `\n` in `bytes` at or after `from` (memchr: this runs once per line of
    /// a peer that may stream lines as fast as it can).
    private static func newline(in bytes: [UInt8], from: Int) -> Int? {
        guard from < bytes.count else { return nil }
        return bytes.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let found = memchr(base + from, 0x0A, raw.count - from) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// Forgets what was read and not yet taken (after a STARTTLS step, as Go starts a new scanner).
    mutating func discardBuffered() {
        pending.removeAll()
        start = 0
        searched = 0
    }
}
