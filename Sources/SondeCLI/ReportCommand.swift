import ArgumentParser
import Foundation
import SondeCore
import SondeReport
import SondeRun
import SondeSuite

/// `sonde report DIR`: re-renders a run folder from its journal (also one a killed run left), in
/// place, atomically. Judged again (`--threshold`, `--baseline`), a run is written as a new run
/// (`--output-dir`, `--run-dir`) or only printed: DIR's files are never changed then.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Rebuild a run's reports (JSON, HTML, HAR, JUnit, Prometheus) from its journal, or judge it again.",
        discussion: """
        Works on any run folder, including one left by a killed run (no end line in the journal): \
        that run is reported as interrupted, with the tasks it flushed.
        A damaged journal (lines that do not decode, out-of-range numbers, lines too long) is said line by line and exits 64; \
        a folder that already has a report keeps it unless --force is given (a last line cut by a kill is no damage). \
        With --threshold or --baseline the run is judged again and its folder left as it is: the new verdict is printed \
        (exit 0, or 99 when a threshold fails), and written as a new run with --output-dir or --run-dir. \
        Several run folders are merged into a new run under --output-dir, with every task of each. \
        --baseline takes a run folder, previous or history:CHECK:median:N (read from --history); with --history a rebuilt or new run is added to it.
        Examples: sonde report Reports/20261122T001200Z-probe-1a2b
                  sonde report Reports/latest --threshold 'wait.p95<200ms'
                  sonde report Reports/<run-a> Reports/<run-b> --output-dir Reports/merged
        """)

    @Argument(help: "The run folder (holding journal.jsonl); several folders are merged into a new run.")
    var folders: [String] = []

    /// Where a merged or judged-again run is written; where `--history` is by default.
    @OptionGroup var output: OutputDirectoryOption

    /// A merged or judged-again run's folder, exactly.
    @OptionGroup var runDirectory: RunDirectoryOption

    /// Where `--baseline history:…` is read, and the rebuilt run is added (as every run command adds its run).
    @OptionGroup var history: HistoryOption

    @Option(name: .customLong("from-journal"), help: "The run folder to rebuild (the same as the argument).")
    var fromJournal: String?

    @Flag(name: .customLong("force"),
          help: "Replace the folder's report files (or judge the run) even when its journal is damaged (the report lacks what the damaged lines held).")
    var force = false

    @OptionGroup var jsonOutput: JSONOutputOption
    @OptionGroup var judgement: JudgementOptions
    @OptionGroup var summaryMarkdown: SummaryMarkdownOption

    mutating func validate() throws {
        folders = PositionalRuns.split(folders)
        guard folders.isEmpty != (fromJournal == nil) else {
            throw ValidationError("give the run folder as arguments or with --from-journal, not both and not neither")
        }
        if runDirectory.runDirectory != nil && folders.count < 2 && judgement.thresholdExpressions.isEmpty && judgement.baselinePath == nil {
            throw ValidationError("--run-dir is where a merged or judged-again run goes: give several run folders, --threshold or --baseline "
                + "(a run is rebuilt in its own folder)")
        }
    }

    /// What the command does with its folders.
    enum Work {
        /// Rebuild the one run's files in its own folder.
        case rebuild
        /// Judge the one run again into a new folder that is kept (`--output-dir`, `--run-dir`) or removed after printing.
        case judgeAgain(kept: Bool)
        /// Merge several runs into a new folder.
        case merge
    }

    func run() throws {
        let paths = (fromJournal.map { [$0] } ?? folders).map(normalizedRunFolder)
        let work: Work = paths.count > 1 ? .merge
            : judgement.thresholdExpressions.isEmpty && judgement.baselinePath == nil ? .rebuild
            : .judgeAgain(kept: output.given != nil || runDirectory.runDirectory != nil)
        if case .rebuild = work { for path in paths { Self.removeLeftoverSecrets(in: path) } }
        let thresholds = judgement.thresholdExpressions.isEmpty ? nil : judgement.thresholds
        var runFolder = RunFolder(existing: paths[0])
        var made: RunFolder?
        let outcome: RunOutcome
        do {
            switch work {
            case .rebuild:
                outcome = try ReportFiles.render(folder: runFolder, prometheusPath: judgement.prometheusPath, keepingReportOnLoss: !force,
                                                 renderers: CheckKinds.sonde.sectionRenderers)
            case .merge:
                runFolder = try JournalMerge.merge(paths.map { RunFolder(existing: $0) }, outputDirectory: output.outputDirectory,
                                                   runDirectory: runDirectory.runDirectory, arguments: Array(CommandLine.arguments.dropFirst()),
                                                   renderers: CheckKinds.sonde.sectionRenderers)
                made = runFolder
                outcome = try ReportFiles.render(folder: runFolder, thresholds: thresholds, baseline: try loadBaseline(for: runFolder),
                                                 prometheusPath: judgement.prometheusPath, keepingReportOnLoss: !force,
                                                 renderers: CheckKinds.sonde.sectionRenderers)
            case .judgeAgain(let kept):
                let baseline = try loadBaseline(for: runFolder)
                let source = runFolder
                let id = RunInfo.makeID(command: "report", at: Timestamp.now())
                runFolder = kept ? try RunFolder.made(runDirectory: runDirectory.runDirectory, outputDirectory: output.outputDirectory, runID: id)
                    : try RunFolder(exactly: try Self.privateTemporaryFolder(), runID: id)
                made = runFolder
                outcome = try RejudgedRun.write(from: source, into: runFolder, thresholds: thresholds, baseline: baseline,
                                                prometheusPath: judgement.prometheusPath, renderers: CheckKinds.sonde.sectionRenderers,
                                                keepingReportOnLoss: !force)
            }
        } catch {
            if let made { Self.remove(made, madeHere: runDirectory.runDirectory == nil) }
            printError("sonde: \(error.message)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var kept = true
        if case .judgeAgain(let keep) = work { kept = keep }
        if kept {
            history.record(runFolder)
            if made != nil { RunSettings.markLatest(runFolder, in: output.outputDirectory) }
        }
        defer { if !kept { Self.remove(runFolder, madeHere: true) } }
        RunSettings.write(outcome, folder: runFolder, summary: summaryMarkdown.target)
        if jsonOutput.json {
            printReportDocument(runFolder, kept: kept)
        } else {
            var renderer = RunSettings.terminalRenderer
            renderer.soakParts = CheckKinds.sonde.sectionRenderers.soakParts
            for warning in outcome.run.warnings { printError("warning: \(warning)") }
            // The journal is a file: anything in it may be hostile.
            printLine(TerminalText.sanitized("run \(outcome.run.id) (\(outcome.run.command), \(outcome.run.status.rawValue))"))
            // The check kinds' sections as their renderers show them (an audit's URLs), after the soaks.
            let sectionText = outcome.renderers.terminalText(outcome.sections)
            if outcome.summary.tasks > 0 || (outcome.soaks.isEmpty && sectionText.isEmpty) { printLine(renderer.render(summary: outcome.summary)) }
            for soak in outcome.soaks { printLine(renderer.render(soak: soak)) }
            for text in sectionText { printLine(text) }
            if let comparison = outcome.baseline { printLine(renderer.render(baseline: comparison)) }
            if !outcome.thresholds.isEmpty { printLine(renderer.render(thresholds: outcome.thresholds)) }
            if kept {
                // The end every run command has: the files, the HTML report's path last.
                printReportPaths(runFolder, har: outcome.summary.tasks > 0, prometheusPath: judgement.prometheusPath)
            } else {
                printLine("judged again, nothing written (\(paths[0]) is left as it is; --output-dir or --run-dir keeps the new run)")
            }
        }
        // A damaged journal is bad input, whatever the run's status: the report holds the rest.
        guard outcome.losses.isEmpty else {
            printError("sonde: \(runFolder.journalPath) is damaged: \(outcome.losses.description) could not be read; "
                + "the report holds the rest of the journal")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        throw ExitCode(outcome.exitStatus.rawValue)
    }

    /// `--baseline` for the run in `folder` (never itself; `previous` is older than it), nil without one.
    func loadBaseline(for folder: RunFolder) throws(TaskError) -> JournalScan.Result? {
        guard let text = judgement.baselinePath else { return nil }
        let run = JournalScan.startedRun(folder: folder)
        let loader = BaselineLoader(historyPath: history.historyPath, outputDirectory: output.outputDirectory,
                                    acceptAnySubject: judgement.baselineAny, renderers: CheckKinds.sonde.sectionRenderers)
        let loaded = try loader.load(text, subject: run?.subject, runID: run?.id, startedAt: run?.startedAt)
        if let note = loaded.note { printError("sonde: " + note) }
        return loaded.baseline
    }

    /// A new folder only this user may enter, for a run judged again and only printed.
    static func privateTemporaryFolder() throws(TaskError) -> String {
        var template = Array((NSTemporaryDirectory() + "sonde-report-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw TaskError(code: .localIOError, message: "cannot make a temporary folder in \(NSTemporaryDirectory()): \(systemErrorMessage())")
        }
        return String(cString: made)
    }

    /// Removes a run folder this command made (`madeHere`), or only what it wrote into a given empty `--run-dir`.
    static func remove(_ folder: RunFolder, madeHere: Bool) {
        if madeHere {
            try? FileManager.default.removeItem(atPath: folder.path)
        } else {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
                try? FileManager.default.removeItem(atPath: (folder.path as NSString).appendingPathComponent(name))
            }
        }
    }

    /// Runs of sonde before the worker settings went through a pipe left them in
    /// `transfers/worker-settings.json` when killed, credentials (-H) included: removed (the
    /// name itself, never through a link), with a warning.
    static func removeLeftoverSecrets(in folder: String) {
        let path = folder + "/transfers/worker-settings.json"
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if unlink(path) == 0 {
            printError("warning: removed \(path): an older sonde left the transfer settings there, which may hold credentials (-H)")
        } else {
            printError("warning: \(path) holds the transfer settings of a killed run, which may hold credentials (-H); "
                + "it could not be removed (\(String(cString: strerror(errno)))): remove it")
        }
    }
}
