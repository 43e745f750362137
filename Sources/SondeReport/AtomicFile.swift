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

    /// Closes the file and gives it its final name.
    /// Appends the whole content of the file at `path` (kernel-side with sendfile(2) when it can).
    public func append(contentsOfFile path: String) throws(TaskError) {
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw TaskError(code: .localIOError, message: "cannot read \(path): \(systemErrorMessage())") }
        defer { close(source) }
        while true {
            let copied = sendfile(descriptor, source, nil, 1 << 30)
            if copied > 0 { continue }
            if copied == 0 { return }
            if errno == EINTR { continue }
            if errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP { break }
            throw TaskError(code: .localIOError, message: "cannot write \(temporary): \(systemErrorMessage())")
        }
        // Fallback (older kernels, some file systems): plain reads and writes.
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = block.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TaskError(code: .localIOError, message: "cannot read \(path): \(systemErrorMessage())") }
            if count == 0 { return }
            try write(Array(block[0..<count]))
        }
    }

    /// Where the content is written until `commit` (for reading it back before then).
    public var temporaryPath: String { temporary }

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
