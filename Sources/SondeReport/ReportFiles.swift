import Foundation
import SondeCore

/// What a finished (or rebuilt) run hands to the renderers.
public struct RunOutcome: Sendable {
    public var tool: ToolInfo
    public var run: RunInfo
    public var summary: ProbeSummary
    public var thresholds: [ThresholdResult]
    /// Tasks the HTML draws (bounded; see `ProbeRunRecorder.sampleLimit`).
    public var sample: [ProbeTask]

    public init(tool: ToolInfo, run: RunInfo, summary: ProbeSummary, thresholds: [ThresholdResult], sample: [ProbeTask]) {
        self.tool = tool
        self.run = run
        self.summary = summary
        self.thresholds = thresholds
        self.sample = sample
    }
}

/// Writes every report file of a run folder from its journal in one pass: `report.json` (task
/// lines copied byte for byte), `report.har` and `junit.xml` (tasks decoded once each), then
/// `report.html` from the sample, and the Prometheus file when asked for. Each file appears
/// atomically (written beside, then renamed), so a reader never sees half a report.
///
/// A journal line that does not decode (a run killed mid-write) is skipped in every format and
/// counted in `skippedLines`.
public enum ReportFiles {
    @discardableResult
    public static func write(_ outcome: RunOutcome, folder: RunFolder, prometheusPath: String? = nil) throws(TaskError) -> Int {
        let json = try AtomicFile(path: folder.reportJSONPath)
        let har = try AtomicFile(path: folder.reportHARPath)
        let junit = try AtomicFile(path: folder.junitPath)
        var jsonBuffer = try ReportJSONWriter.header(tool: outcome.tool, run: outcome.run)
        var harWriter = HARWriter(tool: outcome.tool, run: outcome.run)
        var harBuffer: [UInt8] = []
        var junitWriter = JUnitWriter(run: outcome.run, summary: outcome.summary, thresholds: outcome.thresholds)
        var junitBuffer: [UInt8] = []
        let decoder = JSONDecoder()
        var first = true
        var skipped = 0
        let chunk = 1 << 20

        try JournalReader.forEachLine(path: folder.journalPath) { (line: ArraySlice<UInt8>) throws(TaskError) in
            guard let taskJSON = ReportJSONWriter.taskJSON(inJournalLine: line) else {
                if !line.starts(with: Array(#"{"type":"#.utf8)) { skipped += 1 }
                return
            }
            guard let task = try? decoder.decode(ProbeTask.self, from: Data(taskJSON)) else {
                skipped += 1
                return
            }
            if !first { jsonBuffer.append(UInt8(ascii: ",")) }
            first = false
            jsonBuffer.append(UInt8(ascii: "\n"))
            jsonBuffer += taskJSON
            harBuffer += harWriter.add(task)
            junitBuffer += junitWriter.add(task)
            if jsonBuffer.count > chunk { try json.write(jsonBuffer); jsonBuffer.removeAll(keepingCapacity: true) }
            if harBuffer.count > chunk { try har.write(harBuffer); harBuffer.removeAll(keepingCapacity: true) }
            if junitBuffer.count > chunk { try junit.write(junitBuffer); junitBuffer.removeAll(keepingCapacity: true) }
        }
        try json.write(jsonBuffer + ReportJSONWriter.trailer(summary: outcome.summary, thresholds: outcome.thresholds))
        try har.write(harBuffer + harWriter.finish())
        try junit.write(junitBuffer + junitWriter.finish())
        try json.commit()
        try har.commit()
        try junit.commit()
        let html = HTMLReportRenderer.render(tool: outcome.tool, run: outcome.run, summary: outcome.summary,
                                             thresholds: outcome.thresholds, sample: outcome.sample)
        try writeFileAtomically(Array(html.utf8), to: folder.reportHTMLPath)
        if let prometheusPath {
            let text = PrometheusWriter.render(run: outcome.run, summary: outcome.summary, thresholds: outcome.thresholds)
            try writeFileAtomically(Array(text.utf8), to: prometheusPath)
        }
        return skipped
    }
}
