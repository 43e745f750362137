import SondeReport

/// An inline SVG line chart of one or two figures of a check over its runs (`HistorySeriesPoint`,
/// placed by time, oldest left), each point a link to its run's report. No script, no fetch;
/// colours from the page's CSS. Points of runs that did not pass are drawn in the failure colour.
/// The chart spans the page's width (`svg.trend`); the time axis has `timeTicks` dated labels
/// (`HistoryFormat.minute`, UTC) at even times from the first run to the last.
///
/// Invariant: every coordinate is finite and inside the view box: values are clamped to 0 …
/// the axis top, and a series with no value draws nothing.
enum TrendChart {
    static let width = 1120.0, height = 170.0, left = 56.0, right = 60.0, top = 10.0, bottom = 22.0
    /// Labels on the time axis (one when all runs are at one instant).
    static let timeTicks = 5

    /// - Parameters:
    ///   - links: per point, the href of its run's report, escaped for an attribute.
    ///   - minutes: per point, its time as the page shows it (`HistoryFormat.minute`).
    static func render(_ metrics: [HistoryMetric], points: [HistorySeriesPoint], links: [String], minutes: [String]) -> String {
        let values = points.flatMap { point in metrics.compactMap { point.values[$0] } }.filter(\.isFinite)
        guard !values.isEmpty, links.count == points.count, minutes.count == points.count else { return "" }
        let unit = metrics[0].unit
        var ceiling = max(values.max() ?? 0, 0)
        if unit == .fraction { ceiling = max(ceiling, 0.01) }
        ceiling = ceiling > 0 ? Swift.min(ceiling * 1.1, Double.greatestFiniteMagnitude) : 1
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        // Time runs left to right; in floating point, as the database's times may be anything.
        let first = Double(points.first?.startedAt ?? 0), span = Double(points.last?.startedAt ?? 0) - first
        func x(_ index: Int) -> Double {
            guard span > 0 else { return left + plotWidth / 2 }
            return left + min(max((Double(points[index].startedAt) - first) / span, 0), 1) * plotWidth
        }
        func y(_ value: Double) -> Double { top + plotHeight - min(max(value, 0), ceiling) / ceiling * plotHeight }
        let label = metrics.map(\.label).joined(separator: ", ")
        var svg = #"<svg class="chart trend" viewBox="0 0 \#(n(width)) \#(n(height))" role="img" aria-label="\#(htmlEscape(label)) per run" xmlns="http://www.w3.org/2000/svg">"#
        for fraction in [0.0, 0.5, 1.0] {
            let value = ceiling / 1.1 * fraction
            svg += #"<line x1="\#(n(left))" y1="\#(n(y(value)))" x2="\#(n(width - right))" y2="\#(n(y(value)))" class="grid"/>"#
            svg += #"<text x="\#(n(left - 4))" y="\#(n(y(value) + 4))" text-anchor="end" class="axis">\#(htmlEscape(metrics[0].format(value)))</text>"#
        }
        // Dated ticks at even times (the middle only when the runs share one instant).
        let ticks = span > 0 ? (0..<timeTicks).map { Double($0) / Double(timeTicks - 1) } : [0.5]
        for fraction in ticks {
            let tickX = left + fraction * plotWidth
            let micros = first + fraction * span
            let label = micros.isFinite && abs(micros) < 9e15 ? HistoryFormat.minute(Int64(micros)) : ""
            svg += #"<line x1="\#(n(tickX))" y1="\#(n(height - bottom))" x2="\#(n(tickX))" y2="\#(n(height - bottom + 4))" class="grid"/>"#
            svg += #"<text x="\#(n(tickX))" y="\#(n(height - 6))" text-anchor="middle" class="axis time">\#(htmlEscape(label))</text>"#
        }
        for (series, metric) in metrics.enumerated() {
            let drawn = points.indices.compactMap { index in points[index].values[metric].map { (index, $0) } }
            guard !drawn.isEmpty else { continue }
            let line = drawn.map { "\(n(x($0.0))),\(n(y($0.1)))" }.joined(separator: " ")
            svg += #"<g class="series s\#(series)"><polyline points="\#(line)" class="line"/>"#
            for (index, value) in drawn {
                let point = points[index]
                let runs = point.runs == 1 ? "run \(point.runId)" : "\(point.runs) runs to \(point.runId) (mean)"
                let title = "\(metric.label) \(metric.format(value)) · \(runs) · \(minutes[index]) · \(point.status)"
                svg += #"<a href="\#(links[index])"><circle cx="\#(n(x(index)))" cy="\#(n(y(value)))" r="2.5" class="\#(point.notPassed > 0 ? "dot bad" : "dot")"><title>\#(htmlEscape(title))</title></circle></a>"#
            }
            svg += "</g>"
        }
        return svg + "</svg>"
    }

    /// One decimal, never a trap (values are clamped and finite here).
    private static func n(_ value: Double) -> String { String((value * 10).rounded() / 10) }
}
