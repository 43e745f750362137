import ArgumentParser
import Foundation
import SondeCore
import SondeReport
import SondeRun

/// `sonde report DIR`: re-renders a run folder from its journal (also one a killed run left),
/// optionally against new thresholds. Writes the files in place, atomically.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Rebuild a run's reports (JSON, HTML, HAR, JUnit, Prometheus) from its journal.",
        discussion: """
        Works on any run folder, including one left by a killed run (no end line in the journal): \
        that run is reported as interrupted, with the tasks it flushed.
        A damaged journal (lines that do not decode, out-of-range numbers, lines too long) is said line by line and exits 64; \
        a folder that already has a report keeps it unless --force is given (a last line cut by a kill is no damage). \
        Several run folders are merged into a new run under --output-dir, with every task of each. \
        --baseline takes a run folder or history:CHECK:median:N (read from --history); with --history the rebuilt run is added to it.
        Examples: sonde report Reports/20261122T001200Z-probe-1a2b
                  sonde report --from-journal Reports/<run-id> --threshold 'wait.p95<200ms'
                  sonde report Reports/<run-a> Reports/<run-b> --output-dir Reports/merged
        """)

    @Argument(help: "The run folder (holding journal.jsonl); several folders are merged into a new run.")
    var folders: [String] = []

    /// Where a merged run is written (only when merging); where `--history` is by default.
    @OptionGroup var output: OutputDirectoryOption

    /// Where `--baseline history:…` is read, and the rebuilt run is added (as every run command adds its run).
    @OptionGroup var history: HistoryOption

    @Option(name: .customLong("from-journal"), help: "The run folder to rebuild (the same as the argument).")
    var fromJournal: String?

    @Flag(name: .customLong("force"),
          help: "Replace the folder's report files even when its journal is damaged (the rebuilt report lacks what the damaged lines held).")
    var force = false

    @OptionGroup var jsonOutput: JSONOutputOption
    @OptionGroup var judgement: JudgementOptions
    @OptionGroup var summaryMarkdown: SummaryMarkdownOption

    mutating func validate() throws {
        folders = PositionalRuns.split(folders)
        guard folders.isEmpty != (fromJournal == nil) else {
            throw ValidationError("give the run folder as arguments or with --from-journal, not both and not neither")
        }
    }

    func run() throws {
        let paths = (fromJournal.map { [$0] } ?? folders).map(normalizedRunFolder)
        for path in paths { Self.removeLeftoverSecrets(in: path) }
        var runFolder = RunFolder(existing: paths[0])
        let thresholds = judgement.thresholdExpressions.isEmpty ? nil : judgement.thresholds
        let outcome: RunOutcome
        do {
            if paths.count > 1 {
                runFolder = try JournalMerge.merge(paths.map { RunFolder(existing: $0) }, outputDirectory: output.outputDirectory,
                                                   arguments: Array(CommandLine.arguments.dropFirst()))
            }
            let baseline = try judgement.baselinePath.map { (path: String) throws(TaskError) in
                try RunSettings.loadBaseline(path, historyPath: history.historyPath, outputDirectory: output.outputDirectory)
            }
            outcome = try ReportFiles.render(folder: runFolder, thresholds: thresholds, baseline: baseline,
                                             prometheusPath: judgement.prometheusPath, keepingReportOnLoss: !force)
        } catch {
            printError("sonde: \(error.message)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        history.record(runFolder)
        RunSettings.write(outcome, folder: runFolder, summary: summaryMarkdown.target)
        if jsonOutput.json {
            printReportDocument(runFolder)
        } else {
            let renderer = RunSettings.terminalRenderer
            for warning in outcome.run.warnings { printError("warning: \(warning)") }
            // The journal is a file: anything in it may be hostile.
            print(TerminalText.sanitized("run \(outcome.run.id) (\(outcome.run.command), \(outcome.run.status.rawValue))"))
            if outcome.summary.tasks > 0 || (outcome.soaks.isEmpty && outcome.audits.isEmpty) { print(renderer.render(summary: outcome.summary)) }
            for soak in outcome.soaks { print(renderer.render(soak: soak)) }
            for audit in outcome.audits { print(AuditTerminalView.render(audit)) }
            if let comparison = outcome.baseline { print(renderer.render(baseline: comparison)) }
            if !outcome.thresholds.isEmpty { print(renderer.render(thresholds: outcome.thresholds)) }
            // The end every run command has: the files, the HTML report's path last.
            printReportPaths(runFolder, har: outcome.summary.tasks > 0, prometheusPath: judgement.prometheusPath)
        }
        // A damaged journal is bad input, whatever the run's status: the report holds the rest.
        guard outcome.losses.isEmpty else {
            printError("sonde: \(runFolder.journalPath) is damaged: \(outcome.losses.description) could not be read; "
                + "the report holds the rest of the journal")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        throw ExitCode(outcome.exitStatus.rawValue)
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
