import Foundation
import Testing
@testable import SondeCore

/// The `check` field of the entries a `sonde run` suite records: written and read back by the
/// hand-written JSON path and by Codable alike, and absent altogether outside checks.
@Suite struct CheckFieldTests {
    @Test func aTaskOfACheckKeepsItsCheckThroughBothJSONPaths() throws {
        var task = JSONOutputTests.fullTask()
        task.check = JSONOutputTests.hostile
        let written = JSONOutputTests.written(task)
        #expect(try JSONDecoder().decode(ProbeTask.self, from: written) == task)
        #expect(try JSONReader.read(ProbeTask.self, from: Array(written)) == task)
        let foundation = try JSONEncoder().encode(task)
        #expect(try JSONReader.read(ProbeTask.self, from: Array(foundation)) == task)
    }

    @Test func outsideChecksNoEntryHasACheckKey() throws {
        let task = JSONOutputTests.fullTask()
        #expect(task.check == nil)
        #expect(!String(decoding: JSONOutputTests.written(task), as: UTF8.self).contains(#""check""#))
        #expect(!String(decoding: try JSONEncoder().encode(task), as: UTF8.self).contains(#""check""#))
        let trial = ResumeTrial(trial: 1, url: "http://h/f", direction: "download", protocol: "http-range", length: 3,
                                interruptions: [], retries: [], bytesTransferred: 3, bytesWasted: 0, sha256: "a",
                                expectedSha256: "a", expectedFrom: "reference", durationMs: 1, progress: [], error: nil)
        let verdict = ResumeVerdict(url: "http://h/f", checks: [], urlSession: "resumes")
        let threshold = ThresholdResult(expression: "tasks.count>0", observed: 1, passed: true, message: "ok")
        for json in [try JSONEncoder().encode(trial), try JSONEncoder().encode(verdict), try JSONEncoder().encode(threshold)] {
            #expect(!String(decoding: json, as: UTF8.self).contains(#""check""#))
        }
        var named = trial
        named.check = "download"
        #expect(try JSONDecoder().decode(ResumeTrial.self, from: JSONEncoder().encode(named)).check == "download")
    }

    @Test func aCheckStatusFollowsTheRunRule() {
        let failing = ThresholdResult(expression: "tasks.count>9", observed: 1, passed: false, message: "no")
        func status(ended: Bool = true, interrupted: Bool = false, error: TaskError? = nil, failedTasks: Int = 0,
                    thresholds: [ThresholdResult] = []) -> RunStatus {
            CheckReport.status(ended: ended, interrupted: interrupted, error: error, failedTasks: failedTasks, soaks: [],
                               resume: ResumeResults(), thresholds: thresholds)
        }
        #expect(status() == .passed)
        #expect(status(thresholds: [failing]) == .failed)
        #expect(status(failedTasks: 1) == .failed)
        #expect(status(error: TaskError(code: .dnsFailure, message: "x"), failedTasks: 1) == .error)
        #expect(status(interrupted: true, error: TaskError(code: .interrupted, message: "x")) == .interrupted)
        #expect(status(ended: false) == .interrupted)
    }

    @Test func checkNamesAreBoundedAndPrintable() {
        #expect(CheckReport.nameProblem("api <script>") == nil)
        #expect(CheckReport.nameProblem("") != nil)
        #expect(CheckReport.nameProblem("a\nb") != nil)
        #expect(CheckReport.nameProblem(String(repeating: "é", count: 101)) != nil)
    }
}
