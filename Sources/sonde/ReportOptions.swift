import ArgumentParser
import SondeCore

/// Options every subcommand that writes a run folder takes.
struct ReportOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the report document (JSON) on stdout instead of the terminal view.")
    var json = false

    @Option(name: .customLong("output-dir"), help: "Where run folders are written.")
    var outputDirectory = "Reports"

    @Flag(name: .customLong("no-redact"), help: "Keep secrets (Authorization, cookies, token-like query parameters) in the outputs. Recorded in the report.")
    var noRedact = false

    @Option(name: .customLong("redact"), help: "Also redact headers and query parameters with this name (repeatable).")
    var extraRedactions: [String] = []

    var redactor: Redactor { Redactor(enabled: !noRedact, extraNames: extraRedactions) }
}
