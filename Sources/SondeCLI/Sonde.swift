import ArgumentParser
import Foundation
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
        130 interrupted (the report is still written). \
        --libcurl PATH (anywhere on the command line) or SONDE_LIBCURL=PATH runs sonde on that libcurl; see sonde version.
        """,
        version: SondeVersion.current,
        subcommands: [ProbeCommand.self, SoakCommand.self, StreamCommand.self, ResumeCommand.self, RunCommand.self, ServeCommand.self, ResumeWorkerCommand.self, AnalyzeCommand.self, ReportCommand.self, HistoryCommand.self, DemoCommand.self, TargetCommand.self, AuditCommand.self, LinkCommand.self, VersionCommand.self]
    )

    /// `--capture` takes an optional value (`--capture=optional`), which swift-argument-parser
    /// options cannot: a bare `--capture` is read as `--capture=required` (`bareCaptureExpanded`).
    /// `--libcurl PATH` is taken out first (`LibcurlSelection`, which may re-execute sonde), and
    /// `--version --verbose` is `sonde version`. Long lists of URLs, files and folders reach the
    /// parser as a few tokens (`PositionalRuns`: its cost grows with the square of their number).
    public static func runFromCommandLine() async {
        // A write to a connection cut under a transfer must fail with EPIPE, not kill sonde: libcurl
        // runs with CURLOPT_NOSIGNAL (threads) and its QUIC sends do not all pass MSG_NOSIGNAL.
        signal(SIGPIPE, SIG_IGN)
        var arguments = bareCaptureExpanded(LibcurlSelection.apply(Array(CommandLine.arguments.dropFirst())))
        if Set(arguments) == ["--version", "--verbose"] { arguments = ["version"] }
        await main(PositionalRuns.joined(arguments))
    }

    /// `arguments` with each bare `--capture` in option position made `--capture=required`; after
    /// the `--` terminator every token is an argument (a file named `--capture`) and stays as it is.
    /// (The parser never reads a token starting with `--` as an option's value: `-H --capture` is
    /// refused with or without this, and `--header=--capture` is one token, left alone.)
    static func bareCaptureExpanded(_ arguments: [String]) -> [String] {
        guard let terminator = arguments.firstIndex(of: "--") else {
            return arguments.map { $0 == "--capture" ? "--capture=required" : $0 }
        }
        return arguments[..<terminator].map { $0 == "--capture" ? "--capture=required" : $0 } + arguments[terminator...]
    }
}
