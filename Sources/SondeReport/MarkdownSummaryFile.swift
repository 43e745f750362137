import Foundation
import SondeCore

/// Where a run's Markdown summary (`MarkdownSummary`) goes: the file `--summary-md` names,
/// written afresh, and a CI step summary (GitHub's `$GITHUB_STEP_SUMMARY`), appended to.
///
/// Invariant: neither is written through a symbolic link. The file is written beside and
/// renamed over its name (`NoFollowFile.writeReplacing`: a link there is replaced, never
/// followed); the step summary is opened with `O_APPEND | O_CREAT | O_NOFOLLOW`, so an existing
/// file is appended to and a link in its place is refused.
public struct MarkdownSummaryFile: Sendable {
    /// `--summary-md FILE`; nil: none.
    public var path: String?
    /// The step summary to append to (`$GITHUB_STEP_SUMMARY`); nil: none.
    public var stepSummaryPath: String?

    public init(path: String?, stepSummaryPath: String?) {
        self.path = path
        self.stepSummaryPath = stepSummaryPath
    }

    /// The environment variable naming GitHub Actions' step summary file.
    public static let stepSummaryVariable = "GITHUB_STEP_SUMMARY"

    /// Whether there is anywhere to write.
    public var isEmpty: Bool { path == nil && stepSummaryPath == nil }

    /// Writes `outcome`'s summary to each place; the first failure is thrown after both were tried.
    public func write(_ outcome: RunOutcome, folder: String?) throws(TaskError) {
        guard !isEmpty else { return }
        let bytes = Array(MarkdownSummary.render(outcome, folder: folder).utf8)
        var failure: TaskError?
        if let path {
            do throws(TaskError) { try NoFollowFile.writeReplacing(path, bytes, mode: 0o644) } catch { failure = error }
        }
        if let stepSummaryPath {
            do throws(TaskError) { try Self.append(bytes, to: stepSummaryPath) } catch { if failure == nil { failure = error } }
        }
        if let failure { throw failure }
    }

    /// Appends `bytes` to the regular file at `path` (made when missing), never through a link.
    static func append(_ bytes: [UInt8], to path: String) throws(TaskError) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else {
            let why = errno == ELOOP ? "it is a symbolic link, which sonde does not write through" : systemErrorMessage()
            throw TaskError(code: .localIOError, message: "cannot append to \(path) (\(stepSummaryVariable)): \(why)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw TaskError(code: .localIOError, message: "cannot append to \(path) (\(stepSummaryVariable)): not a regular file")
        }
        // A blank line first: the summary is a block of its own after what earlier steps wrote.
        try writeAll(descriptor: descriptor, bytes: (status.st_size > 0 ? Array("\n".utf8) : []) + bytes, path: path)
    }
}
