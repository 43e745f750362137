import Foundation
import SondeCore

/// What a resumable download keeps on disk between processes, like URLSession's resume data:
/// the URL, the validator to send as If-Range, the representation's length and digest, and the
/// partial file. The partial file's size, not `bytesReceived`, says where to resume: a process
/// killed between writing bytes and saving this file still resumes from every byte it wrote.
public struct ResumeData: Codable, Sendable, Equatable {
    public var url: String
    /// A strong ETag, or else a Last-Modified date; nil when the server gave neither (no resume possible).
    public var validator: String?
    public var length: Int64?
    /// `sha-256` of the representation from the server's Repr-Digest, lowercase hex, when sent.
    public var reprDigestSha256: String?
    public var partialPath: String
    /// Bytes on disk when this was last saved (informational; see the type's comment).
    public var bytesReceived: Int64

    public init(url: String, partialPath: String) {
        self.url = url
        self.partialPath = partialPath
        self.bytesReceived = 0
    }

    /// Reads resume data saved by `save(to:)`.
    public static func load(from path: String) throws(TaskError) -> ResumeData {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TaskError(code: .localIOError, message: "cannot read resume data \(path)")
        }
        do {
            return try JSONDecoder().decode(ResumeData.self, from: data)
        } catch {
            throw TaskError(code: .localIOError, message: "resume data \(path) is not valid: \(error)")
        }
    }

    /// Writes atomically (a temporary file renamed over the old one), so a kill never leaves half
    /// a file. No fsync: it has to survive the process, not the machine, and on ext4 an fsync
    /// would also force out the partial file's dirty pages (the journal commits them together).
    public func save(to path: String) throws(TaskError) {
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(self)
        } catch {
            throw TaskError(code: .internalError, message: "cannot encode resume data: \(error)")
        }
        try writeReplacing(path, data)
    }
}

/// Writes `data` to `path` through a temporary file and rename(2): readers see the old or the
/// new content, never a mix; no fsync (see `ResumeData.save`); never through a symbolic link
/// (`NoFollowFile.writeReplacing`).
func writeReplacing(_ path: String, _ data: Data) throws(TaskError) {
    try NoFollowFile.writeReplacing(path, Array(data))
}
