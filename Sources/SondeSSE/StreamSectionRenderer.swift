import Foundation
import SondeCore
import SondeReport

/// report.json's `streams` (`StreamReport` items) in the HTML report and the Prometheus file:
/// a table per stream check (a row per stream: events, first event, gap and delivery-delay
/// percentiles, burst index, reconnects, lost and repeated ids), and `sonde_sse_*` gauges labelled
/// by `check` and `url` (the check's name, "" for a plain command; the URL as reported, redacted).
struct StreamSectionRenderer: ReportSectionRenderer {
    let section = "streams"

    /// The items as `StreamReport`s; one that does not decode is left out.
    private func reports(_ items: [[UInt8]]) -> [StreamReport] {
        let decoder = JSONDecoder()
        return items.compactMap { try? decoder.decode(StreamReport.self, from: Data($0)) }
    }

    func html(_ items: [[UInt8]]) -> String {
        let reports = reports(items)
        guard !reports.isEmpty else { return "" }
        var html = "<section id=\"streams\"><h2>Event streams (SSE)</h2>\n"
        for report in reports {
            let verdict = report.total.passed ? "passed" : "failed" + (report.total.failure.map { ": " + $0 } ?? "")
            html += "<h3>" + htmlEscape((report.check.map { $0 + " — " } ?? "") + report.url) + "</h3>\n"
            html += "<p>" + htmlEscape("\(report.config.streams) stream(s), \(report.total.events) events, \(report.total.reconnects) reconnects, "
                + "\(report.total.connections) connection(s) (at most \(report.total.maxStreamsPerConnection) streams on one); \(verdict)") + "</p>\n"
            html += "<div class=\"scroll\"><table><thead><tr><th>stream</th><th>events</th><th>comments</th><th>first event ms</th><th>gap p50</th><th>gap p95</th>"
                + "<th>gap max</th><th>delay p50</th><th>delay p95</th><th>burst index</th><th>bursts</th><th>reconnects</th>"
                + "<th>lost ids</th><th>repeated ids</th><th>last end</th></tr></thead><tbody>\n"
            for stream in report.streams {
                let cells = [String(stream.stream), String(stream.events), String(stream.comments), Self.ms(stream.firstEventMs),
                             Self.ms(stream.gapsMs?.p50), Self.ms(stream.gapsMs?.p95), Self.ms(stream.gapsMs?.max),
                             Self.ms(stream.deliveryDelayMs?.p50), Self.ms(stream.deliveryDelayMs?.p95),
                             stream.burstIndex.map { String(format: "%.2f", $0) } ?? "–", String(stream.bursts), String(stream.reconnects),
                             String(stream.ids.lost), String(stream.ids.repeated), stream.connections.last?.endCause?.rawValue ?? "–"]
                html += "<tr>" + cells.map { "<td>" + htmlEscape($0) + "</td>" }.joined() + "</tr>\n"
            }
            html += "</tbody></table></div>\n"
        }
        return html + "</section>\n"
    }

    func prometheus(_ items: [[UInt8]]) -> PrometheusFamilies {
        let reports = reports(items)
        guard !reports.isEmpty else { return PrometheusFamilies() }
        func labels(_ report: StreamReport) -> [(String, String)] { [("check", report.check ?? ""), ("url", report.url)] }
        func gauge(_ name: String, _ help: String, _ value: (StreamReport) -> Double?) -> (String, String, [PrometheusFamilies.Sample]) {
            (name, help, reports.compactMap { report in value(report).map { (labels(report), $0) } })
        }
        var families = PrometheusFamilies()
        for (name, help, samples) in [
            gauge("sonde_sse_success", "Whether every stream of the check ended as planned (1) or not (0).", { $0.total.passed ? 1 : 0 }),
            gauge("sonde_sse_events", "Events received over every stream of the check.", { Double($0.total.events) }),
            gauge("sonde_sse_reconnects", "Reconnects over every stream of the check.", { Double($0.total.reconnects) }),
            gauge("sonde_sse_lost_ids", "Event ids lost (skipped) over every stream of the check.", { Double($0.total.lostIDs) }),
            gauge("sonde_sse_repeated_ids", "Event ids received again over every stream of the check.", { Double($0.total.repeatedIDs) }),
            gauge("sonde_sse_burst_index_ratio", "Share of the eligible events that came bunched (0 to 1).", { $0.total.burstIndex }),
            gauge("sonde_sse_first_event_p95_seconds", "The 95th percentile of the streams' time to their first event.", { $0.total.firstEventMs.map { $0.p95 / 1000 } }),
            gauge("sonde_sse_gap_p95_seconds", "The 95th percentile of the gaps between events.", { $0.total.gapsMs.map { $0.p95 / 1000 } }),
            gauge("sonde_sse_delivery_delay_p95_seconds", "The 95th percentile of the delivery delay against the events' send stamps.",
                  { $0.total.deliveryDelayMs.map { $0.p95 / 1000 } }),
        ] where !samples.isEmpty {
            families.add(name, "gauge", help, samples.filter { $0.value.isFinite })
        }
        return families
    }

    /// A case per stream (`sonde.sse`, named `<url> stream N`): failed when the check's streams
    /// failed (the totals' failure) and this stream's last connection ended badly, or the check
    /// failed without saying which stream.
    func junitCases(_ items: [[UInt8]]) -> [JUnitSectionCase] {
        reports(items).flatMap { report in
            report.streams.map { stream in
                let last = stream.connections.last
                let bad = last?.endCause == .badResponse || last?.endCause == .oversized || (stream.events == 0 && last?.error != nil)
                var failure: String?
                if !report.total.passed && (bad || report.streams.count == 1) {
                    failure = last?.error.map { "\($0.code): \($0.message)" } ?? report.total.failure ?? "the stream failed"
                }
                let output = "\(stream.events) events, \(stream.comments) comments, \(stream.reconnects) reconnects, first event "
                    + Self.ms(stream.firstEventMs) + " ms, gap p95 " + Self.ms(stream.gapsMs?.p95) + " ms, burst index "
                    + (stream.burstIndex.map { String(format: "%.2f", $0) } ?? "–") + ", lost ids \(stream.ids.lost), repeated ids \(stream.ids.repeated)"
                return JUnitSectionCase(check: report.check, classname: "sonde.sse", name: "\(report.url) stream \(stream.stream)",
                                        failure: failure, output: output)
            }
        }
    }

    /// Milliseconds with one decimal, or a dash.
    private static func ms(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.1f", value)
    }
}
