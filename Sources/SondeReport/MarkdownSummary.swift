import SondeCore

/// A finished run in Markdown, for a CI step summary (`--summary-md FILE`, GitHub's
/// `$GITHUB_STEP_SUMMARY`): the verdict, the thresholds, a row per request name, the checks of a
/// suite, the comparison with the baseline, the emulated link, and the first failures with their
/// causes. CommonMark with GitHub's table extension (GFM): tables, headings, lists, code spans.
///
/// Every string from outside (URLs, names, messages, expressions, a link's profile) goes through
/// `markdownEscape`, so that it stays text: a `|` does not split a table cell, `<script>` is not
/// HTML, `*`, `_`, `[` and backticks start no emphasis, link or code span. The run's strings were
/// redacted when they were recorded; nothing is added here. Pure: returns the text.
public enum MarkdownSummary {
    /// The first failed tasks listed (distinct by request name and error code).
    static let failuresShown = 10

    /// - Parameter folder: the run folder, named under the verdict (nil: not named).
    public static func render(_ outcome: RunOutcome, folder: String? = nil) -> String {
        let run = outcome.run
        var blocks: [String] = []
        blocks.append("### sonde \(markdownEscape(run.command)): \(verdict(outcome))")
        var facts = ["run `\(codeSpan(run.id))`"]
        if outcome.summary.tasks > 0 { facts.append(markdownEscape(RequestFiguresText.throughput(outcome.summary))) }
        if let finished = run.finishedAt {
            facts.append("took " + RequestFiguresText.seconds(Double(finished.microsecondsSince1970 &- run.startedAt.microsecondsSince1970) / 1000))
        }
        facts.append("exit \(outcome.exitStatus.rawValue)")
        if let folder { facts.append("report `\(codeSpan(folder + "/report.html"))`") }
        blocks.append(facts.joined(separator: " · "))
        for warning in run.warnings.prefix(5) { blocks.append("> ⚠️ " + markdownEscape(warning)) }
        let thresholds = outcome.thresholds + outcome.checks.flatMap(\.thresholds)
        if !thresholds.isEmpty { blocks.append(thresholdTable(thresholds)) }
        if !outcome.checks.isEmpty {
            blocks.append(checkTable(outcome))
            let requests = outcome.checks.flatMap { check in (check.summary?.byRequest ?? []).map { (check.name, $0) } }
            if !requests.isEmpty { blocks.append(requestTable(requests)) }
        } else if !outcome.summary.byRequest.isEmpty {
            blocks.append(requestTable(outcome.summary.byRequest.map { (nil, $0) }))
        }
        if let omitted = outcome.summary.requestsOmitted {
            blocks.append("\(omitted) tasks of further request names are not in the table (only the first \(ProbeSummary.maxRequests) names are kept).")
        }
        for soak in outcome.soaks {
            blocks.append("Soak \(markdownEscape(soak.url)): \(soak.passed ? "✅" : "❌") \(markdownEscape(soak.verdict.words))")
        }
        if let baseline = outcome.baseline, !baseline.rows.isEmpty { blocks.append(baselineTable(baseline)) }
        let links = (run.link.map { [(nil as String?, $0)] } ?? []) + outcome.checks.compactMap { check in check.link.map { (check.name, $0) } }
        if !links.isEmpty { blocks.append(linkList(links)) }
        let failures = failureList(outcome.sample)
        if !failures.isEmpty { blocks.append(failures) }
        return blocks.joined(separator: "\n\n") + "\n"
    }

    /// "✅ passed", "❌ failed (2 of 3 thresholds failed)", "⚠️ interrupted".
    static func verdict(_ outcome: RunOutcome) -> String {
        let status = outcome.run.status
        let mark: String
        switch status {
        case .passed: mark = "✅"
        case .failed, .error: mark = "❌"
        case .interrupted, .timeout: mark = "⚠️"
        }
        let thresholds = outcome.thresholds + outcome.checks.flatMap(\.thresholds)
        let failed = thresholds.filter { !$0.passed }.count
        var words = "\(mark) \(status.rawValue)"
        var why: [String] = []
        if failed > 0 { why.append("\(failed) of \(thresholds.count) thresholds failed") }
        if outcome.summary.failedTasks > 0 { why.append("\(outcome.summary.failedTasks) of \(outcome.summary.tasks) tasks failed") }
        if !why.isEmpty { words += " (" + why.joined(separator: ", ") + ")" }
        return words
    }

    static func thresholdTable(_ thresholds: [ThresholdResult]) -> String {
        var rows = ["| threshold | check | result | observed |", "| --- | --- | --- | --- |"]
        for result in thresholds {
            rows.append(row([codeCell(result.expression), markdownEscape(result.check ?? ""),
                             result.passed ? "✅ passed" : "❌ failed", markdownEscape(result.message)]))
        }
        return "#### Thresholds\n\n" + rows.joined(separator: "\n")
    }

    /// A row per request name (per check in a suite): tasks, failures, the total's percentiles, bytes.
    static func requestTable(_ requests: [(check: String?, figures: ProbeSummary.RequestFigures)]) -> String {
        let withChecks = requests.contains { $0.check != nil }
        var rows = ["| request |" + (withChecks ? " check |" : "") + " n | failed | p50 ms | p95 ms | p99 ms | received | sent |",
                    "| --- |" + (withChecks ? " --- |" : "") + " ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for (check, request) in requests {
            let total = request.all["total"]
            var cells = [markdownEscape(request.name)]
            if withChecks { cells.append(markdownEscape(check ?? "")) }
            cells.append(String(request.count))
            cells.append(request.errors > 0 ? "❌ \(request.errors)" : "0")
            cells += [total?.p50, total?.p95, total?.p99].map { $0.map(formatMs) ?? "–" }
            cells += [formatBytes(request.bytesReceived), formatBytes(request.bytesSent)]
            rows.append(row(cells))
        }
        return "#### Requests\n\n" + rows.joined(separator: "\n")
    }

    static func checkTable(_ outcome: RunOutcome) -> String {
        var rows = ["| check | kind | status | figures |", "| --- | --- | --- | --- |"]
        for check in outcome.checks {
            let mark = check.status == .passed ? "✅" : check.status == .interrupted || check.status == .timeout ? "⚠️" : "❌"
            let figures = CheckFigures.of(check, soaks: outcome.soaks, resume: outcome.resume, sections: outcome.sections,
                                          renderers: outcome.renderers).joined(separator: "; ")
            rows.append(row([markdownEscape(check.name), markdownEscape(check.kind), "\(mark) \(check.status.rawValue)", markdownEscape(figures)]))
        }
        return "#### Checks\n\n" + rows.joined(separator: "\n")
    }

    static func baselineTable(_ comparison: BaselineComparison) -> String {
        var rows = ["| phase | baseline ms | this run ms | change ms | change |", "| --- | ---: | ---: | ---: | ---: |"]
        for comparisonRow in comparison.rows {
            let ratio = comparisonRow.changeRatio.map { ($0 >= 0 ? "+" : "") + formatMs($0 * 100) + " %" } ?? "–"
            let mark = comparisonRow.isRegression ? " 🔺" : comparisonRow.isImprovement ? " 🔻" : ""
            rows.append(row([markdownEscape(comparisonRow.phase + "." + comparisonRow.aggregation), formatMs(comparisonRow.baselineMs),
                             formatMs(comparisonRow.currentMs), (comparisonRow.changeMs >= 0 ? "+" : "") + formatMs(comparisonRow.changeMs),
                             ratio + mark]))
        }
        return "#### Compared with baseline `\(codeSpan(comparison.baselineRunID))` (\(comparison.baselineTasks) tasks)\n\n"
            + "🔺 more than 10 % and 1 ms worse, 🔻 better.\n\n" + rows.joined(separator: "\n")
    }

    static func linkList(_ links: [(check: String?, link: LinkUse)]) -> String {
        var lines = ["#### Emulated link", ""]
        for (check, link) in links {
            var line = "- " + (check.map { "check \(markdownEscape($0)): " } ?? "") + markdownEscape(link.conditions.summary)
            if let down = link.down, let up = link.up { line += "; down " + markdownEscape(down.summary) + "; up " + markdownEscape(up.summary) }
            if let problem = link.problem { line += "; the emulator stopped early: " + markdownEscape(problem) }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The first failed tasks of the sample (distinct by name and error code), with their causes.
    static func failureList(_ sample: [ProbeTask]) -> String {
        var seen = Set<String>()
        var lines: [String] = []
        for task in sample {
            guard let error = task.error, seen.insert(task.requestName + "\u{0}" + error.code.rawValue).inserted else { continue }
            let status = task.transactionMetrics.last?.response.map { " (HTTP \($0.statusCode))" } ?? ""
            lines.append("- `\(codeSpan(error.code.rawValue))` " + markdownEscape(task.requestName) + status + ": " + markdownEscape(error.message))
            if lines.count == failuresShown { break }
        }
        guard !lines.isEmpty else { return "" }
        return "#### First failures\n\n" + lines.joined(separator: "\n")
    }

    /// A table row of cells already in Markdown.
    private static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }

    /// `text` as a code span's content in a table cell: backticks, which would end the span, and
    /// pipes, which would end the cell, cannot appear in it, so such text is escaped text instead.
    private static func codeCell(_ text: String) -> String {
        text.contains("`") || text.contains("|") || text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            ? markdownEscape(text) : "`" + text + "`"
    }

    /// Text safe inside a single-backtick code span outside tables (ids, codes sonde makes): a
    /// backtick or control character becomes `?`.
    private static func codeSpan(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "`" || $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}

/// Escapes text for CommonMark inline content, table cells included (GFM): every ASCII
/// character that can start or end an inline construct, or a cell, is backslash-escaped (`\`,
/// `` ` ``, `*`, `_`, `[`, `]`, `<`, `>`, `&`, `|`, `~`, `!`, `#`), so that it is shown as itself;
/// control characters (a line break would end a table row or a paragraph) become spaces.
public func markdownEscape(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\", "`", "*", "_", "[", "]", "<", ">", "&", "|", "~", "!", "#":
            result.unicodeScalars.append("\\")
            result.unicodeScalars.append(scalar)
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}" {
                result.unicodeScalars.append(" ")
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result
}
