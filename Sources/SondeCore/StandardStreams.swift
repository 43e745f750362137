import Foundation

/// Writes to stdout and stderr that never stop the process. sonde ignores SIGPIPE (a send on a
/// connection cut under a transfer must fail, not kill it), so a reader that went away (`| head`)
/// makes a write fail with EPIPE: Foundation's `FileHandle.write(_:)` traps on that, these drop the
/// bytes instead and the run goes on to write its report files.
public enum StandardStreams {
    /// Writes `data` to standard output, all of it unless the descriptor fails.
    public static func writeOutput(_ data: Data) { write(data, to: STDOUT_FILENO) }

    /// Writes `data` to standard error, all of it unless the descriptor fails.
    public static func writeError(_ data: Data) { write(data, to: STDERR_FILENO) }

    static func write(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
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
