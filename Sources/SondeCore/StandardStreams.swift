import Foundation
import Synchronization

/// The one writer of sonde's standard output and standard error: every line sonde prints goes
/// through it (`line`, or `printLine`/`printError` in SondeRun), never through Swift's `print`
/// or a stdio `FILE`. Each call is one `write(2)`, handed to the kernel at once, on a terminal or
/// not: stdio block-buffers a stdout that is not a terminal, so a pipe's reader (a CI log) saw
/// nothing until the run ended. A lock keeps each call's bytes together when threads write at
/// once (checks running side by side, a status line beside a task line), on either stream, so
/// that `2>&1` keeps whole lines too.
///
/// The writes never stop the process. sonde ignores SIGPIPE (a send on a connection cut under a
/// transfer must fail, not kill it), so a reader that went away (`| head`) makes a write fail
/// with EPIPE: Foundation's `FileHandle.write(_:)` traps on that, these drop the bytes instead
/// and the run goes on to write its report files.
public enum StandardStreams {
    /// Standard output (descriptor 1) or standard error (2).
    public enum Stream: Sendable, Equatable {
        case output, error

        var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }
    }

    /// Held across one call's write, whichever stream it goes to.
    private static let lock = Mutex(())

    /// Writes `text` and a newline to `stream` as one write: the line is out when this returns.
    public static func line(_ text: String, to stream: Stream = .output) {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { write($0, to: stream.descriptor) }
    }

    /// Writes `text` as it is (no newline: a terminal's status line redrawn with `\r`).
    public static func write(_ text: String, to stream: Stream) {
        Array(text.utf8).withUnsafeBytes { write($0, to: stream.descriptor) }
    }

    /// Writes `data` to standard output, all of it unless the descriptor fails.
    public static func writeOutput(_ data: Data) { data.withUnsafeBytes { write($0, to: STDOUT_FILENO) } }

    /// Writes `data` to standard error, all of it unless the descriptor fails.
    public static func writeError(_ data: Data) { data.withUnsafeBytes { write($0, to: STDERR_FILENO) } }

    private static func write(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) {
        lock.withLock { _ in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = Glibc.write(descriptor, base, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // EPIPE, a closed descriptor: the reader is gone
                }
                remaining -= written
                base += written
            }
        }
    }
}
