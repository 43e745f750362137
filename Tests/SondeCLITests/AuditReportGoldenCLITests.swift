import Foundation
import Testing

/// `sonde report --force` of audit runs that an earlier sonde wrote (Fixtures/audit-report-golden:
/// a plain `sonde audit` of two URLs, one with a redacted query, and a suite of two audit checks,
/// one with an unreachable URL, at `fail-on: warn`) gives, byte for byte, the files and terminal
/// text that sonde wrote from those journals when the audit's model and report lines lived in
/// SondeCore and SondeReport (made with that build, commit 1af029d): report.json (`audits` in its
/// place), report.html, junit.xml, report.har and the Prometheus file. The journals hold the
/// audit's own lines (`{"audit":…,"type":"audit"}`).
@Suite struct AuditReportGoldenCLITests {
    static let fixtures = Harness.root + "/Tests/SondeCLITests/Fixtures/audit-report-golden"

    @Test(arguments: ["plain", "suite"])
    func anOldAuditJournalRendersToTheSameBytes(_ name: String) throws {
        let expected = Self.fixtures + "/" + name
        let directory = Harness.temporaryDirectory()
        let folder = directory + "/run"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: expected + "/journal.jsonl", toPath: folder + "/journal.jsonl")
        let result = try Harness.sonde(["report", "--force", "--prom", directory + "/run.prom", folder])
        #expect(result.status == 1, "the runs failed: \(result.stdout)\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        for file in ["report.json", "report.html", "junit.xml", "report.har"] {
            let written = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            let held = try Data(contentsOf: URL(fileURLWithPath: expected + "/" + file))
            #expect(written == held, "\(name)/\(file) differs from the one the earlier sonde wrote")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/run.prom")) == Data(contentsOf: URL(fileURLWithPath: expected + "/run.prom")))
        let terminal = result.stdout.components(separatedBy: "\nfiles:").first.map { $0 + "\n" } ?? ""
        #expect(terminal == (try String(contentsOfFile: expected + "/stdout.txt", encoding: .utf8)), "\(result.stdout)")
    }
}
