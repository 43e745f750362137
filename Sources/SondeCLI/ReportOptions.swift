import ArgumentParser
import Foundation
import SondeCore
import SondeHistory
import SondeReport
import SondeRun
import SondeSuite

/// Options every subcommand that writes a run folder takes.
struct ReportOptions: ParsableArguments {
    @OptionGroup var jsonOutput: JSONOutputOption

    var json: Bool { jsonOutput.json }

    @OptionGroup var output: OutputDirectoryOption

    @OptionGroup var runDirectory: RunDirectoryOption

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

    @OptionGroup var judgement: JudgementOptions

    @OptionGroup var otlp: OTLPOption

    @OptionGroup var summaryMarkdown: SummaryMarkdownOption

    var thresholdExpressions: [String] {
        get { judgement.thresholdExpressions }
        set { judgement.thresholdExpressions = newValue }
    }
    var prometheusPath: String? {
        get { judgement.prometheusPath }
        set { judgement.prometheusPath = newValue }
    }
    var baselinePath: String? {
        get { judgement.baselinePath }
        set { judgement.baselinePath = newValue }
    }

    @Option(name: .customLong("config"), help: ArgumentHelp(
        "A YAML file with thresholds, redact, baseline and prom settings (command-line options add to or override it).",
        valueName: "file"))
    var configPath: String?

    var redactor: Redactor { redaction.redactor }

    /// The run settings these options give (`validate` has run: the config file is in them).
    var settings: RunSettings {
        var settings = RunSettings()
        settings.sectionRenderers = CheckKinds.sonde.sectionRenderers
        settings.json = json
        settings.outputDirectory = outputDirectory
        settings.historyPath = history.historyPath
        settings.noRedact = noRedact
        settings.extraRedactions = extraRedactions
        settings.thresholds = thresholds
        settings.prometheusPath = prometheusPath
        settings.baselinePath = baselinePath
        settings.baselineAny = judgement.baselineAny
        settings.runDirectory = runDirectory.runDirectory
        settings.otlp = otlp.settings
        settings.traceparent = otlp.traceparent
        settings.summaryMarkdown = summaryMarkdown.target
        return settings
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
        try JudgementOptions.validateBaseline(baselinePath)
    }
}

/// Parses `--threshold` expressions; the first malformed one is a usage error with its caret line.
func parsedThresholds(_ expressions: [String]) throws -> [Threshold] {
    var thresholds: [Threshold] = []
    for expression in expressions {
        do throws(ThresholdSyntaxError) { thresholds.append(try Threshold(parsing: expression, declared: CheckKinds.sonde.declaredMetrics)) } catch {
            throw ValidationError(error.message)
        }
    }
    return thresholds
}
