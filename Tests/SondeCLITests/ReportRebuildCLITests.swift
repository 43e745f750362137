import Foundation
import Testing

/// `sonde report` on run folders whose journal is not what sonde wrote (issue 39 #18): a
/// journal.jsonl that is a folder or a FIFO is a usage error, not a trap or a hang; a damaged or
/// truncated journal never replaces a report made from the whole one unless `--force` says so,
/// what was lost is said line by line, and the exit status is 64.
@Suite(.serialized) struct ReportRebuildCLITests {
    /// A finished probe run of `count` tasks.
    private func probeRun(count: Int = 10) throws -> String {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let run = try Harness.sonde(["probe", "--count", String(count), "--output-dir", output, target.http + "/bytes/10"])
        #expect(run.status == 0, "\(run.stderr)")
        return output + "/" + (try Harness.entries(of: output).sorted()[0])
    }

    private func tasks(inReport folder: String) throws -> Int? {
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        return (report["summary"] as? [String: Any])?["tasks"] as? Int
    }

    private func bytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }

    @Test func aJournalThatIsAFolderOrAFIFOIsAUsageError() throws {
        let folder = Harness.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder + "/journal.jsonl", withIntermediateDirectories: false)
        for arguments in [["report", folder], ["report", "--from-journal", folder]] {
            let result = try Harness.sonde(arguments, timeout: 30)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("journal.jsonl is a folder"), "\(result.stderr)")
        }
        let fifoFolder = Harness.temporaryDirectory()
        #expect(mkfifo(fifoFolder + "/journal.jsonl", 0o600) == 0)
        let fifo = try Harness.sonde(["report", fifoFolder], timeout: 30)
        #expect(fifo.status == 64 && fifo.stderr.contains("not a regular file"), "\(fifo.status) \(fifo.stderr)")
    }

    /// Six of ten task lines damaged: the complete report stays byte for byte, the message names
    /// the lost lines, exit 64; `--force` writes the four tasks left, says so in the report's
    /// warnings, and still exits 64.
    @Test func aDamagedJournalKeepsTheReportUnlessForced() throws {
        let folder = try probeRun()
        let journal = folder + "/journal.jsonl"
        var lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let taskLines = lines.indices.filter { lines[$0].hasPrefix(#"{"type":"probe""#) }
        #expect(taskLines.count == 10)
        for index in taskLines.prefix(6) { lines[index] = String(lines[index].prefix(lines[index].count / 2)) }
        try lines.joined(separator: "\n").write(toFile: journal, atomically: false, encoding: .utf8)
        let reportBefore = bytes(folder + "/report.json"), htmlBefore = bytes(folder + "/report.html")

        let kept = try Harness.sonde(["report", folder])
        #expect(kept.status == 64, "\(kept.status) \(kept.stderr)")
        let numbers = taskLines.prefix(5).map { String($0 + 1) }.joined(separator: ", ")
        #expect(kept.stderr.contains("6 unreadable lines (lines \(numbers), …)") && kept.stderr.contains("--force"), "\(kept.stderr)")
        #expect(bytes(folder + "/report.json") == reportBefore && bytes(folder + "/report.html") == htmlBefore)
        #expect(try tasks(inReport: folder) == 10)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty, "\(leftovers)")

        let forced = try Harness.sonde(["report", folder, "--force"])
        #expect(forced.status == 64, "\(forced.status) \(forced.stderr)")
        #expect(forced.stderr.contains("6 unreadable lines"), "\(forced.stderr)")
        #expect(try tasks(inReport: folder) == 4)
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let warnings = (report["run"] as? [String: Any])?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("6 journal lines were unreadable") }, "\(warnings)")
    }

    /// A journal truncated mid-line (its end line and most tasks gone): the report of the whole
    /// run stays; `--force` writes what is left as an interrupted run (130).
    @Test func aTruncatedJournalKeepsTheReportUnlessForced() throws {
        let folder = try probeRun()
        let journal = folder + "/journal.jsonl"
        let whole = bytes(journal)
        try whole.prefix(whole.count * 4 / 10).write(to: URL(fileURLWithPath: journal))
        let reportBefore = bytes(folder + "/report.json")
        let kept = try Harness.sonde(["report", folder])
        #expect(kept.status == 64, "\(kept.status) \(kept.stderr)")
        #expect(kept.stderr.contains("report.json holds 10 tasks and the journal gives") && kept.stderr.contains("cut short"), "\(kept.stderr)")
        #expect(bytes(folder + "/report.json") == reportBefore)
        let forced = try Harness.sonde(["report", folder, "--force"])
        #expect(forced.status == 130, "\(forced.status) \(forced.stderr)")
        #expect((try tasks(inReport: folder) ?? 10) < 10)
    }

    /// A killed run's journal (no end line, its last line cut mid-write) is no damage: rebuilt as
    /// interrupted (130), and rebuilt again over that report, which holds the same tasks.
    @Test func aKilledRunsJournalIsRebuiltAndRebuiltAgain() throws {
        let folder = try probeRun()
        let journal = folder + "/journal.jsonl"
        var lines = try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.last?.contains(#""type":"end""#) == true)
        lines.removeLast()
        let cut = lines.removeLast()
        try (lines.joined(separator: "\n") + "\n" + cut.prefix(cut.count / 3)).write(toFile: journal, atomically: false, encoding: .utf8)
        for file in ["report.json", "report.html", "report.har", "junit.xml"] { unlink(folder + "/" + file) }
        for pass in 1...2 {
            let rebuilt = try Harness.sonde(["report", folder])
            #expect(rebuilt.status == 130, "pass \(pass): \(rebuilt.status) \(rebuilt.stderr)")
            #expect(!rebuilt.stderr.contains("damaged"), "pass \(pass): \(rebuilt.stderr)")
            #expect(try tasks(inReport: folder) == 9)
        }
    }
}
