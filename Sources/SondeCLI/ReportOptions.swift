import ArgumentParser
import Foundation
import SondeCore
import SondeHistory
import SondeReport
import SondeRun

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

    /// The run settings these options give (`validate` has run: the config file is in them).
    var settings: RunSettings {
        var settings = RunSettings()
        settings.json = json
        settings.outputDirectory = outputDirectory
        settings.historyPath = history.historyPath
        settings.noRedact = noRedact
        settings.extraRedactions = extraRedactions
        settings.thresholds = thresholds
        settings.prometheusPath = prometheusPath
        settings.baselinePath = baselinePath
        return settings
    }

    /// A `--baseline history:…` that is malformed, as the usage error it is (a run folder is checked when read).
    static func validateBaseline(_ baselinePath: String?) throws {
        guard let baselinePath, HistoryBaseline.isHistoryBaseline(baselinePath) else { return }
        do throws(TaskError) { _ = try HistoryBaseline(parsing: baselinePath) } catch { throw ValidationError(error.message) }
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
