import Foundation
import Testing

/// The one status rule in every command (issue #19: resume once let a failure beat an interrupt):
/// a run interrupted after some of its work failed, or with a failing threshold, exits 130 and
/// records `interrupted`, whatever the command.
@Suite struct StatusPrecedenceCLITests {
    /// Runs `arguments` into a fresh output folder, Ctrl-C after `seconds`: exit 130, run `interrupted`.
    static func expectInterrupted(_ arguments: [String], after seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(arguments + ["--output-dir", output], timeout: 60, interruptAfter: seconds)
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)", sourceLocation: sourceLocation)
        let run = output + "/" + (try #require(try Harness.entries(of: output).first))
        let report = try Harness.json(String(contentsOfFile: run + "/report.json", encoding: .utf8))
        #expect((report["run"] as? [String: Any])?["status"] as? String == "interrupted", sourceLocation: sourceLocation)
    }

    @Test func probeInterruptedAfterAFailure() throws {
        let target = try TargetProcess.get()
        try Self.expectInterrupted(["probe", target.http + "/status/500", target.http + "/delay/20000", "--threshold", "tasks.count>100"],
                                   after: 2)
    }

    /// Pings answered in more than a microsecond: the threshold has failed when Ctrl-C comes.
    @Test func soakInterruptedWithAFailingThreshold() throws {
        let target = try TargetProcess.get()
        try Self.expectInterrupted(["soak", target.ws + "/ws/echo", "--duration", "30s", "--ping-interval", "200ms",
                                    "--threshold", "ws.ping.p95<1us"], after: 3)
    }

    @Test func resumeInterruptedWithAFailingThreshold() throws {
        let target = try TargetProcess.get()
        try Self.expectInterrupted(["resume", target.http + "/bytes/5000000", "--trials", "1000", "--kinds", "abort",
                                    "--threshold", "tasks.count>100"], after: 3)
    }
}
