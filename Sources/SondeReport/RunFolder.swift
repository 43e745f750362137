import Foundation
import SondeCore

/// One run's folder, `<output-dir>/<run-id>/`, and the names of the files in it
/// (documented in Reports/README.md).
///
/// Invariant: a folder made by `init(outputDirectory:runID:)` was created by this process with
/// `mkdir(2)` (never an existing folder, never through a symbolic link), so nothing in it was
/// planted before the run; `init(exactly:runID:)` (`--run-dir`) makes it so too, or takes a folder
/// that was empty and not a link when it looked; every file sonde writes in it is created with
/// `NoFollowFile`.
public struct RunFolder: Sendable {
    public let path: String
    /// The run id the folder is named after: the one asked for, or another one when that name
    /// was taken (see `init(outputDirectory:runID:)`).
    public let runID: String
    public var journalPath: String { path + "/journal.jsonl" }
    public var reportJSONPath: String { path + "/report.json" }
    public var reportHTMLPath: String { path + "/report.html" }
    public var reportHARPath: String { path + "/report.har" }
    public var junitPath: String { path + "/junit.xml" }

    /// How many names are tried before giving up when every one is taken.
    static let attempts = 16

    /// Creates `<outputDirectory>/<runID>/` exclusively, with a clear error when that is
    /// impossible. `outputDirectory` is created (with its parents) when missing. When the name
    /// is taken (by anything: an earlier run, a file, a planted link), the random suffix after
    /// the id's last `-` is drawn again, at most `attempts` times; `runID` tells which name won.
    public init(outputDirectory: String, runID: String) throws(TaskError) {
        try Self.prepare(outputDirectory: outputDirectory)
        var candidate = runID
        for _ in 0..<Self.attempts {
            let path = (outputDirectory as NSString).appendingPathComponent(candidate)
            if try NoFollowFile.makeDirectory(path) {
                self.path = path
                self.runID = candidate
                return
            }
            candidate = Self.redrawn(runID)
        }
        throw TaskError(code: .localIOError, message: "cannot create a run folder in \(outputDirectory): \(Self.attempts) names "
            + "in a row were already taken (by files, folders or links that sonde did not make); choose another --output-dir")
    }

    /// Uses `path` itself as the run's folder (`--run-dir`): made with `mkdir(2)` (its missing
    /// parents first) when absent, or taken when it is an empty folder; a symbolic link there (to
    /// anything) and anything that is not an empty folder are refused with a `TaskError` in one
    /// sentence. `runID` is kept as the run's id whatever the folder's name.
    public init(exactly path: String, runID: String) throws(TaskError) {
        func refused(_ why: String) -> TaskError {
            TaskError(code: .localIOError, message: "--run-dir \(path) \(why): give a new or empty folder")
        }
        var status = stat()
        if lstat(path, &status) != 0 {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty { try Self.prepare(outputDirectory: parent) }
            guard try NoFollowFile.makeDirectory(path) else { throw refused("appeared while sonde was making it") }
        } else {
            switch status.st_mode & S_IFMT {
            case S_IFLNK: throw refused("is a symbolic link, which sonde never writes through")
            case S_IFDIR: break
            default: throw refused("is a file, not a folder")
            }
            let entries: [String]
            do { entries = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
                throw refused("cannot be read (\(error.localizedDescription))")
            }
            guard entries.isEmpty else { throw refused("already holds \(entries.count) entr\(entries.count == 1 ? "y" : "ies") (sonde writes a run only into a folder of its own)") }
        }
        self.path = path
        self.runID = runID
    }

    /// The folder of a new run: `runDirectory` exactly (`init(exactly:runID:)`) when given, else a
    /// new one named after the run under `outputDirectory` (`init(outputDirectory:runID:)`).
    public static func made(runDirectory: String?, outputDirectory: String, runID: String) throws(TaskError) -> RunFolder {
        if let runDirectory { return try RunFolder(exactly: runDirectory, runID: runID) }
        return try RunFolder(outputDirectory: outputDirectory, runID: runID)
    }

    public init(existing path: String) {
        self.path = path
        runID = (path as NSString).lastPathComponent
    }

    /// `id` with the part after its last `-` replaced by a new random 4-hex-digit suffix (or,
    /// for an id without `-`, one appended).
    static func redrawn(_ id: String) -> String {
        let suffix = String(UInt16.random(in: 0...UInt16.max), radix: 16)
        let padded = String(repeating: "0", count: 4 - suffix.count) + suffix
        guard let dash = id.lastIndex(of: "-") else { return id + "-" + padded }
        return String(id[...dash]) + padded
    }

    /// Makes sure `outputDirectory` is a folder (creating it when missing), saying in words what
    /// is wrong when it cannot be one.
    static func prepare(outputDirectory: String) throws(TaskError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputDirectory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw TaskError(code: .localIOError, message: "--output-dir \(outputDirectory) is a file, not a folder: "
                    + "give a folder (it is created when missing)")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        } catch {
            // Say which part of the path is in the way rather than Foundation's error number.
            var parent = (outputDirectory as NSString).deletingLastPathComponent
            while !parent.isEmpty && parent != "/" {
                if FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) {
                    if !isDirectory.boolValue {
                        throw TaskError(code: .localIOError, message: "cannot create --output-dir \(outputDirectory): "
                            + "\(parent) is a file, not a folder")
                    }
                    break
                }
                parent = (parent as NSString).deletingLastPathComponent
            }
            let why = access(parent.isEmpty ? "." : parent, W_OK) != 0 ? "\(parent.isEmpty ? "." : parent) is not writable" : "\(error.localizedDescription)"
            throw TaskError(code: .localIOError, message: "cannot create --output-dir \(outputDirectory): \(why)")
        }
    }
}
