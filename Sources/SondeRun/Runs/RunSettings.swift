import Foundation
import SondeCore
import SondeSuite
import SondeHistory
import SondeOTLP
import SondeReport

/// What every run takes besides its checks: where its folder goes, how its report is judged,
/// redacted, compared and added to the history, and whether stdout gets the report document.
/// A plain value: the command line (`ReportOptions`), a suite and `sonde serve` each make one.
public struct RunSettings: Sendable {
    /// Print the report document (JSON) on stdout instead of the terminal view.
    public var json = false
    /// How the check kinds' report sections show beside report.json (`CheckKinds.sectionRenderers`);
    /// none by default (report.json holds the sections regardless).
    public var sectionRenderers = ReportSectionRenderers()
    /// Where run folders are made.
    public var outputDirectory = "Reports"
    /// The run history a finished run is added to (nil: none); also where `history:` baselines are read
    /// (default there: `<outputDirectory>/history.sqlite`).
    public var historyPath: String?
    /// Secrets are redacted unless this is set.
    public var noRedact = false
    /// Header and query names redacted besides the built-in ones.
    public var extraRedactions: [String] = []
    /// The run's own thresholds.
    public var thresholds: [Threshold] = []
    /// Also write the run's metrics in Prometheus text format to this file.
    public var prometheusPath: String?
    /// A run folder, `history:CHECK:median:N` or `previous`, to compare with (`BaselineLoader`).
    public var baselinePath: String?
    /// `--baseline-any`: compare with a baseline of other checks or URLs too.
    public var baselineAny = false
    /// `--run-dir`: the run's folder, exactly (new or empty; nil: a new folder named after the run
    /// under `outputDirectory`).
    public var runDirectory: String?
    /// Where the finished run's metrics and traces are exported (OTLP); nil: nowhere.
    public var otlp: OTLPSettings?
    /// The run's trace (ids made before it starts): its spans' trace and `--traceparent`'s value.
    public var traceContext = OTLPTraceContext.random()
    /// Send `traceparent` (the run's trace and root span) on every probed request.
    public var traceparent = false
    /// How the run shows its progress while it works (`--progress`).
    public var progress = ProgressMode.auto
    /// Where the finished run's Markdown summary goes (`--summary-md`, `$GITHUB_STEP_SUMMARY`); nowhere by default.
    public var summaryMarkdown = MarkdownSummaryFile(path: nil, stepSummaryPath: nil)

    public init() {}

    public var redactor: Redactor { Redactor(enabled: !noRedact, extraNames: extraRedactions) }

    /// How `--baseline` is read under these settings.
    public var baselineLoader: BaselineLoader {
        BaselineLoader(historyPath: historyPath, outputDirectory: outputDirectory, acceptAnySubject: baselineAny, renderers: sectionRenderers)
    }

    /// Reads the baseline (none without `--baseline`) before any network work starts.
    /// - Parameter subject: what the run about to start measures.
    public func loadBaseline(subject: RunSubject) throws(TaskError) -> BaselineLoader.Loaded {
        guard let baselinePath else { return BaselineLoader.Loaded() }
        return try baselineLoader.load(baselinePath, subject: subject)
    }

    /// Creates the run folder (`runDirectory`, or a new one under `outputDirectory`) and the
    /// recorder that journals into it, for checks of `checkKinds` (`RunRecorder.checkKinds`).
    public func openRecorder(run: RunInfo, tool: ToolInfo, checkKinds: [String] = []) throws(TaskError) -> RunRecorder {
        let folder = try RunFolder.made(runDirectory: runDirectory, outputDirectory: outputDirectory, runID: run.id)
        var run = run
        run.id = folder.runID  // another name when the first was taken
        return try RunRecorder(folder: folder, tool: tool, run: run, checkKinds: checkKinds, renderers: sectionRenderers)
    }

    /// Ends a run under these settings (thresholds, baseline, Prometheus file), renders every
    /// report file and adds the run to the history; nil, said on stderr, when the report could
    /// not be written (a history that cannot be written is said, and the run stands).
    public func finish(_ recorder: RunRecorder, status: RunStatus, baseline: JournalScan.Result?, link: LinkUse? = nil) -> RunOutcome? {
        let outcome: RunOutcome
        do {
            outcome = try recorder.finish(status: status, thresholds: thresholds, baseline: baseline, prometheusPath: prometheusPath, link: link)
        } catch {
            printError("sonde: could not write the report: \(error.message)")
            return nil
        }
        Self.record(recorder.folder, inHistory: historyPath)
        Self.markLatest(recorder.folder, in: outputDirectory)
        Self.write(outcome, folder: recorder.folder, summary: summaryMarkdown)
        export(recorder.folder, run: outcome.run)
        return outcome
    }

    /// Points `<outputDirectory>/latest` at the finished run in `folder` (`LatestRunLink`); a
    /// link that cannot be made is said on stderr and changes nothing else.
    public static func markLatest(_ folder: RunFolder, in outputDirectory: String) {
        if let problem = LatestRunLink.point(outputDirectory: outputDirectory, at: folder) { printError("sonde: warning: \(problem)") }
    }

    /// Writes the finished run's Markdown summary where `summary` says (nothing when nowhere). A
    /// failure is said on stderr and changes nothing else: the run and its exit status stand.
    public static func write(_ outcome: RunOutcome, folder: RunFolder, summary: MarkdownSummaryFile) {
        do throws(TaskError) { try summary.write(outcome, folder: folder.path) } catch {
            printError("sonde: the Markdown summary was not written: \(error.message)")
        }
    }

    /// Exports the finished run in `folder` to `otlp` (nothing without it), after its files are
    /// written: export changes neither them nor the exit status; a failure is said once on stderr.
    /// Blocks for at most each signal's bounded export (`OTLPExporter`).
    public func export(_ folder: RunFolder, run: RunInfo) {
        guard let otlp else { return }
        let exported = OTLPExporter.export(runFolder: folder.path, run: run, settings: otlp, context: traceContext, vantage: nil,
                                            soakParts: sectionRenderers.soakParts)
        if !exported.failures.isEmpty {
            printError("sonde: warning: the OTLP export failed (the run's files are written): " + exported.failures.joined(separator: "; "))
        }
    }

    /// Adds the finished run in `folder` to the history at `historyPath` (nothing without one). A
    /// failure is said on stderr and changes nothing else: the run and its exit status stand.
    public static func record(_ folder: RunFolder, inHistory historyPath: String?) {
        guard let historyPath else { return }
        do throws(TaskError) {
            try HistoryStore.open(path: historyPath).record(runFolder: folder.path)
        } catch {
            printError("sonde: the run was not added to the history: \(error.message)")
        }
    }

    /// The terminal view: in colour on a TTY unless NO_COLOR is set.
    public static var terminalRenderer: TerminalRenderer {
        TerminalRenderer(useColor: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    }
}
