import ArgumentParser
import SondeCore

/// The root command. The `sonde` executable is only `await Sonde.main()`: every command, option
/// and run lives in this library, where tests reach it.
public struct Sonde: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "sonde",
        abstract: "Network diagnostics: URLSession-grade transaction metrics from libcurl, for Linux.",
        discussion: """
        Exit codes: 0 all good; 1 a probe, soak or resume trial failed; 64 usage or configuration error; 99 thresholds failed; \
        130 interrupted (the report is still written).
        """,
        version: SondeVersion.current,
        subcommands: [ProbeCommand.self, SoakCommand.self, ResumeCommand.self, ResumeWorkerCommand.self, AnalyzeCommand.self, ReportCommand.self, DemoCommand.self, TargetCommand.self]
    )

    /// `--capture` takes an optional value (`--capture=optional`), which swift-argument-parser
    /// options cannot: a bare `--capture` is read as `--capture=required`.
    public static func runFromCommandLine() async {
        let arguments = CommandLine.arguments.dropFirst().map { $0 == "--capture" ? "--capture=required" : $0 }
        await main(Array(arguments))
    }
}
