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
