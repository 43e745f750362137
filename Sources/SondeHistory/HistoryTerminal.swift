import Foundation
import SondeReport

/// `sonde history` in the terminal: per check a heading (runs, newest status and run) and a
/// table of its figures, newest run beside the median of the runs before it, regressions marked.
/// Text from the database (check names, run ids) is shown through `TerminalText.sanitized`.
public enum HistoryTerminal {
    public static func render(_ trends: [HistoryTrend], path: String) -> String {
        guard !trends.isEmpty else { return "no runs recorded in \(TerminalText.sanitized(path)) (add some with --history on a run command)" }
        var lines: [String] = []
        for trend in trends {
            let newest = trend.newest
            lines.append("── \(TerminalText.sanitized(trend.name)) (\(TerminalText.sanitized(trend.kind))) · \(trend.runs) run\(trend.runs == 1 ? "" : "s")"
                + " · newest \(HistoryFormat.minute(newest.check.startedAt)) UTC \(TerminalText.sanitized(newest.check.status))"
                + " · \(TerminalText.sanitized(newest.run.id))")
            if trend.figures.isEmpty {
                lines.append("   no figures (no response, soak or resume trial in its newest run)")
                continue
            }
            let rows = trend.figures.map { figure in
                [figure.metric.label, figure.metric.format(figure.value), figure.previousMedian.map(figure.metric.format) ?? "–",
                 figure.regressed ? "REGRESSED" : ""]
            }
            let header = ["figure", "newest", "median before (≤ \(HistoryTrend.window) runs)", ""]
            let widths = (0..<3).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
            for row in [header] + rows {
                let cells = (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                lines.append(("   " + cells.joined(separator: "  ") + "  " + row[3]).trimmingTrailingSpaces())
            }
        }
        lines.append("regressed: \(HistoryTrend.rule)")
        return lines.joined(separator: "\n")
    }
}

private extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
