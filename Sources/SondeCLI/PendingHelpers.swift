// TEMPORARY: stand-ins for the helpers' APIs, removed at merge.
import SondeCore
import SondeReport
import SondeRun
import Yams

extension RunRecorder {
    func beginCheck(name: String, kind: String, thresholds: [Threshold]) throws(TaskError) {}
    func endCheck(error: TaskError?, interrupted: Bool) throws(TaskError) {}
}
struct CheckResultStandIn { var name: String }
extension RunOutcome { var checks: [CheckResultStandIn] { [] } }
extension TerminalRenderer { func render(checks: [CheckResultStandIn]) -> String { "" } }
extension SoakReport { var check: String? { nil } }
extension ResumeTrial { var check: String? { nil } }
enum SuiteLoader {
    struct Failure: Error, CustomStringConvertible { var description: String }
    struct Loaded { var suite: Suite; func printableYAML(of suite: Suite) -> String { "" } }
    static func load(path: String) throws(Failure) -> Loaded { throw Failure(description: "not yet") }
    static func entryYAML(name: String, spec: SuiteCheck.Spec) -> String { "" }
}
