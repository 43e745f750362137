import Foundation
import Testing

/// The HTML report's waterfall and charts as a person sees them (issue 39 #22), measured in headless
/// Chromium at a 1,400 px window (`Fixtures/measure_html.py`): waterfall bars to scale (116 ms and
/// 156 ms differ), the timeline column with most of the page, the soak chart's legend and units,
/// the history's charts across the page with dated time labels.
@Suite(.serialized) struct ChartScaleCLITests {
    private func folder(_ output: String) throws -> String {
        output + "/" + (try #require(try Harness.entries(of: output).filter { !$0.hasPrefix("history") }.sorted().first))
    }

    /// 1.5 s, 116 ms and 156 ms transactions (the last two on the connection the first opened):
    /// each bar's width is its share of the run on one scale, so the widths' ratios are the
    /// durations' (within a pixel and 3 %) and the 40 ms between 116 and 156 show; the timeline
    /// column takes more than half of the page.
    @Test func waterfallBarsAreToScaleAndTheTimelineHasMostOfThePage() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", target.http + "/delay/1500", target.http + "/delay/116", target.http + "/delay/156",
                                        "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let facts = try HTMLLayoutCLITests.measure(try folder(output) + "/report.html")
        HTMLLayoutCLITests.expectFits(facts, "waterfall")
        let bars = try #require(facts["bars"] as? [[String: Any]])
        #expect(bars.count == 3)
        func bar(_ path: String) -> (width: Double, ms: Double)? {
            guard let bar = bars.first(where: { ($0["request"] as? String)?.hasSuffix(path) == true }),
                  let width = bar["barWidth"] as? Double, let ms = Double((bar["total"] as? String ?? "").replacingOccurrences(of: ",", with: ""))
            else { return nil }
            return (width, ms)
        }
        let short = try #require(bar("/delay/116"), "\(bars)"), middle = try #require(bar("/delay/156")), long = try #require(bar("/delay/1500"))
        for (one, other) in [(short, middle), (middle, long), (short, long)] {
            let drawn = other.width / one.width, took = other.ms / one.ms
            #expect(abs(drawn - took) / took < 0.03 || abs(other.width - one.width * took) <= 1,
                    "bars \(one.width) px and \(other.width) px for \(one.ms) ms and \(other.ms) ms")
        }
        let pixelsPerMs = long.width / long.ms
        // The 40 ms between the two short delays shows as width (what the server's delays become
        // under load varies: the difference measured, whatever it is, is what is drawn).
        let gap = (middle.ms - short.ms) * pixelsPerMs
        #expect(abs((middle.width - short.width) - gap) <= max(1.5, 0.2 * abs(gap)),
                "\(short.ms) ms and \(middle.ms) ms drawn \(short.width) px and \(middle.width) px (\(pixelsPerMs) px per ms)")
        for bar in bars {
            #expect((bar["right"] as? Double ?? .infinity) - (bar["cellRight"] as? Double ?? 0) <= 1, "\(bar)")
        }
        let timeline = try #require((facts["timeline"] as? [[String: Any]])?.first)
        let share = (timeline["column"] as? Double ?? 0) / (timeline["section"] as? Double ?? .infinity)
        #expect(share > 0.5, "the timeline column is \(Int(share * 100)) % of the page: \(timeline)")
    }

    /// A soak of three connections: its RTT chart has a legend item per connection in that
    /// connection's colour, and both axes name their units.
    @Test func theSoakChartHasALegendAndUnits() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo", "--duration", "2s", "--ping-interval", "200ms", "--connections", "3",
                                        "--output-dir", output], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let facts = try HTMLLayoutCLITests.measure(try folder(output) + "/report.html")
        let charts = facts["charts"] as? [[String: Any]] ?? []
        let rtt = try #require(charts.first { ($0["unitLabels"] as? [String] ?? []).contains("ms") }, "\(charts)")
        let units = rtt["unitLabels"] as? [String] ?? []
        #expect(units.contains { $0.contains("seconds") }, "\(units)")
        let legend = rtt["legend"] as? [[String: Any]] ?? []
        #expect(legend.map { $0["text"] as? String ?? "" } == ["connection 0", "connection 1", "connection 2"], "\(legend)")
        #expect(Set(legend.compactMap { $0["color"] as? String }).count == 3, "\(legend)")
    }

    /// A history of four runs: each trend chart spans its section, and its time axis has dated labels.
    @Test func historyChartsSpanThePageWithDatedLabels() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let database = output + "/history.sqlite"
        for _ in 0..<4 {
            let run = try Harness.sonde(["probe", target.http + "/bytes/10", "--count", "2", "--output-dir", output, "--history", database])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let page = output + "/history.html"
        let written = try Harness.sonde(["history", "--history", database, "--html", page])
        #expect(written.status == 0, "\(written.stderr)")
        let facts = try HTMLLayoutCLITests.measure(page)
        HTMLLayoutCLITests.expectFits(facts, "history")
        let charts = (facts["charts"] as? [[String: Any]] ?? []).filter { ($0["classes"] as? String ?? "").contains("trend") }
        #expect(!charts.isEmpty)
        for chart in charts {
            let width = chart["width"] as? Double ?? 0, section = chart["section"] as? Double ?? .infinity
            #expect(width >= section * 0.95, "a trend chart \(width) px wide in a \(section) px section")
            let labels = chart["timeLabels"] as? [String] ?? []
            #expect(labels.count >= 3 && labels.allSatisfy { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}/) != nil }, "\(labels)")
        }
    }
}
