import Foundation
import SondeCore

/// One run's folder, `<output-dir>/<run-id>/`, and the names of the files in it
/// (documented in Reports/README.md).
public struct RunFolder: Sendable {
    public let path: String
    public var journalPath: String { path + "/journal.jsonl" }
    public var reportJSONPath: String { path + "/report.json" }
    public var reportHTMLPath: String { path + "/report.html" }
    public var reportHARPath: String { path + "/report.har" }
    public var junitPath: String { path + "/junit.xml" }

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
