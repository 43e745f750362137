#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// What a run folder's report.json, written before, says of its run: its status and how many
/// tasks it holds, read without loading the file (`sonde report` compares them with what the
/// journal still gives before it replaces the file: `ReportFiles.render(keepingReportOnLoss:)`).
///
/// report.json is written by `ReportJSONWriter`: `{"schemaVersion":…,"tool":…,"run":…,"probes":[`,
/// one task per line, then `\n],"summary":{…` — a raw `,"probes":[` or `\n],"summary":` cannot
/// occur inside a JSON string (its quotes and newlines are escaped there). The file is opened
/// without following a link and read in 1 MiB blocks; anything unexpected gives nil figures.
enum ExistingReport {
    struct Facts: Equatable {
        /// `run.status` (`passed`, `failed`, `interrupted`, …).
        var status: String?
        /// `summary.tasks`.
        var tasks: Int?
    }

    /// The facts of the report.json at `path`; nil when there is none (or it is not a regular file).
    static func facts(at path: String) -> Facts? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Facts(status: runStatus(descriptor), tasks: summaryTasks(descriptor))
    }

    private static let block = 1 << 20

    /// `run.status` from the document's head (its first MiB).
    private static func runStatus(_ descriptor: Int32) -> String? {
        let head = read(descriptor, at: 0, count: block)
        guard let end = head.firstRange(of: Array(#","probes":["#.utf8)) else { return nil }
        var reader = JSONReader(head[..<end.lowerBound] + Array("}".utf8))
        var status: String?
        do throws(JSONReadError) {
            try reader.readObject { (reader: inout JSONReader, key: JSONKey) throws(JSONReadError) in
                guard key == "run" else { return try reader.skipValue() }
                try reader.readObject { (run: inout JSONReader, key: JSONKey) throws(JSONReadError) in
                    if key == "status" { status = try run.readString() } else { try run.skipValue() }
                }
            }
        } catch {
            return nil
        }
        return status
    }

    /// `summary.tasks`, found after the tasks (the file is scanned once for `\n],"summary":`).
    private static func summaryTasks(_ descriptor: Int32) -> Int? {
        let marker = Array("\n],\"summary\":".utf8)
        var offset: off_t = 0
        var carry: [UInt8] = []
        while true {
            let bytes = read(descriptor, at: offset, count: block)
            if bytes.isEmpty { return nil }
            let window = carry + bytes
            if let found = window.firstRange(of: marker) {
                let start = offset - off_t(carry.count) + off_t(found.upperBound)
                var reader = JSONReader(read(descriptor, at: start, count: block))
                var tasks: Int?
                do throws(JSONReadError) {
                    try reader.readObject { (summary: inout JSONReader, key: JSONKey) throws(JSONReadError) in
                        if key == "tasks" { tasks = try summary.readInt() } else { try summary.skipValue() }
                    }
                } catch {
                    return nil
                }
                return tasks
            }
            carry = Array(window.suffix(marker.count - 1))
            offset += off_t(bytes.count)
        }
    }

    /// Up to `count` bytes of the file from `offset` (fewer at its end; none on an error).
    private static func read(_ descriptor: Int32, at offset: off_t, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return pread(descriptor, base + filled, count - filled, offset + off_t(filled))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return Array(bytes[..<filled])
    }
}
