import Foundation
import Testing

/// The one status rule in every command (issue #19: resume once let a failure beat an interrupt):
/// a run interrupted after some of its work failed, or with a failing threshold, exits 130 and
/// records `interrupted`, whatever the command.
@Suite struct StatusPrecedenceCLITests {
    static func status(of output: String) throws -> String? {
        let run = output + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: output).first))
        let report = try Harness.json(String(contentsOfFile: run + "/report.json", encoding: .utf8))
        return (report["run"] as? [String: Any])?["status"] as? String
    }

    @Test func probeInterruptedAfterAFailure() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", target.http + "/status/500", target.http + "/delay/20000", "--threshold", "tasks.count>100",
                                        "--output-dir", output], timeout: 60, interruptAfter: 2)
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(try Self.status(of: output) == "interrupted")
    }

    @Test func soakInterruptedWithAFailingThreshold() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        // Pings answered in more than a microsecond: the threshold has failed when Ctrl-C comes.
        let result = try Harness.sonde(["soak", target.ws + "/ws/echo", "--duration", "30s", "--ping-interval", "200ms",
                                        "--threshold", "ws.ping.p95<1us", "--output-dir", output], timeout: 60, interruptAfter: 3)
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(try Self.status(of: output) == "interrupted")
    }

    @Test func resumeInterruptedWithAFailingThreshold() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["resume", target.http + "/bytes/5000000", "--trials", "1000", "--kinds", "abort",
                                        "--threshold", "tasks.count>100", "--output-dir", output], timeout: 60, interruptAfter: 3)
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(try Self.status(of: output) == "interrupted")
    }
}
