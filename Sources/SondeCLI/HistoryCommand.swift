import ArgumentParser
import Foundation
import SondeCore
import SondeHistory
import SondeReport
import SondeRun
import SondeSuite

/// `sonde history`: the trends of the runs recorded with `--history` (an SQLite file), per check:
/// in the terminal, as JSON, or as an HTML index page with charts linking to each run's report.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the trends of recorded runs, per check (add runs with --history on probe, soak, resume, run, demo).",
        discussion: """
        Reads --history, or <output-dir>/history.sqlite without it. A run without suite checks counts as one check named \
        after its command and first URL (e.g. "probe https://host/path").
        Examples: sonde run checks.yaml --history Reports/history.sqlite
                  sonde history --since 7d
                  sonde history --check api --json
                  sonde history --html Reports/history.html
                  sonde history --history .sonde/history.sqlite --fail-on regressed   (exit 99 on a regression)
        """)

    @OptionGroup var history: HistoryOption
    @OptionGroup var output: OutputDirectoryOption

    @Option(name: .customLong("check"), help: ArgumentHelp("Only this check (its name as the trends show it).", valueName: "name"))
    var check: String?

    @Option(name: .customLong("since"), help: ArgumentHelp(
        "Only runs that started this long ago or later, e.g. 7d, 12h, 30m (a number with a unit, at most \(maxSinceDays)d).",
        valueName: "duration"))
    var since: String?

    @Flag(name: .long, help: "Print the trends and the newest runs as JSON.")
    var json = false

    @Option(name: .customLong("html"), help: ArgumentHelp("Also write the index page (trend charts, links to each run's report) to this file.",
                                                          valueName: "file"))
    var htmlPath: String?

    @Option(name: .customLong("last"), help: "How many of the newest runs --json lists (1…\(maxLast)).")
    var last = 100

    /// What `--fail-on` makes a failure (exit 99).
    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        /// A figure of some check's newest run regressed (`HistoryTrend`'s rule).
        case regressed
    }

    @Option(name: .customLong("fail-on"), help: ArgumentHelp(
        "Exit 99 when a check shown (--check, --since) has a figure marked REGRESSED in its newest run, after printing the trends.",
        valueName: "regressed"))
    var failOn: FailOn?

    static let maxSinceDays = 36_500
    static let maxLast = 100_000

    /// `--since` in seconds: sonde's duration parser (`7d`, `12h`), above 0 and at most `maxSinceDays`.
    static func sinceSeconds(_ text: String) -> Double? {
        guard let seconds = DurationValue(text: text)?.seconds, seconds > 0, seconds <= Double(maxSinceDays) * 86_400 else { return nil }
        return seconds
    }

    func validate() throws {
        if let since, Self.sinceSeconds(since) == nil {
            throw ValidationError("--since must be a duration above 0 and at most \(Self.maxSinceDays)d: \(Quantity.durationHint)")
        }
        guard (1...Self.maxLast).contains(last) else { throw ValidationError("--last must be 1…\(Self.maxLast)") }
        if let check, let problem = CheckReport.nameProblem(check) { throw ValidationError("--check: \(problem)") }
    }

    func run() throws {
        let path = history.historyPath ?? (output.outputDirectory as NSString).appendingPathComponent(HistoryStore.defaultFileName)
        let start = since.flatMap(Self.sinceSeconds).map {
            Timestamp.now().adding(microseconds: -Int64($0 * 1_000_000))
        }
        let regressed: [HistoryTrend]
        do throws(TaskError) {
            let store = try HistoryStore.openForReading(path: path)
            if let htmlPath {
                let page = try HistoryPage.render(store: store, check: check, since: start, pagePath: htmlPath)
                try NoFollowFile.writeReplacing(htmlPath, Array(page.utf8), mode: 0o644)
            }
            let trends = try store.trends(check: check, since: start)
            regressed = trends.filter { !$0.regressions.isEmpty }
            if json {
                StandardStreams.writeOutput(try HistoryJSON(store: store, check: check, since: start, last: last).encoded() + Data("\n".utf8))
            } else {
                printLine(HistoryTerminal.render(trends, path: path))
                if let htmlPath { printLine("page: " + htmlPath) }
            }
        } catch {
            printError("sonde: \(error.message)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        if failOn == .regressed, !regressed.isEmpty {
            printError("sonde: --fail-on regressed: " + regressed.map { trend in
                TerminalText.sanitized("\(trend.name) (\(trend.regressions.map(\.label).joined(separator: ", ")))")
            }.joined(separator: "; ") + " regressed in the newest run")
            throw ExitCode(ExitStatus.thresholdsFailed.rawValue)
        }
    }
}
