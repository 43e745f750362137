import Foundation
import SondeCore

/// One run's folder, `<output-dir>/<run-id>/`, and the names of the files in it
/// (documented in Reports/README.md).
public struct RunFolder: Sendable {
    public let path: String
    public var journalPath: String { path + "/journal.jsonl" }
    public var reportJSONPath: String { path + "/report.json" }
    public var reportHTMLPath: String { path + "/report.html" }

    /// Creates `<outputDirectory>/<runID>/`, with a clear error when that is impossible.
    public init(outputDirectory: String, runID: String) throws(TaskError) {
        path = (outputDirectory as NSString).appendingPathComponent(runID)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw TaskError(code: .localIOError, message: "cannot create the run folder \(path): \(error.localizedDescription)")
        }
    }

    public init(existing path: String) { self.path = path }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a reader never sees half a file.
public func writeFileAtomically(_ bytes: [UInt8], to path: String) throws(TaskError) {
    let temporary = path + ".partial"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
        throw TaskError(code: .localIOError, message: "cannot create \(temporary): \(systemErrorMessage())")
    }
    do {
        try writeAll(descriptor: descriptor, bytes: bytes, path: temporary)
    } catch {
        close(descriptor)
        unlink(temporary)
        throw error
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else {
        throw TaskError(code: .localIOError, message: "cannot rename \(temporary) to \(path): \(systemErrorMessage())")
    }
}
