import Foundation
import SondeCore

/// `sonde report RUN --threshold …` (or `--baseline …`): a run judged again into a new run folder,
/// RUN's folder left exactly as it is.
///
/// The new folder's journal is RUN's, line for line, but for its run line (the new run's id and
/// a warning naming RUN) and its end line (the new judgement: status, thresholds, comparison), so
/// that `sonde report` of the new folder gives the same report again; its report files are
/// rendered from that journal (`ReportFiles.render`). Task lines are copied byte for byte.
public enum RejudgedRun {
    /// - Parameters:
    ///   - destination: a new, empty run folder; its `runID` is the new run's id.
    ///   - thresholds: evaluated instead of the run's own (nil: the run's own results stand).
    ///   - baseline: compared with instead of the run's own comparison.
    ///   - renderers: how the check kinds' sections show in the new report files (`CheckKinds.sectionRenderers`).
    ///   - keepingReportOnLoss: when RUN's journal lost something its report.json holds
    ///     (`ReportFiles.lost`), nothing is written and the error says what (reason
    ///     `ReportFiles.keptReportReason`): a verdict on part of a run is not given silently.
    /// - Throws: `TaskError` when RUN cannot be read or the new folder written (the caller removes it).
    @discardableResult
    public static func write(from source: RunFolder, into destination: RunFolder, thresholds: [Threshold]?, baseline: JournalScan.Result?,
                             prometheusPath: String?, renderers: ReportSectionRenderers = ReportSectionRenderers(),
                             keepingReportOnLoss: Bool) throws(TaskError) -> RunOutcome {
        let scan = try JournalScan.read(folder: source, soakParts: renderers.soakParts, renderers: renderers)
        if keepingReportOnLoss, let lost = ReportFiles.lost(scan, against: ExistingReport.facts(at: source.reportJSONPath)) {
            throw TaskError(code: .localIOError,
                            message: "\(source.journalPath) is damaged: \(lost), so a verdict from it would miss what the report.json "
                                + "there holds. Nothing was written; give --force to judge what the journal still holds.",
                            reason: ReportFiles.keptReportReason)
        }
        let judged = ReportFiles.judged(scan, thresholds: thresholds, baseline: baseline, renderers: renderers)
        guard var run = JournalScan.startedRun(folder: source) else { throw JournalScan.notAJournal(source) }
        run.id = destination.runID
        run.warnings.append("Judged again by sonde report from run \(scan.run.id); that run's folder was left as it is.")
        let encoder = ReportJSONWriter.makeEncoder()
        let journal = try Journal(path: destination.journalPath)
        try journal.append(encoded: RunLine(tool: scan.tool, run: run), with: encoder)
        var sawRunLine = false
        try JournalReader.forEachLine(path: source.journalPath) { (line: ArraySlice<UInt8>) throws(TaskError) in
            if ReportJSONWriter.taskJSON(inJournalLine: line) == nil, JournalScan.soakLineKind(line) == nil,
               let envelope = JournalEnvelope(line) {
                if envelope.type == JournalEntryKind.end.rawValue { return }
                if envelope.type == JournalEntryKind.run.rawValue && !sawRunLine {
                    sawRunLine = true
                    return
                }
            }
            try journal.append(line: Array(line))
        }
        try journal.append(encoded: EndLine(status: judged.run.status, finishedAt: judged.run.finishedAt ?? Timestamp.now(),
                                            thresholds: judged.thresholds, baseline: judged.comparison, checks: scan.endLine?.checks,
                                            link: scan.endLine?.link),
                           with: encoder)
        try journal.close()
        return try ReportFiles.render(folder: destination, prometheusPath: prometheusPath, renderers: renderers)
    }
}
