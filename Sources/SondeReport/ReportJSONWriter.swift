import Foundation
import SondeCore

/// The pieces of `report.json`, which `ReportFiles` streams: the header, every task copied from
/// the journal, then the summary and the other sections. Memory stays flat whatever the number
/// of transactions.
///
/// Key order: `schemaVersion` first, then `tool`, `run`, `probes`, `summary`, `checks` (only in runs
/// of several checks), and the sections other capabilities fill (`soaks`, `resumeTrials`,
/// `resumeVerdicts`, the check kinds' own sections (`ReportSection`: first those always written, such as
/// `audits`, then the others; `ReportSectionRenderers.arranged`), `captures`, `thresholds`);
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

    /// The document up to the opening of `probes`.
    static func header(tool: ToolInfo, run: RunInfo) throws(TaskError) -> [UInt8] {
        let encoder = makeEncoder()
        do {
            var output = Array(#"{"schemaVersion":\#(ReportDocument.currentSchemaVersion),"tool":"#.utf8)
            output += try encoder.encode(tool)
            output += Array(#","run":"#.utf8)
            output += try encoder.encode(run)
            output += Array(#","probes":["#.utf8)
            return output
        } catch {
            throw TaskError(code: .internalError, message: "cannot encode the report header: \(error)")
        }
    }

    /// The document after the last task: summary and the other sections.
    static func trailer(summary: ProbeSummary, thresholds: [ThresholdResult], baseline: BaselineComparison?,
                        captures: [CaptureReport], soaks: [SoakReport] = [],
                        resume: ResumeResults = ResumeResults(), checks: [CheckReport] = [],
                        sections: [ReportSection] = []) throws(TaskError) -> [UInt8] {
        let encoder = makeEncoder()
        do {
            var output = Array("\n],\"summary\":".utf8)
            output += try encoder.encode(summary)
            if !checks.isEmpty {
                output += Array(#","checks":"#.utf8)
                output += try encoder.encode(checks)
            }
            output += Array(#","soaks":"#.utf8)
            output += try encoder.encode(soaks)
            output += Array(#","resumeTrials":"#.utf8)
            output += try encoder.encode(resume.trials)
            output += Array(#","resumeVerdicts":"#.utf8)
            output += try encoder.encode(resume.verdicts)
            for section in sections {
                output += Array(",\"\(section.name)\":[".utf8)
                for (index, item) in section.items.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    output += item
                }
                output.append(UInt8(ascii: "]"))
            }
            output += Array(#","captures":"#.utf8)
            output += try encoder.encode(captures)
            output += Array(#","thresholds":"#.utf8)
            output += try encoder.encode(thresholds)
            output += Array(#","baseline":"#.utf8)
            if let baseline { output += try encoder.encode(baseline) } else { output += Array("null".utf8) }
            output += Array("}\n".utf8)
            return output
        } catch {
            throw TaskError(code: .internalError, message: "cannot encode the report summary: \(error)")
        }
    }

    /// Decodes one task with the fast `JSONReader`; a line it rejects gets a second chance with
    /// `JSONDecoder` (written by another version, say) before it counts as unreadable (nil).
    static func decodeTask(_ json: ArraySlice<UInt8>, fallback decoder: JSONDecoder) -> ProbeTask? {
        if let task = try? JSONReader.read(ProbeTask.self, from: json) { return task }
        return try? decoder.decode(ProbeTask.self, from: Data(json))
    }

    /// The task JSON inside a journal probe line, or nil for any other line.
    static func taskJSON(inJournalLine line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard line.starts(with: probeLinePrefix), line.last == UInt8(ascii: "}") else { return nil }
        return line[(line.startIndex + probeLinePrefix.count)..<(line.endIndex - 1)]
    }
}
