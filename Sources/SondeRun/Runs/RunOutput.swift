import Foundation
import SondeCore
import SondeReport

/// A run folder path as users type it: trailing slashes dropped, `…/journal.jsonl` accepted.
public func normalizedRunFolder(_ path: String) -> String {
    var path = path
    if path.hasSuffix("/journal.jsonl") { path = String(path.dropLast("/journal.jsonl".count)) }
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path
}

/// `--json`: the run's report.json on stdout.
public func printReportDocument(_ folder: RunFolder) {
    if let data = FileManager.default.contents(atPath: folder.reportJSONPath) { StandardStreams.writeOutput(data) }
}

/// The files a run wrote, as the terminal view ends (the HAR only when it holds transactions):
/// the HTML report last, on its own `report:` line, so that it is the output's last line.
public func printReportPaths(_ folder: RunFolder, har: Bool, prometheusPath: String?) {
    let others = [folder.reportJSONPath] + (har ? [folder.reportHARPath] : []) + [folder.junitPath]
        + (prometheusPath.map { [$0] } ?? [])
    for (index, path) in others.enumerated() { printLine((index == 0 ? "files:  " : "        ") + path) }
    printLine("report: " + folder.reportHTMLPath)
}

/// Prints `text` and a newline on stdout as one write (`StandardStreams`): the terminal view
/// reaches a pipe's reader line by line, as it happens.
public func printLine(_ text: String = "") {
    StandardStreams.line(text)
}

/// Prints a message on stderr. Messages carry text from outside (a server's answer, a file's
/// contents), so control characters are shown as escapes (`TerminalText`); its own lines stay lines.
public func printError(_ message: String) {
    StandardStreams.writeError(Data((TerminalText.sanitized(message, keepingNewlines: true) + "\n").utf8))
}

/// "90 s", "12.5 s", "10 m 5 s".
public func formatDuration(_ seconds: Double) -> String {
    if seconds >= 60 {
        let whole = Int(seconds.rounded())
        return whole % 60 == 0 ? "\(whole / 60) m" : "\(whole / 60) m \(whole % 60) s"
    }
    return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
}
