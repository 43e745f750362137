import Foundation
import SondeCore

/// A file written under `<path>.partial` and renamed to `path` by `commit()`, so a reader never sees
/// half a report. If it is dropped without `commit()` (an error, a full disk), the partial file is removed.
/// Not thread-safe: one writer.
///
/// Invariant: the partial file is created afresh (`NoFollowFile.replace`: exclusively, never
/// through a symbolic link; a leftover or planted entry under its name is unlinked first), and
/// `rename(2)` replaces whatever is at `path` (a link included) without following it.
public final class AtomicFile {
    public let path: String
    private let temporary: String
    private var descriptor: Int32

    public init(path: String) throws(TaskError) {
        self.path = path
        temporary = path + ".partial"
        descriptor = try NoFollowFile.replace(temporary)
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(temporary)
        }
    }

    public func write(_ bytes: [UInt8]) throws(TaskError) {
        try writeAll(descriptor: descriptor, bytes: bytes, path: temporary)
    }

    /// Appends `length` bytes (all to its end when nil) of the file at `path` from byte `offset`
    /// (kernel-side with sendfile(2) when it can). A file shorter than asked gives what it has.
    public func append(contentsOfFile path: String, offset: Int64 = 0, length: Int64? = nil) throws(TaskError) {
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw TaskError(code: .localIOError, message: "cannot read \(path): \(systemErrorMessage())") }
        defer { close(source) }
        var position = off_t(max(0, offset))
        var remaining = max(0, length ?? Int64.max)
        var kernelCopies = true
        while remaining > 0 && kernelCopies {
            let copied = sendfile(descriptor, source, &position, Int(min(remaining, 1 << 30)))
            if copied > 0 { remaining -= Int64(copied); continue }
            if copied == 0 { return }
            if errno == EINTR { continue }
            if errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP { kernelCopies = false; continue }
            throw TaskError(code: .localIOError, message: "cannot write \(temporary): \(systemErrorMessage())")
        }
        guard remaining > 0 else { return }
        // Fallback (older kernels, some file systems): plain reads and writes.
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while remaining > 0 {
            let wanted = Int(min(remaining, Int64(block.count)))
            let count = block.withUnsafeMutableBytes { pread(source, $0.baseAddress, wanted, position) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TaskError(code: .localIOError, message: "cannot read \(path): \(systemErrorMessage())") }
            if count == 0 { return }
            try write(Array(block[0..<count]))
            position += off_t(count)
            remaining -= Int64(count)
        }
    }

    /// Where the content is written until `commit` (for reading it back before then).
    public var temporaryPath: String { temporary }

    /// Closes the file and gives it its final name.
    public func commit() throws(TaskError) {
        close(descriptor)
        descriptor = -1
        guard rename(temporary, path) == 0 else {
            let message = "cannot rename \(temporary) to \(path): \(systemErrorMessage())"
            unlink(temporary)
            throw TaskError(code: .localIOError, message: message)
        }
    }
}

/// Writes `bytes` to `path` through an `AtomicFile`.
public func writeFileAtomically(_ bytes: [UInt8], to path: String) throws(TaskError) {
    let file = try AtomicFile(path: path)
    try file.write(bytes)
    try file.commit()
}
