import ArgumentParser
import Foundation
import SondeCore
import SondeHistory
import SondeReport

/// Options every subcommand that writes a run folder takes.
struct ReportOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the report document (JSON) on stdout instead of the terminal view.")
    var json = false

    @OptionGroup var output: OutputDirectoryOption

    @OptionGroup var history: HistoryOption

    var outputDirectory: String {
        get { output.outputDirectory }
        set { output.outputDirectory = newValue }
    }

    @OptionGroup var redaction: RedactionOptions

    var noRedact: Bool { redaction.noRedact }
    var extraRedactions: [String] {
        get { redaction.extraRedactions }
        set { redaction.extraRedactions = newValue }
    }

    @Option(name: .customLong("threshold"), help: ArgumentHelp(
        "A pass/fail rule on the run's metrics (repeatable), e.g. 'wait.p95<200ms', 'errors.rate<1%'. A failing one exits 99.",
        discussion: "Metrics: \(ThresholdMetric.catalogue). Durations take a unit (us, ms, s, m, h); rates % or a fraction.",
        valueName: "expr"))
    var thresholdExpressions: [String] = []

    @Option(name: .customLong("prom"), help: ArgumentHelp(
        "Also write the run's metrics in Prometheus text format to this file (for node_exporter's textfile collector).",
        valueName: "file"))
    var prometheusPath: String?

    @Option(name: .customLong("baseline"), help: ArgumentHelp(
        "Compare this run with an earlier run folder, or with history:CHECK:median:N (the median of a check's newest N runs in --history), "
            + "phase by phase; enables .delta thresholds (e.g. 'wait.p95.delta<10%').",
        valueName: "run-folder"))
    var baselinePath: String?

    @Option(name: .customLong("config"), help: ArgumentHelp(
        "A YAML file with thresholds, redact, baseline and prom settings (command-line options add to or override it).",
        valueName: "file"))
    var configPath: String?

    var redactor: Redactor { redaction.redactor }

    /// Reads the `--baseline` run (nil without one) before any network work starts (`loadBaseline(_:history:outputDirectory:)`).
    func loadBaseline() throws(TaskError) -> JournalScan.Result? {
        try baselinePath.map { (path) throws(TaskError) in try Self.loadBaseline(path, history: history, outputDirectory: outputDirectory) }
    }

    /// Reads a `--baseline`: a run folder, or `history:CHECK:median:N` from `history`'s `--history`
    /// (default `<output-dir>/history.sqlite`), which is only read. Every command taking
    /// `--baseline` (the run commands, `sonde report`) reads it here.
    static func loadBaseline(_ baselinePath: String, history: HistoryOption, outputDirectory: String) throws(TaskError) -> JournalScan.Result {
        if HistoryBaseline.isHistoryBaseline(baselinePath) {
            let path = history.historyPath ?? (outputDirectory as NSString).appendingPathComponent(HistoryStore.defaultFileName)
            let (run, summary) = try HistoryBaseline(parsing: baselinePath).load(from: HistoryStore.openForReading(path: path))
            return JournalScan.Result(tool: ToolInfo(libcurl: nil, features: []), run: run, summary: summary)
        }
        do {
            return try JournalScan.read(folder: RunFolder(existing: normalizedRunFolder(baselinePath)))
        } catch {
            throw TaskError(code: error.code, message: "--baseline: \(error.message)")
        }
    }

    /// A `--baseline history:…` that is malformed, as the usage error it is (a run folder is checked when read).
    static func validateBaseline(_ baselinePath: String?) throws {
        guard let baselinePath, HistoryBaseline.isHistoryBaseline(baselinePath) else { return }
        do throws(TaskError) { _ = try HistoryBaseline(parsing: baselinePath) } catch { throw ValidationError(error.message) }
    }

    /// Creates the run folder under `--output-dir` and the recorder that journals into it.
    func openRecorder(run: RunInfo, tool: ToolInfo) throws(TaskError) -> RunRecorder {
        let folder = try RunFolder(outputDirectory: outputDirectory, runID: run.id)
        var run = run
        run.id = folder.runID  // another name when the first was taken
        return try RunRecorder(folder: folder, tool: tool, run: run)
    }

    /// Ends a run under these options (thresholds, baseline, Prometheus file), renders every
    /// report file and adds the run to `--history`; nil, said on stderr, when the report could not
    /// be written (a history that cannot be written is said, and the run stands).
    func finish(_ recorder: RunRecorder, status: RunStatus, baseline: JournalScan.Result?) -> RunOutcome? {
        let outcome: RunOutcome
        do {
            outcome = try recorder.finish(status: status, thresholds: thresholds, baseline: baseline, prometheusPath: prometheusPath)
        } catch {
            printError("sonde: could not write the report: \(error.message)")
            return nil
        }
        history.record(recorder.folder)
        return outcome
    }

    /// The terminal view: in colour on a TTY unless NO_COLOR is set.
    static var terminalRenderer: TerminalRenderer {
        TerminalRenderer(useColor: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    }

    /// The parsed thresholds (`validate` has already rejected malformed ones).
    var thresholds: [Threshold] { (try? parsedThresholds(thresholdExpressions)) ?? [] }

    /// Loads `--config` into the options (its thresholds first), then checks every threshold.
    mutating func validate() throws {
        if let configPath {
            let config: ConfigFile
            do throws(ConfigFile.Problem) { config = try ConfigFile.load(path: configPath) } catch { throw ValidationError(error.description) }
            thresholdExpressions = config.thresholds + thresholdExpressions
            extraRedactions = config.redact + extraRedactions
            if baselinePath == nil { baselinePath = config.baseline }
            if prometheusPath == nil { prometheusPath = config.prom }
        }
        _ = try parsedThresholds(thresholdExpressions)
        try Self.validateBaseline(baselinePath)
    }
}

/// Parses `--threshold` expressions; the first malformed one is a usage error with its caret line.
func parsedThresholds(_ expressions: [String]) throws -> [Threshold] {
    var thresholds: [Threshold] = []
    for expression in expressions {
        do throws(ThresholdSyntaxError) { thresholds.append(try Threshold(parsing: expression)) } catch {
            throw ValidationError(error.message)
        }
    }
    return thresholds
}
