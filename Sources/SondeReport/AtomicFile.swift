import Foundation
import SondeCore

/// A file written under `<path>.partial` and renamed to `path` by `commit()`, so a reader never sees
/// half a report. If it is dropped without `commit()` (an error, a full disk), the partial file is removed.
/// Not thread-safe: one writer.
public final class AtomicFile {
    public let path: String
    private let temporary: String
    private var descriptor: Int32

    public init(path: String) throws(TaskError) {
        self.path = path
        temporary = path + ".partial"
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw TaskError(code: .localIOError, message: "cannot create \(temporary): \(systemErrorMessage())")
        }
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
