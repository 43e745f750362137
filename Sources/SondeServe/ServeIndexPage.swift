import Foundation
import SondeReport
import SondeSuite

/// `sonde serve`'s `/`: every scheduled check, its schedule and its latest run (linked to that
/// run's report under `/runs/`). Every string escaped; no script; the same CSP as report.html.
enum ServeIndexPage {
    static func render(runs: [CheckRunRecord], config: ServeConfig) -> String {
        let latest = Dictionary(runs.map { ($0.check, $0) }, uniquingKeysWith: { first, _ in first })
        var rows = ""
        for scheduled in config.checks {
            let name = scheduled.check.name
            let run = latest[name]
            let result = run?.result ?? "not run yet"
            let when = run.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0.finishedAt)) } ?? ""
            let report = run?.folder.map { folder -> String in
                let id = (folder as NSString).lastPathComponent
                return "<a href=\"runs/\(htmlEscape(id))/report.html\">\(htmlEscape(id))</a>"
            } ?? ""
            rows += "<tr><td>\(htmlEscape(name))</td><td>\(htmlEscape(scheduled.check.spec.kind.name))</td>"
                + "<td>\(htmlEscape(DurationValue(seconds: scheduled.every).description))</td>"
                + "<td class=\"\(result == "passed" ? "ok" : run == nil ? "" : "bad")\">\(htmlEscape(result))</td>"
                + "<td>\(htmlEscape(when))</td><td>\(report)</td></tr>\n"
        }
        let vantage = config.vantage.map { " — " + htmlEscape($0) } ?? ""
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
        <title>sonde serve\(vantage)</title>
        <style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}.ok{color:#1a7f37}.bad{color:#cf222e}</style>
        </head><body>
        <h1>sonde serve\(vantage)</h1>
        <p><a href="metrics">/metrics</a> · /probe?target=…&amp;module=… for targets of the allow list (\(config.allow.patterns.count) patterns)</p>
        <table><thead><tr><th>check</th><th>kind</th><th>every</th><th>latest</th><th>ended</th><th>report</th></tr></thead>
        <tbody>
        \(rows)</tbody></table>
        </body></html>

        """
    }
}
