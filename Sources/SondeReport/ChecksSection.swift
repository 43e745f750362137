import Foundation
import SondeCore

/// The HTML of a run of checks (`sonde run`): the suite's verdict (the run's status) with a table
/// of a line per check (status, name linking to its section, kind, key figures, thresholds passed
/// and failed), then a section per check with its thresholds, probes (summary, phases,
/// waterfall), soak and resume results, and its kind's section items (`figuresHTML`). Every string is escaped; the check's section is
/// `id="check-<name>"`, linked as `#check-<name, percent-encoded>`.
enum ChecksSection {
    static func render(run: RunInfo, checks: [CheckReport], soaks: [SoakReport], resume: ResumeResults,
                       sample: [ProbeTask], sections: [ReportSection] = [], renderers: ReportSectionRenderers = ReportSectionRenderers()) -> String {
        var rows = ""
        for check in checks {
            let passed = check.thresholds.filter(\.passed).count
            let failed = check.thresholds.count - passed
            let figures = CheckFigures.of(check, soaks: soaks, resume: resume, sections: sections, renderers: renderers).joined(separator: "; ")
            rows += "<tr><td class=\"\(cssClass(check.status))\">\(htmlEscape(check.status.rawValue))</td>"
                + "<td class=\"text\"><a href=\"\(htmlEscape(href(check.name)))\">\(htmlEscape(check.name))</a></td>"
                + "<td>\(htmlEscape(check.kind))</td><td class=\"text\">\(htmlEscape(figures))</td>"
                + "<td>\(passed) passed\(failed > 0 ? ", <strong>\(failed) failed</strong>" : "")</td></tr>\n"
        }
        var html = """
        <section><h2>Suite verdict: <span class="status \(htmlEscape(run.status.rawValue))">\(htmlEscape(run.status.rawValue))</span></h2>
        <div class="scroll"><table class="checks"><thead><tr><th>status</th><th>check</th><th>kind</th><th>key figures</th><th>thresholds</th></tr></thead>
        <tbody>\(rows)</tbody></table></div></section>

        """
        html += linkComparison(checks)
        for check in checks { html += section(check, soaks: soaks, resume: resume, sample: sample, sections: sections, renderers: renderers) }
        return html
    }

    /// "Phases by link, URL and protocol" (`LinkProtocolComparison`), when probe checks ran over
    /// emulated links: the medians per link, URL and check, and each check's batch wall time.
    private static func linkComparison(_ checks: [CheckReport]) -> String {
        guard let comparison = LinkProtocolComparison(checks) else { return "" }
        let columns = comparison.phases.count + 2
        var rows = ""
        var link: String?, resource: String?
        for row in comparison.rows {
            if row.conditions != link {
                link = row.conditions
                resource = nil
                rows += "<tr><th colspan=\"\(columns)\" class=\"text\">link \(htmlEscape(row.conditions))</th></tr>\n"
            }
            if row.resource != resource {
                resource = row.resource
                rows += "<tr><th colspan=\"\(columns)\" class=\"text mono\">\(htmlEscape(row.resource))</th></tr>\n"
            }
            let failed = (row.failedTasks ?? 0) > 0 ? " <span class=\"warn\">(\(row.failedTasks ?? 0) failed)</span>" : ""
            let name = "<th class=\"text\"><a href=\"\(htmlEscape(href(row.check)))\">\(htmlEscape(row.check))</a> \(htmlEscape(row.protocolName))"
            if let figures = row.figures {
                rows += name + " \(figures.population)\(failed)</th><td>\(figures.count)</td>"
                    + figures.p50.map { "<td>\($0.map(formatMs) ?? "–")</td>" }.joined() + "</tr>\n"
            } else {
                rows += name + " <span class=\"warn\">all \(row.tasks ?? 0) failed</span></th><td>0</td>"
                    + String(repeating: "<td>–</td>", count: comparison.phases.count) + "</tr>\n"
            }
        }
        var batches = ""
        for batch in comparison.batches {
            batches += "<tr><th class=\"text\"><a href=\"\(htmlEscape(href(batch.check)))\">\(htmlEscape(batch.check))</a></th>"
                + "<td class=\"text\">\(htmlEscape(batch.conditions))</td><td>\(batch.tasks)</td><td>\(batch.failedTasks)</td>"
                + "<td>\(formatMs(batch.wallMs / 1000))</td><td>\(batch.omittedTasks > 0 ? "\(batch.omittedTasks) tasks of further URLs not counted" : "")</td></tr>\n"
        }
        let batchTable = batches.isEmpty ? "" : """
        <h3>Wall time of each check's fetches</h3>
        <p class="muted">From the first task's start to the last one's end: it counts the time tasks waited for a connection, which their phases do not.</p>
        <div class="scroll"><table><thead><tr><th>check</th><th>link</th><th>tasks</th><th>failed</th><th>wall (s)</th><th></th></tr></thead>
        <tbody>\(batches)</tbody></table></div>

        """
        return """
        <section><h2>Phases by link, URL and protocol (p50 ms)</h2>
        <p class="muted">Each check's own medians per URL (by its path: the same resource over each protocol), grouped by the emulated link it crossed.</p>
        <div class="scroll"><table>
        <thead><tr><th>check, protocol</th><th>n</th>\(comparison.phases.map { "<th>\(htmlEscape($0))</th>" }.joined())</tr></thead>
        <tbody>\(rows)</tbody></table></div>
        \(batchTable)</section>

        """
    }

    private static func section(_ check: CheckReport, soaks: [SoakReport], resume: ResumeResults, sample: [ProbeTask],
                               sections: [ReportSection], renderers: ReportSectionRenderers) -> String {
        let own = ResumeResults(trials: resume.trials.filter { $0.check == check.name },
                                verdicts: resume.verdicts.filter { $0.check == check.name })
        let ownSample = sample.filter { $0.check == check.name }
        var html = "<section class=\"check\" id=\"\(htmlEscape(anchor(check.name)))\"><h2>Check <code>\(htmlEscape(check.name))</code> "
            + "<span class=\"status \(htmlEscape(check.status.rawValue))\">\(htmlEscape(check.status.rawValue))</span></h2>\n"
        html += "<p class=\"muted\">\(htmlEscape(check.kind)) · started \(htmlEscape(check.startedAt.description))"
            + " · finished \(htmlEscape(check.finishedAt.description))</p>\n"
        if let link = check.link { html += LinkSection.render(link) }
        if let error = check.error {
            html += "<p class=\"warn\">Stopped by <code>\(htmlEscape(error.code.rawValue))</code>: \(htmlEscape(error.message))</p>\n"
        }
        html += HTMLReportRenderer.thresholdTable(check.thresholds)
        if let summary = check.summary {
            html += HTMLReportRenderer.findings(summary: summary, sample: ownSample, thresholds: check.thresholds,
                                                finishedAt: check.finishedAt)
            html += HTMLReportRenderer.requestTable(summary)
            if summary.transactions > 0 { html += HTMLReportRenderer.phaseTable(summary) + HTMLReportRenderer.protocolTable(summary) }
        }
        html += SoakSection.render(soaks.filter { $0.check == check.name }, link: check.link, parts: renderers.soakParts)
        html += ResumeSection.render(own)
        html += renderers.figuresHTML(sections, check: check.name)
        html += HTMLReportRenderer.waterfall(ownSample)
        return html + "</section>\n"
    }

    /// The id of a check's section (escaped by the caller).
    static func anchor(_ name: String) -> String { "check-" + name }

    /// The link to a check's section: its id percent-encoded (a browser decodes a fragment before it
    /// looks the id up), so spaces and markup in a name cannot break the URL.
    static func href(_ name: String) -> String {
        "#" + (anchor(name).addingPercentEncoding(withAllowedCharacters: fragmentSafe) ?? "check")
    }

    /// RFC 3986's unreserved characters: left as they are in a fragment.
    private static let fragmentSafe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    private static func cssClass(_ status: RunStatus) -> String { status == .passed ? "pass" : "fail" }
}
