import SondeCore

/// `--baseline history:CHECK:median:N`: a run compared with the median of the newest N recorded
/// runs of a check, phase by phase: each phase's aggregations (over all, cold and warm
/// transactions) are the medians of those runs' values (`HistoryStore.medianSummary`).
///
/// The check name may itself hold colons (`probe https://host/path`): the text is read from its
/// ends, `history:` first, `:median:N` last.
public struct HistoryBaseline: Sendable, Equatable {
    public static let prefix = "history:"
    /// The most runs a baseline reads.
    public static let maxRuns = 1000

    public var check: String
    public var runs: Int

    /// Whether `text` asks for a history baseline at all (else it is a run folder).
    public static func isHistoryBaseline(_ text: String) -> Bool { text.hasPrefix(prefix) }

    /// - Throws: a `TaskError` saying the expected form when the text is malformed.
    public init(parsing text: String) throws(TaskError) {
        let usage = "--baseline \(text): expected history:CHECK:median:N with N 1…\(Self.maxRuns), e.g. history:api:median:20"
        guard text.hasPrefix(Self.prefix) else { throw TaskError(code: .localIOError, message: usage) }
        var parts = text.dropFirst(Self.prefix.count).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, let runs = Int(parts.removeLast()), (1...Self.maxRuns).contains(runs), parts.removeLast() == "median" else {
            throw TaskError(code: .localIOError, message: usage)
        }
        let check = parts.joined(separator: ":")
        if let problem = CheckReport.nameProblem(check) { throw TaskError(code: .localIOError, message: "\(usage): \(problem)") }
        self.check = check
        self.runs = runs
    }

    /// The baseline's run (its id the text asked for, started when the newest of its runs did)
    /// and median summary, from `store`. - Throws: when the history has no run of the check.
    public func load(from store: HistoryStore) throws(TaskError) -> (run: RunInfo, summary: ProbeSummary) {
        guard let (summary, newest) = try store.medianSummary(check: check, last: runs) else {
            throw TaskError(code: .localIOError, message: "--baseline history:\(check):median:\(runs): \(store.path) has no run of the check "
                + "\"\(check)\" (sonde history lists the checks)")
        }
        let run = RunInfo(id: "\(Self.prefix)\(check):median:\(runs)", command: "history", arguments: [],
                          startedAt: Timestamp(microsecondsSince1970: newest), status: .passed, insecure: false, redacted: true)
        return (run, summary)
    }
}
