import ArgumentParser
import Foundation
import SondeCore
import SondeReport

/// `sonde report DIR`: re-renders a run folder from its journal (also one a killed run left),
/// optionally against new thresholds. Writes the files in place, atomically.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Rebuild a run's reports (JSON, HTML, HAR, JUnit, Prometheus) from its journal.",
        discussion: """
        Works on any run folder, including one left by a killed run (no end line in the journal): \
        that run is reported as interrupted, with the tasks it flushed.
        Examples: sonde report Reports/20261122T001200Z-probe-1a2b
                  sonde report --from-journal Reports/<run-id> --threshold 'wait.p95<200ms'
        """)

    @Argument(help: "The run folder (holding journal.jsonl).")
    var folder: String?

    @Option(name: .customLong("from-journal"), help: "The run folder to rebuild (the same as the argument).")
    var fromJournal: String?

    @Flag(name: .long, help: "Print the report document (JSON) on stdout instead of the terminal view.")
    var json = false

    @Option(name: .customLong("threshold"), help: ArgumentHelp("Evaluate this threshold instead of the run's own (repeatable).",
                                                             valueName: "expr"))
    var thresholdExpressions: [String] = []

    @Option(name: .customLong("prom"), help: ArgumentHelp("Also write the Prometheus text file.", valueName: "file"))
    var prometheusPath: String?

    @Option(name: .customLong("baseline"), help: ArgumentHelp(
        "Compare with an earlier run folder, phase by phase; enables .delta thresholds.", valueName: "run-folder"))
    var baselinePath: String?

    func validate() throws {
        guard (folder == nil) != (fromJournal == nil) else {
            throw ValidationError("give exactly one run folder, as the argument or with --from-journal")
        }
        for expression in thresholdExpressions {
            do throws(ThresholdSyntaxError) { _ = try Threshold(parsing: expression) } catch { throw ValidationError(error.message) }
        }
    }

    func run() throws {
        let runFolder = RunFolder(existing: normalizedRunFolder(folder ?? fromJournal ?? ""))
        let thresholds = thresholdExpressions.isEmpty ? nil : thresholdExpressions.compactMap { try? Threshold(parsing: $0) }
        let outcome: RunOutcome
        do {
            let baseline = try baselinePath.map { (path: String) throws(TaskError) in
                try JournalScan.read(folder: RunFolder(existing: normalizedRunFolder(path)))
            }
            outcome = try ReportFiles.render(folder: runFolder, thresholds: thresholds, baseline: baseline,
                                             prometheusPath: prometheusPath)
        } catch {
            printError("sonde: \(error.message)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        if json {
            if let data = FileManager.default.contents(atPath: runFolder.reportJSONPath) { FileHandle.standardOutput.write(data) }
        } else {
            let renderer = TerminalRenderer(useColor: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
            for warning in outcome.run.warnings { printError("warning: \(warning)") }
            print("run \(outcome.run.id) (\(outcome.run.command), \(outcome.run.status.rawValue))")
            print(renderer.render(summary: outcome.summary))
            if let comparison = outcome.baseline { print(renderer.render(baseline: comparison)) }
            if !outcome.thresholds.isEmpty { print(renderer.render(thresholds: outcome.thresholds)) }
            for file in [runFolder.reportHTMLPath, runFolder.reportJSONPath, runFolder.reportHARPath, runFolder.junitPath]
                + (prometheusPath.map { [$0] } ?? []) {
                print("wrote \(file)")
            }
        }
        if outcome.run.status == .interrupted { throw ExitCode(ExitStatus.interrupted.rawValue) }
        if outcome.thresholds.contains(where: { !$0.passed }) { throw ExitCode(ExitStatus.thresholdsFailed.rawValue) }
        throw ExitCode(outcome.run.status == .passed ? ExitStatus.success.rawValue : ExitStatus.failure.rawValue)
    }
}
