import Foundation
import SondeCore

/// The HTML section of a resume run: the verdict table (check by check, with the headers seen),
/// then a table of trials with, per trial, a bar of bytes on disk over time and its
/// interruptions marked (a restart from zero shows as the line falling back). Bounded: at most
/// `trialRows` trials are drawn (failures first). Every string is escaped.
enum ResumeSection {
    static let trialRows = 200
    private static let kindColors: [InterruptionKind: String] = [
        .clientAbort: "#2563eb", .connectionDrop: "#ea580c", .processKill: "#dc2626", .unplanned: "#9333ea",
    ]

    static func render(_ resume: ResumeResults) -> String {
        guard !resume.isEmpty else { return "" }
        var html = ""
        for verdict in resume.verdicts { html += verdictTable(verdict) }
        if !resume.trials.isEmpty { html += trialTable(resume.trials) }
        return html
    }

    private static func verdictTable(_ verdict: ResumeVerdict) -> String {
        var html = "<section><h2>Resumability <code>\(htmlEscape(verdict.url))</code></h2>\n"
        html += "<p class=\"status \(verdict.resumable ? "passed" : "failed")\">\(verdict.resumable ? "resumable" : "not resumable")</p>\n"
        html += "<p>What URLSession would do: \(htmlEscape(verdict.urlSession)).</p>\n"
        // The evidence (headers, byte counts, a server's answer) wraps in its own column, inside
        // the page: the table scrolls only when one word is wider than the page.
        html += "<div class=\"scroll\"><table class=\"verdict\"><thead><tr><th>check</th><th>result</th><th class=\"text\">evidence</th></tr></thead><tbody>\n"
        for check in verdict.checks {
            let result = check.passed ? "passed" : check.required ? "failed" : "no (informational)"
            html += "<tr><td class=\"mono\">\(htmlEscape(check.name))</td>"
                + "<td class=\"\(check.passed ? "pass" : check.required ? "fail" : "muted")\">\(htmlEscape(result))</td>"
                + "<td class=\"text evidence\">\(htmlEscape(check.evidence))</td></tr>\n"
        }
        return html + "</tbody></table></div></section>\n"
    }

    private static func trialTable(_ trials: [ResumeTrial]) -> String {
        let intact = trials.filter(\.intact).count
        let wasted = trials.reduce(Int64(0)) { $0 + $1.bytesWasted }
        var html = "<section><h2>Resume trials</h2>\n"
        html += "<p class=\"status \(intact == trials.count ? "passed" : "failed")\">\(intact)/\(trials.count) intact</p>\n"
        html += "<p>\(trials.reduce(0) { $0 + $1.interruptions.count }) interruptions; \(formatBytes(wasted)) received and thrown away; "
            + "\(trials.reduce(0) { $0 + $1.retries.count }) retries. Marks: "
            + InterruptionKind.allCases.map { "<span style=\"color:\(kindColors[$0]!)\">▼ \(htmlEscape($0.rawValue))</span>" }.joined(separator: " · ")
            + "</p>\n"
        html += "<div class=\"scroll\"><table><thead><tr><th>trial</th><th>result</th><th>bytes over time</th><th class=\"text\">interruptions → answered with</th>"
            + "<th>wasted</th><th>duration</th><th>SHA-256</th></tr></thead><tbody>\n"
        let ordered = (trials.filter { !$0.intact } + trials.filter(\.intact)).prefix(trialRows)
        for trial in ordered {
            let result = trial.intact ? "intact" : trial.sha256 == nil ? "unfinished" : "CORRUPT"
            // An error (a corrupt file's two digests, a server's message) wraps in its cell.
            var cells = "<td>\(trial.trial)</td><td class=\"\(trial.intact ? "pass" : "fail")\(trial.error == nil ? "" : " wrap")\">\(result)"
            if let error = trial.error { cells += "<br><span class=\"muted\">\(htmlEscape(error.code.rawValue)): \(htmlEscape(error.message))</span>" }
            cells += "</td><td>\(bar(trial))</td><td class=\"text evidence\">"
            cells += trial.interruptions.map { item in
                "\(htmlEscape(item.kind.rawValue)) @\(item.atByte) → \(htmlEscape(item.answeredWith ?? "—"))"
                    + (item.resumeLatencyMs.map { " in \(formatMs($0)) ms" } ?? "")
            }.joined(separator: "<br>")
            if !trial.retries.isEmpty {
                cells += "<br>retries: " + trial.retries.map { htmlEscape("\($0.status.map(String.init) ?? $0.reason) +\(formatMs($0.delayMs)) ms") }
                    .joined(separator: ", ")
            }
            cells += "</td><td>\(formatBytes(trial.bytesWasted))</td><td>\(formatMs(trial.durationMs)) ms</td>"
            cells += "<td class=\"mono\">\(htmlEscape(String((trial.sha256 ?? "—").prefix(16))))</td>"
            html += "<tr>\(cells)</tr>\n"
        }
        if trials.count > trialRows { html += "<tr><td colspan=\"7\" class=\"muted\">… \(trials.count - trialRows) more in report.json</td></tr>\n" }
        return html + "</tbody></table></div></section>\n"
    }

    /// An inline SVG polyline of bytes on disk over time, with a mark per interruption.
    private static func bar(_ trial: ResumeTrial) -> String {
        let width = 240.0, height = 36.0
        let maxTime = max(trial.progress.map { $0[0] }.max() ?? 0, 1)
        let maxBytes = max(Double(trial.length ?? 0), trial.progress.map { $0[1] }.max() ?? 0, 1)
        func x(_ ms: Double) -> Double { (ms / maxTime * width * 1000).rounded() / 1000 }
        func y(_ bytes: Double) -> Double { ((height - 2 - bytes / maxBytes * (height - 6)) * 1000).rounded() / 1000 }
        let points = trial.progress.map { "\(x($0[0])),\(y($0[1]))" }.joined(separator: " ")
        var svg = "<svg width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
            + "aria-label=\"bytes over time\"><polyline fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\" points=\"\(points)\"/>"
        // An interruption is drawn where the line first reaches its byte.
        for item in trial.interruptions {
            guard let at = trial.progress.first(where: { $0[1] == Double(item.atByte) })
                    ?? trial.progress.first(where: { $0[1] >= Double(item.atByte) }) else { continue }
            svg += "<text x=\"\(x(at[0]))\" y=\"8\" font-size=\"8\" text-anchor=\"middle\" fill=\"\(kindColors[item.kind] ?? "#000")\">▼"
                + "<title>\(htmlEscape(item.kind.rawValue)) at byte \(item.atByte)</title></text>"
        }
        return svg + "</svg>"
    }

    private static func formatBytes(_ bytes: Int64) -> String {
        if bytes >= 1 << 30 { return String(format: "%.2f GiB", Double(bytes) / Double(1 << 30)) }
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        if bytes >= 1 << 10 { return String(format: "%.1f KiB", Double(bytes) / Double(1 << 10)) }
        return "\(bytes) B"
    }
}
