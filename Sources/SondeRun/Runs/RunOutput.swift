import Foundation
import SondeCore
import SondeSuite
import SondeReport

/// A run folder path as users type it: trailing slashes dropped, `…/journal.jsonl` accepted.
public func normalizedRunFolder(_ path: String) -> String {
    var path = path
    if path.hasSuffix("/journal.jsonl") { path = String(path.dropLast("/journal.jsonl".count)) }
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path
}

/// `--json`: the run's report.json on stdout, with `runDir` (the run folder's absolute path)
/// after `schemaVersion`, so that a script needs no path from the terminal's lines; without
/// `runDir` when `kept` is false (a folder removed after printing).
public func printReportDocument(_ folder: RunFolder, kept: Bool = true) {
    guard var data = FileManager.default.contents(atPath: folder.reportJSONPath) else { return }
    // The document starts `{"schemaVersion":N,"tool":…` (ReportJSONWriter): its first comma ends schemaVersion.
    if kept, let comma = data.firstIndex(of: UInt8(ascii: ",")), let path = try? JSONEncoder().encode(absolutePath(folder.path)) {
        data.insert(contentsOf: Data(#","runDir":"#.utf8) + path, at: comma)
    }
    StandardStreams.writeOutput(data)
}

/// `path` as an absolute, standardised path (relative to the working folder when relative).
func absolutePath(_ path: String) -> String {
    URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
        .standardizedFileURL.path
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
