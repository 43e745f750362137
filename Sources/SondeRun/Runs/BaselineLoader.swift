import Foundation
import SondeCore
import SondeSuite
import SondeHistory
import SondeReport

/// `--baseline`: the run a run is compared with, read before any network work. The text names a
/// run folder, `history:CHECK:median:N` (the medians of a check's newest N recorded runs), or
/// `previous`: the newest run of the same subject (`RunSubject`: checks and URLs) that ran to its
/// end (passed or failed), from the history at `historyPath` when there is one, else from the run
/// folders directly in `outputDirectory` (folders only: a link such as `latest` is not followed).
///
/// A run folder (given, or found by `previous` in the history) whose subject is not the run's is
/// refused unless `acceptAnySubject` (`--baseline-any`), and so is one that does not record its
/// subject (written by an older sonde); a `history:` baseline names its check and is taken as it
/// is. `previous` with no such run yet (a first run, a history not made yet) is no error: the run
/// goes on without a baseline, and `Loaded.note` says so.
///
/// Every failure is a `TaskError` whose message starts with `--baseline …:`; the commands exit 64.
public struct BaselineLoader: Sendable {
    /// The `--baseline` value that asks for the newest run of the same subject.
    public static let previous = "previous"

    /// `--history` (nil: not given; `history:` baselines then read `<outputDirectory>/history.sqlite`).
    public var historyPath: String?
    public var outputDirectory: String
    public var acceptAnySubject = false
    /// The check kinds' section renderers, to read the journal lines they name (an audit's).
    public var renderers: ReportSectionRenderers

    public init(historyPath: String?, outputDirectory: String, acceptAnySubject: Bool,
                renderers: ReportSectionRenderers = ReportSectionRenderers()) {
        self.historyPath = historyPath
        self.outputDirectory = outputDirectory
        self.acceptAnySubject = acceptAnySubject
        self.renderers = renderers
    }

    public struct Loaded: Sendable {
        /// The baseline; nil when `previous` found none.
        public var baseline: JournalScan.Result?
        /// What the user should know (which run `previous` took, or that there was none).
        public var note: String?

        public init(baseline: JournalScan.Result? = nil, note: String? = nil) {
            self.baseline = baseline
            self.note = note
        }
    }

    /// - Parameters:
    ///   - text: the `--baseline` value.
    ///   - subject: what the run to compare measured; nil when it does not say (a run folder of an older sonde).
    ///   - runID: the run to compare when it exists already (`sonde report`): never its own baseline.
    ///   - startedAt: with `runID`, its start: `previous` is a run that started before it.
    public func load(_ text: String, subject: RunSubject?, runID: String? = nil, startedAt: Timestamp? = nil) throws(TaskError) -> Loaded {
        if HistoryBaseline.isHistoryBaseline(text) {
            let path = historyPath ?? (outputDirectory as NSString).appendingPathComponent(HistoryStore.defaultFileName)
            let (run, summary) = try HistoryBaseline(parsing: text).load(from: HistoryStore.openForReading(path: path))
            return Loaded(baseline: JournalScan.Result(tool: ToolInfo(libcurl: nil, features: []), run: run, summary: summary))
        }
        if text == Self.previous {
            guard let subject else {
                throw TaskError(code: .localIOError, message: "--baseline previous: this run does not record what it measured (an older "
                    + "sonde wrote it), so no run of the same checks can be found: give the baseline's run folder and --baseline-any")
            }
            let found = try historyPath.map { (path) throws(TaskError) in try previousInHistory(path, subject: subject, runID: runID, startedAt: startedAt) }
                ?? previousInOutputDirectory(subject: subject, runID: runID, startedAt: startedAt)
            guard let found else {
                let place = historyPath ?? outputDirectory
                return Loaded(note: "--baseline previous: no earlier finished run of these checks and URLs in \(place): this run is compared with none")
            }
            return Loaded(baseline: found, note: "--baseline previous: compared with \(found.run.id)")
        }
        let path = normalizedRunFolder(text)
        let baseline: JournalScan.Result
        do {
            baseline = try JournalScan.read(folder: RunFolder(existing: path), renderers: renderers)
        } catch {
            throw TaskError(code: error.code, message: "--baseline: \(error.message)")
        }
        try requireSameSubject(baseline.run, as: subject, named: text)
        return Loaded(baseline: baseline)
    }

    /// Throws, in one sentence, unless `baseline` measured `subject` (or `acceptAnySubject`).
    func requireSameSubject(_ baseline: RunInfo, as subject: RunSubject?, named text: String) throws(TaskError) {
        guard !acceptAnySubject else { return }
        guard let subject, let theirs = baseline.subject else {
            let which = subject == nil ? "this run does" : "the baseline \(baseline.id) does"
            throw TaskError(code: .localIOError, message: "--baseline \(text): \(which) not record what it measured (an older sonde wrote it), "
                + "so the two cannot be matched: give --baseline-any to compare them anyway")
        }
        guard theirs == subject else {
            throw TaskError(code: .localIOError, message: "--baseline \(text): the baseline \(baseline.id) measured other checks or URLs than this "
                + "run (\(subject.difference(from: theirs))): give a run of the same checks and URLs, or --baseline-any to compare them anyway")
        }
    }

    /// The newest finished run of `subject` in the history at `path`: its run folder when that
    /// is still there (every figure), else the history's own figures (a run of one check only).
    /// Nil when the history does not exist yet or holds no such run.
    func previousInHistory(_ path: String, subject: RunSubject, runID: String?, startedAt: Timestamp?) throws(TaskError) -> JournalScan.Result? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let store = try HistoryStore.openForReading(path: path)
        guard let run = try store.newestRun(of: subject, before: startedAt?.microsecondsSince1970, excluding: runID) else { return nil }
        let folder = RunFolder(existing: run.folder)
        if JournalScan.startedRun(folder: folder)?.id == run.id, let scan = try? JournalScan.read(folder: folder, renderers: renderers), scan.run.id == run.id {
            return scan
        }
        guard let summary = try store.summary(ofRun: run.id) else {
            throw TaskError(code: .localIOError, message: "--baseline previous: the newest run of these checks in \(path), \(run.id), has several "
                + "checks and its folder \(run.folder) is gone, and the history keeps each check's figures, not the run's pooled ones: "
                + "keep the run folders, or compare with history:CHECK:median:1")
        }
        let info = RunInfo(id: run.id, command: run.command, arguments: [], startedAt: run.started,
                           finishedAt: run.finishedAt.map(Timestamp.init(microsecondsSince1970:)), status: RunStatus(rawValue: run.status) ?? .passed,
                           insecure: run.insecure, redacted: run.redacted, subject: subject)
        return JournalScan.Result(tool: ToolInfo(libcurl: nil, features: []), run: info, summary: summary)
    }

    /// The newest run folder directly in `outputDirectory` (a folder, not a link) whose journal
    /// starts with a run of `subject` and which ran to its end (passed or failed). Only the
    /// journals' first lines are read, then whole journals newest first until one ended.
    func previousInOutputDirectory(subject: RunSubject, runID: String?, startedAt: Timestamp?) -> JournalScan.Result? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: outputDirectory) else { return nil }
        var candidates: [(folder: RunFolder, run: RunInfo)] = []
        for name in names {
            let path = (outputDirectory as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { continue }
            let folder = RunFolder(existing: path)
            guard let run = JournalScan.startedRun(folder: folder), run.subject == subject, run.id != runID else { continue }
            if let startedAt, run.startedAt.microsecondsSince1970 >= startedAt.microsecondsSince1970 { continue }
            candidates.append((folder, run))
        }
        candidates.sort { ($0.run.startedAt.microsecondsSince1970, $0.run.id) > ($1.run.startedAt.microsecondsSince1970, $1.run.id) }
        for candidate in candidates {
            guard let scan = try? JournalScan.read(folder: candidate.folder, renderers: renderers), scan.run.finishedAt != nil,
                  scan.run.status == .passed || scan.run.status == .failed, scan.losses.isEmpty else { continue }
            return scan
        }
        return nil
    }
}
