import Foundation
import SondeCore

// The journal's lines other than tasks (`JournalEntryKind`): what `RunRecorder` writes and
// `JournalScan` reads, one type per kind, each read by its one decoder.

struct RunLine: Codable {
    var type = JournalEntryKind.run
    let tool: ToolInfo
    let run: RunInfo
}

/// `{"trial":…,"type":"resume-trial"}` (sorted keys: `type` last).
struct ResumeTrialLine: Codable, Sendable {
    let trial: ResumeTrial
    var type = JournalEntryKind.resumeTrial
}

/// `{"type":"resume-verdict","verdict":…}`.
struct ResumeVerdictLine: Codable, Sendable {
    var type = JournalEntryKind.resumeVerdict
    let verdict: ResumeVerdict
}

struct CaptureLine: Codable, Sendable {
    var type = JournalEntryKind.capture
    let capture: CaptureReport
}

struct SoakStartLine: Codable, Sendable {
    struct Start: Codable, Sendable {
        let url: String
        let config: SoakConfig
        let startedAt: Timestamp
        /// The check the soak belongs to (absent outside checks).
        var check: String?
    }
    let soak: Start
    var type = JournalEntryKind.soak
}

/// `{"attempt":…,"type":"ws-attempt"}`, or `{"attempt":…,"check":"<name>","type":"ws-attempt"}`
/// inside a check: written with `JSONOutput` (prefix, value, suffix), the keys in sorted order as
/// the other lines have them, and read by `JournalScan.readSoakLine`.
enum SoakAttemptLine {
    static let member = "attempt"
    static let prefix = Array(#"{"attempt":"#.utf8)
    static let suffix = soakLineSuffix(check: nil, kind: .wsAttempt)
    static func suffix(check: String) -> [UInt8] { soakLineSuffix(check: check, kind: .wsAttempt) }
}

/// `{"samples":…,"type":"ws-samples"}` (with `"check"` inside a check), like `SoakAttemptLine`.
enum SoakSamplesLine {
    static let member = "samples"
    static let prefix = Array(#"{"samples":"#.utf8)
    static let suffix = soakLineSuffix(check: nil, kind: .wsSamples)
    static func suffix(check: String) -> [UInt8] { soakLineSuffix(check: check, kind: .wsSamples) }
}

/// `,"check":"<name, JSON-escaped>","type":"<kind>"}`, or without the check when it is nil.
func soakLineSuffix(check: String?, kind: JournalEntryKind) -> [UInt8] {
    var output = JSONOutput(capacity: 64)
    if let check { output.string(check) }
    let name = check == nil ? [] : Array(#","check":"#.utf8) + output.bytes
    return name + Array(#","type":"\#(kind.rawValue)"}"#.utf8)
}

struct SoakIdleLine: Codable, Sendable {
    var type = JournalEntryKind.wsIdle
    let findings: IdleTimeoutFindings
    /// The check the soak belongs to (absent outside checks).
    var check: String?
}

/// `{"check":{"kind":…,"name":…,"startedAt":…,"thresholds":["wait.p95<200ms",…]},"type":"check-begin"}`.
struct CheckBeginLine: Codable, Sendable {
    struct Begin: Codable, Sendable {
        let name: String
        /// Its kind's name (`CheckKind.name`: "probe", "soak", "resume", "audit", …).
        let kind: String
        let startedAt: Timestamp
        /// The check's threshold expressions as written (parsed again when the journal is read).
        let thresholds: [String]
        /// The emulated link it runs over (conditions and seed), absent without one.
        var link: LinkUse? = nil
    }
    let check: Begin
    var type = JournalEntryKind.checkBegin
}

/// `{"check":{"error":…,"finishedAt":…,"interrupted":…,"name":…,"timedOut":true},"type":"check-end"}`.
struct CheckEndLine: Codable, Sendable {
    struct End: Codable, Sendable {
        let name: String
        let finishedAt: Timestamp
        /// What stopped the check itself (absent when it ran to its end).
        let error: TaskError?
        /// Whether Ctrl-C ended it.
        let interrupted: Bool
        /// True when the run's own time limit ended it (serve's `run-timeout`); absent otherwise
        /// (and in journals written before sonde knew the status).
        var timedOut: Bool? = nil
        /// The emulated link with its counters, absent without one.
        var link: LinkUse? = nil
    }
    let check: End
    var type = JournalEntryKind.checkEnd
}

struct EndLine: Codable, Sendable {
    var type = JournalEntryKind.end
    let status: RunStatus
    let finishedAt: Timestamp
    let thresholds: [ThresholdResult]
    /// The comparison with `--baseline`, when one was given.
    var baseline: BaselineComparison?
    /// Every check of the run as it ended (absent for runs without checks).
    var checks: [CheckReport]? = nil
    /// A single-check run's emulated link with its counters (`RunInfo.link`), absent without one.
    var link: LinkUse? = nil
}

extension Journal {
    /// Appends `value` as one JSON line (the run, capture and end lines; task lines are written
    /// with `JSONOutput`). An encoding failure is an internal error, never a crash.
    func append(encoded value: some Encodable, with encoder: JSONEncoder) throws(TaskError) {
        let bytes: Data
        do {
            bytes = try encoder.encode(value)
        } catch {
            throw TaskError(code: .internalError, message: "cannot encode a journal line: \(error)")
        }
        try append(line: Array(bytes))
    }
}

extension ProbeTask {
    /// The task as belonging to `check`.
    func stamped(check: String?) -> ProbeTask {
        var task = self
        task.check = check
        return task
    }
}
