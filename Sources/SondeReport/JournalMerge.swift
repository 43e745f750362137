import Foundation
import SondeCore

/// Merges several runs into a new run folder (`sonde report A B C --output-dir DIR`): a new
/// journal whose task lines are those of every source run, in order, copied byte for byte, and
/// which is then rendered like any other run.
///
/// The merged run starts when the first source started and finishes when the last finished;
/// its status is the worst of the sources' (error > timeout > interrupted > failed > passed); it is
/// insecure or unredacted if any source was, and carries every source's warnings; its subject is
/// every source's checks and URLs (none when a source does not record its own).
public enum JournalMerge {
    /// - Parameter runDirectory: the merged run's folder exactly (`--run-dir`), else a new one under `outputDirectory`.
    /// - Parameter renderers: the check kinds' section renderers, to read their own journal lines:
    ///   a source with section items (an audit's, a stream's) is refused, as soaks and resume runs are.
    public static func merge(_ sources: [RunFolder], outputDirectory: String, runDirectory: String? = nil,
                             arguments: [String], renderers: ReportSectionRenderers = ReportSectionRenderers()) throws(TaskError) -> RunFolder {
        guard sources.count >= 2 else {
            throw TaskError(code: .internalError, message: "merging needs at least two run folders")
        }
        var scans: [JournalScan.Result] = []
        for source in sources { scans.append(try JournalScan.read(folder: source, renderers: renderers)) }
        if let soak = zip(sources, scans).first(where: { !$0.1.soaks.isEmpty }) {
            throw TaskError(code: .unsupportedFeature,
                            message: "\(soak.0.path) is a soak run: merging combines probe tasks only; render a soak run on its own with `sonde report \(soak.0.path)`")
        }
        if let resume = zip(sources, scans).first(where: { !$0.1.resume.isEmpty }) {
            throw TaskError(code: .unsupportedFeature,
                            message: "\(resume.0.path) is a resume run: merging combines probe tasks only; render it on its own with `sonde report \(resume.0.path)`")
        }
        if let (source, scan) = zip(sources, scans).first(where: { !$0.1.sections.isEmpty }) {
            let names = scan.sections.map(\.name).joined(separator: ", ")
            throw TaskError(code: .unsupportedFeature,
                            message: "\(source.path) is a run of \(names): merging combines probe tasks only; render it on its own with `sonde report \(source.path)`")
        }
        let started = scans.map(\.run.startedAt).min() ?? Timestamp.now()
        var run = RunInfo(id: RunInfo.makeID(command: "merge", at: started), command: "merge", arguments: arguments,
                          startedAt: started, status: worst(scans.map(\.run.status)),
                          insecure: scans.contains { $0.run.insecure }, redacted: scans.allSatisfy { $0.run.redacted })
        run.finishedAt = scans.compactMap(\.run.finishedAt).max()
        run.warnings = ["Merged from \(scans.count) runs: " + scans.map(\.run.id).joined(separator: ", ") + "."]
            + scans.flatMap { scan in scan.run.warnings.map { "\(scan.run.id): \($0)" } }
        // What the merge measured: every source's checks and URLs, when each says.
        let subjects = scans.compactMap(\.run.subject)
        if subjects.count == scans.count {
            run.subject = RunSubject(checks: subjects.flatMap(\.checks), urls: subjects.flatMap(\.urls))
        }
        let folder = try RunFolder.made(runDirectory: runDirectory, outputDirectory: outputDirectory, runID: run.id)
        run.id = folder.runID
        let journal = try Journal(path: folder.journalPath)
        let encoder = ReportJSONWriter.makeEncoder()
        try journal.append(encoded: RunLine(tool: scans[0].tool, run: run), with: encoder)
        for source in sources {
            try JournalReader.forEachLine(path: source.journalPath) { (line: ArraySlice<UInt8>) throws(TaskError) in
                if ReportJSONWriter.taskJSON(inJournalLine: line) != nil { try journal.append(line: Array(line)) }
            }
        }
        try journal.append(encoded: EndLine(status: run.status, finishedAt: run.finishedAt ?? Timestamp.now(), thresholds: []),
                           with: encoder)
        try journal.close()
        return folder
    }

    static func worst(_ statuses: [RunStatus]) -> RunStatus {
        func rank(_ status: RunStatus) -> Int {
            switch status {
            case .passed: return 0
            case .failed: return 1
            case .interrupted: return 2
            case .timeout: return 3
            case .error: return 4
            }
        }
        return statuses.max { rank($0) < rank($1) } ?? .passed
    }
}
