#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only JSONL file: one JSON document per line, written as events happen.
///
/// Lines are buffered in memory and written with `write(2)` when the buffer passes 64 KiB or
/// when at least a second has passed since the last write, so at most about one second of
/// events is lost to a SIGKILL. Not thread-safe: one writer at a time.
public final class Journal {
    public let path: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// Bytes appended so far, written or still buffered: the file offset where the next line
    /// starts (a live report copies the task lines back from the file by these offsets).
    public private(set) var length: Int64 = 0
    private var lastFlushMicros = monotonicMicroseconds()
    private static let flushBytes = 64 * 1024
    private static let flushIntervalMicros: Int64 = 1_000_000

    /// Creates the journal at `path`, which must not exist: it is created exclusively and never
    /// through a symbolic link (`NoFollowFile.create`), so a planted link cannot redirect it.
    public init(path: String) throws(TaskError) {
        self.path = path
        descriptor = try NoFollowFile.create(path)
        buffer.reserveCapacity(Self.flushBytes * 2)
    }

    deinit {
        if descriptor >= 0 {
            try? flush()
            Glibc.close(descriptor)
        }
    }

    /// Appends one line; `json` must be a single-line JSON document.
    public func append(line json: [UInt8]) throws(TaskError) {
        buffer.append(contentsOf: json)
        length += Int64(json.count) + 1
        try endLine()
    }

    /// Appends the line `prefix + json + suffix`, which must be a single-line JSON document.
    public func append(prefix: [UInt8], _ json: UnsafeRawBufferPointer, suffix: [UInt8]) throws(TaskError) {
        buffer.append(contentsOf: prefix)
        buffer.append(contentsOf: json)
        buffer.append(contentsOf: suffix)
        length += Int64(prefix.count + json.count + suffix.count) + 1
        try endLine()
    }

    private func endLine() throws(TaskError) {
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.flushBytes || monotonicMicroseconds() - lastFlushMicros >= Self.flushIntervalMicros {
            try flush()
        }
    }

    /// Writes everything buffered to the file.
    /// Writes out what is buffered if the last write is a flush interval old (for idle periods,
    /// when no `append` comes to do it).
    public func flushIfDue() throws(TaskError) {
        if !buffer.isEmpty && monotonicMicroseconds() - lastFlushMicros >= Self.flushIntervalMicros { try flush() }
    }

    public func flush() throws(TaskError) {
        lastFlushMicros = monotonicMicroseconds()
        guard !buffer.isEmpty else { return }
        try writeAll(descriptor: descriptor, bytes: buffer, path: path)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes; further appends fail.
    public func close() throws(TaskError) {
        guard descriptor >= 0 else { return }
        defer {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
        try flush()
        if fsync(descriptor) != 0 && errno != EINVAL {
            throw TaskError(code: .localIOError, message: "cannot sync journal \(path): \(systemErrorMessage())")
        }
    }
}

/// Writes all of `bytes`, retrying short writes and EINTR; a full disk becomes a clear error.
public func writeAll(descriptor: Int32, bytes: [UInt8], path: String) throws(TaskError) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { raw in
            write(descriptor, raw.baseAddress! + offset, raw.count - offset)
        }
        if written < 0 {
            if errno == EINTR { continue }
            let hint = errno == ENOSPC ? " (the disk is full: free space and run again; the report is incomplete)" : ""
            throw TaskError(code: .localIOError, message: "cannot write \(path): \(systemErrorMessage())\(hint)")
        }
        offset += written
    }
}

/// `strerror(errno)` as a Swift string.
public func systemErrorMessage(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}
