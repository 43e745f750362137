import Foundation
import Testing
import SondeCore
@testable import SondeReport

/// A check kind declared outside SondeReport (here, in the tests) judges its checks through its
/// section renderer's hooks: an item its `failed` says failed fails its check and the run, as the
/// run ends and when the run is rebuilt from its journal without an end line; its `checkFigures`
/// show on the check's line. A renderer without those hooks leaves its checks passed.
@Suite struct SectionVerdictTests {
    struct Toy: Codable {
        var check: String?
        var ok: Bool
    }

    /// Judges `toys`: an item fails when it is not `ok`.
    struct ToyRenderer: ReportSectionRenderer {
        let section = "toys"
        func html(_ items: [[UInt8]]) -> String { "" }
        func prometheus(_ items: [[UInt8]]) -> PrometheusFamilies { PrometheusFamilies() }
        func junitCases(_ items: [[UInt8]]) -> [JUnitSectionCase] { [] }
        func failed(_ item: [UInt8]) -> Bool { (try? JSONDecoder().decode(Toy.self, from: Data(item)))?.ok == false }
        func checkFigures(_ items: [[UInt8]]) -> [String] { ["\(items.count) toy\(items.count == 1 ? "" : "s")"] }
    }

    /// The same section, without the verdict hooks.
    struct SilentRenderer: ReportSectionRenderer {
        let section = "toys"
        func html(_ items: [[UInt8]]) -> String { "" }
        func prometheus(_ items: [[UInt8]]) -> PrometheusFamilies { PrometheusFamilies() }
        func junitCases(_ items: [[UInt8]]) -> [JUnitSectionCase] { [] }
    }

    /// Checks "bad" (a failed toy) and "good" (a good one), recorded with `renderer`.
    static func record(_ renderer: any ReportSectionRenderer, end: Bool = true) throws -> (directory: String, folder: RunFolder, outcome: RunOutcome?) {
        let directory = NSTemporaryDirectory() + "sonde-toys-\(UUID().uuidString)"
        let folder = try RunFolder(outputDirectory: directory, runID: "run")
        let run = RunInfo(id: "run", command: "run", arguments: [], startedAt: .now(), status: .error, insecure: false, redacted: true)
        let recorder = try RunRecorder(folder: folder, tool: ToolInfo(libcurl: "x", features: []), run: run, checkKinds: ["toy"],
                                       renderers: ReportSectionRenderers([renderer]))
        for (name, ok) in [("bad", false), ("good", true)] {
            try recorder.beginCheck(name: name, kind: "toy", thresholds: [])
            try recorder.record(section: "toys", item: Toy(check: name, ok: ok))
            try recorder.endCheck(error: nil, interrupted: false)
        }
        guard end else { return (directory, folder, nil) }
        return (directory, folder, try recorder.finish(status: .passed))
    }

    @Test func aFailedItemFailsItsCheckAndTheRun() throws {
        let (directory, folder, ended) = try Self.record(ToyRenderer())
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try #require(ended)
        #expect(outcome.checks.map(\.status) == [.failed, .passed] && outcome.run.status == .failed)
        let lines = TerminalRenderer(useColor: false).render(checks: outcome.checks, sections: outcome.sections, renderers: outcome.renderers)
        #expect(lines.contains("bad (toy): 1 toy") && lines.contains("good (toy): 1 toy"), "\(lines)")
        let html = try String(contentsOfFile: folder.reportHTMLPath, encoding: .utf8)
        #expect(html.contains("<td class=\"text\">1 toy</td>"), "the verdict table's key figures")
    }

    @Test func aRunRebuiltWithoutItsEndLineJudgesTheChecksTheSame() throws {
        let (directory, folder, _) = try Self.record(ToyRenderer(), end: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rebuilt = try ReportFiles.render(folder: folder, renderers: ReportSectionRenderers([ToyRenderer()]))
        #expect(rebuilt.checks.map(\.status) == [.failed, .passed])
    }

    @Test func withoutTheHookTheItemsJudgeNothing() throws {
        let (directory, _, ended) = try Self.record(SilentRenderer())
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try #require(ended)
        #expect(outcome.checks.map(\.status) == [.passed, .passed] && outcome.run.status == .passed)
    }
}
