import Foundation
import Testing

/// sonde ignores SIGPIPE (a send on a dropped QUIC connection must not kill it), so a reader that
/// goes away (`sonde … | head`) must not make its own writes trap either: the run goes on and
/// writes its report.
@Suite struct ClosedPipeCLITests {
    @Test(arguments: [["--json"], []])
    func aReaderThatLeavesDoesNotCrashTheRun(extra: [String]) throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let command = ([Harness.sonde, "probe", target.http + "/bytes/10", "--count", "60", "--output-dir", output] + extra)
            .map { "'\($0)'" }.joined(separator: " ")
        let result = try Harness.run("/bin/bash", ["-c", command + " | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}"], timeout: 60)
        #expect(result.status == 0, "\(result.status) \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("crashed"), "\(result.stderr)")
        let runs = try Harness.entries(of: output)
        #expect(runs.count == 1 && FileManager.default.fileExists(atPath: output + "/" + runs[0] + "/report.html"), "the report is written")
    }
}
