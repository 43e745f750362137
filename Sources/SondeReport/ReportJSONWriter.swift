import Foundation
import SondeCore

/// Writes `report.json` by streaming: the header, every task line copied from the journal, then
/// the summary. Memory stays flat whatever the number of transactions.
///
/// Key order: `schemaVersion` first, then `tool`, `run`, `probes`, `summary`, and the sections
/// other capabilities fill (`soaks`, `resumeTrials`, `resumeVerdicts`, `captures`, `thresholds`);
/// keys inside those objects are sorted, so reports diff cleanly.
public enum ReportJSONWriter {
    /// The prefix every task line of a journal starts with.
    static let probeLinePrefix = Array(#"{"type":"probe","probe":"#.utf8)
    static let probeLineSuffix = Array("}".utf8)

    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Assembles the report from the journal at `journalPath` into `reportPath` (atomically).
    public static func write(tool: ToolInfo, run: RunInfo, summary: ProbeSummary, journalPath: String,
                             to reportPath: String) throws(TaskError) {
        let encoder = makeEncoder()
        var output: [UInt8] = []
        do {
            output += Array(#"{"schemaVersion":\#(ReportDocument.currentSchemaVersion),"tool":"#.utf8)
            output += try encoder.encode(tool)
            output += Array(#","run":"#.utf8)
            output += try encoder.encode(run)
            output += Array(#","probes":["#.utf8)
        } catch {
            throw TaskError(code: .internalError, message: "cannot encode the report header: \(error)")
        }
        let file = try AtomicFile(path: reportPath)
        var first = true
        try JournalReader.forEachLine(path: journalPath) { (line: ArraySlice<UInt8>) throws(TaskError) in
            guard line.starts(with: probeLinePrefix), line.last == UInt8(ascii: "}") else { return }
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output.append(UInt8(ascii: "\n"))
            output += line[(line.startIndex + probeLinePrefix.count)..<(line.endIndex - 1)]
            if output.count > 1 << 20 {
                try file.write(output)
                output.removeAll(keepingCapacity: true)
            }
        }
        do {
            output += Array("\n],\"summary\":".utf8)
            output += try encoder.encode(summary)
            output += Array(#","soaks":[],"resumeTrials":[],"resumeVerdicts":[],"captures":[],"thresholds":[]}"#.utf8)
            output.append(UInt8(ascii: "\n"))
        } catch {
            throw TaskError(code: .internalError, message: "cannot encode the report summary: \(error)")
        }
        try file.write(output)
        try file.commit()
    }
}

/// Reads a JSONL file line by line in 1 MiB blocks; a final line without a newline still counts
/// (a journal cut by SIGKILL may end mid-line: such a line fails to parse and is skipped by callers).
public enum JournalReader {
    public static func forEachLine(path: String, _ body: (ArraySlice<UInt8>) throws(TaskError) -> Void) throws(TaskError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TaskError(code: .localIOError, message: "cannot read journal \(path): \(systemErrorMessage())")
        }
        defer { close(descriptor) }
        var pending: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw TaskError(code: .localIOError, message: "cannot read journal \(path): \(systemErrorMessage())")
            }
            if count == 0 { break }
            pending += block[0..<count]
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if newline > start { try body(pending[start..<newline]) }
                start = newline + 1
            }
            pending.removeSubrange(pending.startIndex..<start)
        }
        if !pending.isEmpty { try body(pending[...]) }
    }
}
