import Foundation
import SondeCore

/// Turns a finished run folder's report.json into the history's rows: its run, one check per
/// suite check (or one for the whole run), each check's phases, and every threshold. Nothing is
/// stored that report.json does not hold, so what it redacted stays redacted.
///
/// Figures come from the report's own summaries: a check's `ProbeSummary` (the run's, for a run
/// without checks), its soaks (`check == name`) and resume trials, read through
/// `ThresholdMetric.value`, the same rule thresholds observe.
enum HistoryRecorder {
    /// The rows of one run, before they are written.
    struct Rows {
        var run: HistoryRun
        var checks: [(check: HistoryCheck, summary: ProbeSummary?)]
        var thresholds: [HistoryThreshold]
    }

    /// The parts of report.json the history reads (the probes only for the first URL: a large
    /// run's tasks are not decoded).
    struct Document: Decodable {
        var tool: ToolInfo
        var run: RunInfo
        var probes: FirstURL?
        var summary: ProbeSummary?
        var soaks: [SoakReport]?
        var resumeTrials: [ResumeTrial]?
        var resumeVerdicts: [ResumeVerdict]?
        var checks: [CheckReport]?
        var thresholds: [ThresholdResult]?
    }

    /// The `url` of an array's first element; the rest of the array is not decoded.
    struct FirstURL: Decodable {
        var url: String?
        private struct Element: Decodable { var url: String }
        init(from decoder: any Decoder) throws {
            var array = try decoder.unkeyedContainer()
            url = array.isAtEnd ? nil : try array.decode(Element.self).url
        }
    }

    /// Reads `<folder>/report.json`. - Throws: a `localIOError` saying what is wrong.
    static func read(folder: String) throws(TaskError) -> Document {
        let path = folder + "/report.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TaskError(code: .localIOError, message: "cannot read \(path): give a finished run folder (Reports/<run-id>)")
        }
        do {
            return try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw TaskError(code: .localIOError, message: "\(path) is not a sonde report: \(error)")
        }
    }

    /// The rows of `document`, recorded now from `folder` (made absolute) at `vantage`.
    static func rows(_ document: Document, folder: String, vantage: String?) -> Rows {
        let run = document.run
        let row = HistoryRun(id: run.id, command: run.command, status: run.status.rawValue,
                             startedAt: run.startedAt.microsecondsSince1970, finishedAt: run.finishedAt?.microsecondsSince1970,
                             vantage: vantage, folder: absolute(folder), toolVersion: document.tool.version,
                             insecure: run.insecure, redacted: run.redacted, recordedAt: Timestamp.now().microsecondsSince1970,
                             subject: run.subject.map(\.json))
        let soaks = document.soaks ?? []
        let trials = document.resumeTrials ?? []
        var checks: [(HistoryCheck, ProbeSummary?)] = []
        var thresholds = (document.thresholds ?? []).map { HistoryThreshold(runId: run.id, $0) }
        if let suiteChecks = document.checks, !suiteChecks.isEmpty {
            for check in suiteChecks {
                let figures = checkRow(name: trendName(check.name, link: check.link), kind: check.kind, status: check.status.rawValue, startedAt: check.startedAt,
                                    runID: run.id, summary: check.summary, soaks: soaks.filter { $0.check == check.name },
                                    trials: trials.filter { $0.check == check.name }, thresholds: check.thresholds)
                checks.append((figures, check.summary))
                thresholds += check.thresholds.map {
                    var result = $0
                    result.check = trendName(check.name, link: check.link)
                    return HistoryThreshold(runId: run.id, result)
                }
            }
        } else {
            let figures = checkRow(name: trendName(plainCheckName(document), link: run.link), kind: plainKind(document), status: run.status.rawValue,
                                startedAt: run.startedAt, runID: run.id, summary: document.summary, soaks: soaks, trials: trials,
                                thresholds: document.thresholds ?? [])
            checks.append((figures, document.summary))
        }
        return Rows(run: row, checks: checks, thresholds: thresholds)
    }

    /// The name a check's trend goes under: its own, and for a check measured over an emulated link
    /// the link's profile as written (`config [link lte]`, `probe http://h/ [link delay-down=40ms]`),
    /// so that figures from different links never share a trend. Cut to `CheckReport.maxNameBytes`.
    static func trendName(_ name: String, link: LinkUse?) -> String {
        guard let link else { return name }
        var named = name + " [link " + link.conditions.spec + "]"
        while named.utf8.count > CheckReport.maxNameBytes { named.removeLast() }
        return named
    }

    /// The one check of a run without suite checks: the command and the first URL it worked on
    /// (without query or fragment, so that rotating tokens do not split a trend), e.g.
    /// `probe https://api.example.com/health`; the command alone when the run has no URL.
    /// Cut to `CheckReport.maxNameBytes`.
    static func plainCheckName(_ document: Document) -> String {
        let url = document.probes?.url ?? document.soaks?.first?.url ?? document.resumeTrials?.first?.url
            ?? document.resumeVerdicts?.first?.url
        guard let url else { return document.run.command }
        let bare = url.prefix { $0 != "?" && $0 != "#" }
        var name = document.run.command + " " + bare
        while name.utf8.count > CheckReport.maxNameBytes { name.removeLast() }
        return name
    }

    /// The kind of a plain command's one check: its run's subject names it
    /// (`RunSubject.check(name: nil, kind:…)`, its link after a space); a report written before
    /// subjects by its command when that was a kind's (`legacyKindCommands`), else by its sections.
    private static func plainKind(_ document: Document) -> String {
        if let checks = document.run.subject?.checks, checks.count == 1,
           let kind = checks[0].split(separator: " ", maxSplits: 1).first, !kind.isEmpty {
            return String(kind)
        }
        if legacyKindCommands.contains(document.run.command) { return document.run.command }
        if !(document.soaks ?? []).isEmpty { return "soak" }
        if !(document.resumeTrials ?? []).isEmpty || !(document.resumeVerdicts ?? []).isEmpty { return "resume" }
        return "probe"
    }

    /// The commands named after their kind when reports had no `run.subject` (before 2026-11-27):
    /// a closed list, for those reports only.
    static let legacyKindCommands = ["probe", "soak", "resume", "audit"]

    private static func checkRow(name: String, kind: String, status: String, startedAt: Timestamp, runID: String,
                              summary: ProbeSummary?, soaks: [SoakReport], trials: [ResumeTrial],
                              thresholds: [ThresholdResult]) -> HistoryCheck {
        let summary = summary ?? ProbeSummary()
        var row = HistoryCheck(id: nil, runId: runID, name: name, kind: kind, status: status,
                               startedAt: startedAt.microsecondsSince1970, tasks: summary.tasks, failedTasks: summary.failedTasks,
                               transactions: summary.transactions, reusedTransactions: summary.reusedTransactions,
                               protocols: summary.protocols, resumeTrials: trials.count, resumeIntact: trials.filter(\.intact).count,
                               thresholdsFailed: thresholds.filter { !$0.passed }.count)
        for metric in HistoryMetric.allCases {
            guard let path = metric.thresholdPath, let thresholdMetric = try? ThresholdMetric(path: path) else { continue }
            row.set(metric, thresholdMetric.value(summary, soaks: soaks))
        }
        row.intactRatio = trials.isEmpty ? nil : Double(row.resumeIntact) / Double(trials.count)
        return row
    }

    /// `path` as an absolute, standardised path (relative to the working folder when relative).
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
            .standardizedFileURL.path
    }
}
