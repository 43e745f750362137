import Foundation
import SondeCore

/// An inline SVG of per-phase latency distributions: one row per phase, cold (new connection)
/// above warm (reused), each drawn on one shared logarithmic millisecond axis as a line from min
/// to max, a box from p50 to p95 and a tick at p99. Self-contained (no script, no fetch); colours
/// come from the page's CSS variables so light and dark themes both read.
///
/// Invariant: every value is clamped into the axis range, so a 0 ms minimum or a one-hour maximum
/// stays on the chart; the numbers themselves are in the table beside it.
enum DistributionChart {
    struct Row {
        var label: String
        var cold: DistributionSummary?
        var warm: DistributionSummary?
    }

    static func render(_ rows: [Row]) -> String {
        let rows = rows.filter { $0.cold != nil || $0.warm != nil }
        guard !rows.isEmpty else { return "" }
        let values = rows.flatMap { [$0.cold, $0.warm].compactMap { $0 } }.flatMap { [$0.min, $0.max] }
        // Axis: powers of ten around the data, at least 0.01 … 10 ms.
        let low = pow10(floor: max(0.001, values.filter { $0 > 0 }.min() ?? 0.01), atMost: 0.01)
        let high = pow10(ceil: max(values.max() ?? 1, low * 10), atLeast: 10)
        let labelWidth = 70.0, width = 640.0, rowHeight = 30.0, top = 10.0
        let plotWidth = width - labelWidth - 30
        let height = top + Double(rows.count) * rowHeight + 30
        func x(_ ms: Double) -> Double {
            let clamped = min(max(ms, low), high)
            return labelWidth + (log10(clamped) - log10(low)) / (log10(high) - log10(low)) * plotWidth
        }
        var svg = #"<svg class="chart" viewBox="0 0 \#(n(width)) \#(n(height))" role="img" aria-label="phase distributions, logarithmic milliseconds" xmlns="http://www.w3.org/2000/svg">"#
        // Grid and axis labels at each power of ten.
        var decade = low
        while decade <= high * 1.0001 {
            let gx = x(decade)
            svg += #"<line x1="\#(n(gx))" y1="\#(n(top))" x2="\#(n(gx))" y2="\#(n(height - 25))" class="grid"/>"#
            svg += #"<text x="\#(n(gx))" y="\#(n(height - 10))" text-anchor="middle" class="axis">\#(axisLabel(decade))</text>"#
            decade *= 10
        }
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            svg += #"<text x="0" y="\#(n(y + 18))" class="axis">\#(htmlEscape(row.label))</text>"#
            for (offset, distribution, kind) in [(6.0, row.cold, "cold"), (18.0, row.warm, "warm")] {
                guard let d = distribution else { continue }
                let cy = y + offset
                let title = "\(row.label) \(kind): n \(d.count), min \(formatMs(d.min)), p50 \(formatMs(d.p50)), "
                    + "p95 \(formatMs(d.p95)), p99 \(formatMs(d.p99)), max \(formatMs(d.max)) ms"
                svg += #"<g class="\#(kind)"><title>\#(htmlEscape(title))</title>"#
                svg += #"<line x1="\#(n(x(d.min)))" y1="\#(n(cy))" x2="\#(n(x(d.max)))" y2="\#(n(cy))" class="whisker"/>"#
                svg += #"<rect x="\#(n(x(d.p50)))" y="\#(n(cy - 4))" width="\#(n(max(1.5, x(d.p95) - x(d.p50))))" height="8" class="box"/>"#
                svg += #"<line x1="\#(n(x(d.p99)))" y1="\#(n(cy - 5))" x2="\#(n(x(d.p99)))" y2="\#(n(cy + 5))" class="p99"/></g>"#
            }
        }
        return svg + "</svg>"
    }

    private static func pow10(floor value: Double, atMost cap: Double) -> Double {
        var result = 1.0
        while result > value { result /= 10 }
        while result * 10 <= value { result *= 10 }
        return min(result, cap)
    }

    private static func pow10(ceil value: Double, atLeast floor: Double) -> Double {
        var result = 1.0
        while result < value { result *= 10 }
        while result / 10 >= value { result /= 10 }
        return max(result, floor)
    }

    private static func axisLabel(_ ms: Double) -> String {
        if ms >= 1000 { return "\(Int(saturating: (ms / 1000).rounded())) s" }
        if ms >= 1 { return "\(Int(saturating: ms.rounded())) ms" }
        return "\(formatMs(ms)) ms"
    }

    private static func n(_ value: Double) -> String { String(Double(Int(saturating: (value * 10).rounded())) / 10) }
}
