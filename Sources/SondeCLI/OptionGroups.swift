import ArgumentParser
import Foundation
import SondeCore
import SondeHTTP
import SondeHistory
import SondeOTLP
import SondeReport
import SondeRun
import SondeSuite

// The options several commands share, each declared once here and filling the check spec of
// every command that takes it (the spec's key is the option's long name: `SondeSuite.CheckSpec`).

/// `--output-dir` (every command that writes or reads run folders).
struct OutputDirectoryOption: ParsableArguments {
    static let defaultDirectory = "Reports"

    @Option(name: .customLong("output-dir"), help: ArgumentHelp(
        "Where run folders are written, <dir>/latest links to the last finished one (a merge's or a re-judged run's new folder too; "
            + "where sonde history finds history.sqlite; default \(defaultDirectory)).", valueName: "dir"))
    var given: String?

    /// `--output-dir`, or `Reports` without it.
    var outputDirectory: String {
        get { given ?? Self.defaultDirectory }
        set { given = newValue }
    }
}

/// `--run-dir` (every command that writes a run folder, and `sonde report`'s re-judged run).
struct RunDirectoryOption: ParsableArguments {
    @Option(name: .customLong("run-dir"), help: ArgumentHelp(
        "Write the run exactly into this folder (made when missing; an existing one must be an empty folder, not a link) "
            + "instead of a new folder under --output-dir.", valueName: "dir"))
    var runDirectory: String?
}

/// `--no-redact`, `--redact` (every command that writes runs, and serve).
struct RedactionOptions: ParsableArguments {
    @Flag(name: .customLong("no-redact"), help: "Keep secrets (Authorization, cookies, token-like query parameters) in the outputs. Recorded in the report.")
    var noRedact = false

    @Option(name: .customLong("redact"), help: "Also redact headers and query parameters with this name (repeatable).")
    var extraRedactions: [String] = []

    var redactor: Redactor { Redactor(enabled: !noRedact, extraNames: extraRedactions) }
}

/// `-k/--insecure`, `--cacert` (probe, soak, resume).
struct TLSOptions: ParsableArguments {
    @Flag(name: .key(.insecure), help: .key(.insecure)) var insecure = false
    @Option(name: .key(.cacert), help: .key(.cacert)) var cacert: String?

    func apply(to spec: inout some TLSKeys) {
        if insecure { spec.insecure = true }
        spec.cacert = cacert
    }
}

/// `-H/--header` (probe, soak, resume).
struct HeaderOptions: ParsableArguments {
    @Option(name: .key(.headers), help: .key(.headers)) var headers: [String] = []

    func apply(to spec: inout some HeaderKeys) {
        if !headers.isEmpty { spec.headers = headers }
    }
}

/// `--connect-timeout` (probe, soak, resume).
struct ConnectTimeoutOption: ParsableArguments {
    @Option(name: .key(.connectTimeout), help: .key(.connectTimeout)) var connectTimeout: DurationValue?

    func apply(to spec: inout some ConnectTimeoutKey) { spec.connectTimeout = connectTimeout }
}

/// `--link` (probe, soak, resume): the emulated link the check runs over.
struct LinkOption: ParsableArguments {
    @Option(name: .key(.link), help: .key(.link)) var link: String?

    func apply(to spec: inout some LinkKey) { spec.link = link }
}

/// `--otlp`, `--traceparent` (every command that writes a run): where the finished run is
/// exported (with the `OTEL_EXPORTER_OTLP_*` variables), and trace context on probed requests.
struct OTLPOption: ParsableArguments {
    @Option(name: .key(.otlp), help: .key(.otlp)) var otlp: String?
    @Flag(name: .key(.traceparent), help: .key(.traceparent)) var traceparent = false

    /// The export settings (`validate` has refused bad ones), nil when nothing names an endpoint.
    var settings: OTLPSettings? { (try? OTLPSettings.resolve(OTLPSettings.Given(endpoint: otlp), environment: ProcessInfo.processInfo.environment).get()) ?? nil }

    func validate() throws {
        if case .failure(let problem) = OTLPSettings.resolve(OTLPSettings.Given(endpoint: otlp), environment: ProcessInfo.processInfo.environment) {
            throw ValidationError(problem.key == "otlp" ? "--otlp: \(problem.message)" : problem.description)
        }
    }
}

/// `--resolve` (probe, resume, audit).
struct ResolveOption: ParsableArguments {
    @Option(name: .key(.resolve), help: .key(.resolve)) var resolve: [String] = []

    func apply(to spec: inout some ResolveKey) {
        if !resolve.isEmpty { spec.resolve = resolve }
    }
}

/// `--backoff-initial`, `--backoff-max`, `--backoff-multiplier`, `--jitter` (soak reconnects, resume retries).
struct BackoffOptions: ParsableArguments {
    @Option(name: .key(.backoffInitial), help: .key(.backoffInitial)) var backoffInitial: DurationValue?
    @Option(name: .key(.backoffMax), help: .key(.backoffMax)) var backoffMax: DurationValue?
    @Option(name: .key(.backoffMultiplier), help: .key(.backoffMultiplier)) var backoffMultiplier: Double?
    @Option(name: .key(.jitter), help: .key(.jitter)) var jitter: String?

    func apply(to spec: inout some BackoffKeys) {
        spec.backoffInitial = backoffInitial
        spec.backoffMax = backoffMax
        spec.backoffMultiplier = backoffMultiplier
        spec.jitter = jitter
    }
}

/// The HTTP version flags, one enumerable flag (at most one of them), named and worded by the
/// probe's version keys.
enum HTTPVersionFlag: String, EnumerableFlag {
    case http1_1, http2, http2PriorKnowledge, http3, http3Only

    var preference: HTTPVersionPreference {
        switch self {
        case .http1_1: return .http1_1
        case .http2: return .http2
        case .http2PriorKnowledge: return .http2PriorKnowledge
        case .http3: return .http3
        case .http3Only: return .http3Only
        }
    }

    /// The spec key this flag sets.
    var key: SpecKey {
        switch self {
        case .http1_1: return .http11
        case .http2: return .http2
        case .http2PriorKnowledge: return .http2PriorKnowledge
        case .http3: return .http3
        case .http3Only: return .http3Only
        }
    }

    static func name(for value: HTTPVersionFlag) -> NameSpecification { .key(value.key) }
    static func help(for value: HTTPVersionFlag) -> ArgumentHelp? { .key(value.key) }
}

/// `-4/--ipv4`, `-6/--ipv6`, one enumerable flag.
enum IPVersionFlag: String, EnumerableFlag {
    case ipv4, ipv6

    var key: SpecKey { self == .ipv4 ? .ipv4 : .ipv6 }
    static func name(for value: IPVersionFlag) -> NameSpecification { .key(value.key) }
    static func help(for value: IPVersionFlag) -> ArgumentHelp? { .key(value.key) }

    var preference: IPVersion { self == .ipv4 ? .v4 : .v6 }
}

/// `--capture` (probe, soak, resume, run): a bare `--capture` arrives as `required` (`Sonde.runFromCommandLine`).
struct CaptureOption: ParsableArguments {
    @Option(name: .customLong("capture"), help: ArgumentHelp(
        "Capture the run's own packets with libpcap into capture.pcap and analyse them (needs root or CAP_NET_RAW). "
            + "--capture=optional goes on without a capture when it cannot capture; --capture=off captures nothing "
            + "(sonde demo captures optionally unless told off).", valueName: "required|optional|off"))
    var capture: String?

    func validate() throws {
        if let capture, capture != "off", CaptureSession.Mode(rawValue: capture) == nil {
            throw ValidationError("--capture takes no value, or =optional, or =off (got '\(capture)')")
        }
    }

    /// The mode asked for, nil without `--capture` and with `--capture=off`.
    var mode: CaptureSession.Mode? { mode(byDefault: nil) }

    /// The mode asked for; `byDefault` without `--capture`, nil with `--capture=off`.
    func mode(byDefault: CaptureSession.Mode?) -> CaptureSession.Mode? {
        guard let capture else { return byDefault }
        return CaptureSession.Mode(rawValue: capture)
    }
}


/// `--history` (probe, soak, resume, run, demo, analyze add their finished run to it; `sonde history` reads it).
struct HistoryOption: ParsableArguments {
    @Option(name: .customLong("history"), help: ArgumentHelp(
        "The run history, a SQLite file: a finished run is added to it (sonde history reads it; default there: <output-dir>/history.sqlite).",
        valueName: "db"))
    var historyPath: String?

    /// Adds the finished run in `folder` to `--history` (nothing without it; `RunSettings.record`).
    func record(_ folder: RunFolder) { RunSettings.record(folder, inHistory: historyPath) }
}

/// `--print-suite` (probe, soak, resume): print the suite entry of this command line instead of running it.
struct PrintSuiteOption: ParsableArguments {
    @Flag(name: .customLong("print-suite"), help: "Print the suite entry (YAML) equivalent to this command line, and run nothing: paste it under `checks:` of a suite file for `sonde run`.")
    var printSuite = false
}

extension CheckSpec {
    /// The spec's first problem as the usage error the command line shows (`--count must be …`).
    func validateForCommandLine() throws {
        if let problem = problems().first { throw ValidationError(problem.description) }
    }
}

/// `--progress` (every command that runs work: probe, soak, resume, run, demo, audit).
struct ProgressOption: ParsableArguments {
    @Option(name: .customLong("progress"), help: ArgumentHelp(
        "How progress shows while the run works: auto (the terminal view when stderr is a terminal, else a plain status line "
            + "every 5 s), plain (status lines always), off (none). Status lines go to stdout (stderr with --json).",
        valueName: "auto|plain|off"))
    var mode = ProgressMode.auto

    /// `settings` with this progress mode.
    func applied(to settings: RunSettings) -> RunSettings {
        var settings = settings
        settings.progress = mode
        return settings
    }
}

/// `--summary-md` (every command that writes a run folder, and `sonde report`): the run's
/// Markdown summary for a CI step; also appended to `$GITHUB_STEP_SUMMARY` when that is set.
struct SummaryMarkdownOption: ParsableArguments {
    @Option(name: .customLong("summary-md"), help: ArgumentHelp(
        "Write a Markdown summary of the run to this file (verdict, thresholds, a row per request, the baseline comparison, "
            + "the link, the first failures); when \(MarkdownSummaryFile.stepSummaryVariable) is set it is appended there too.",
        valueName: "file"))
    var path: String?

    /// Where the summary goes: the file, and the step summary the environment names (nil when unset or empty).
    var target: MarkdownSummaryFile {
        let step = ProcessInfo.processInfo.environment[MarkdownSummaryFile.stepSummaryVariable]
        return MarkdownSummaryFile(path: path, stepSummaryPath: step?.isEmpty == false ? step : nil)
    }

    func validate() throws {
        if let path, path.isEmpty || path.hasSuffix("/") { throw ValidationError("--summary-md needs a file name (got '\(path)')") }
    }
}

/// `--json` (every command that writes a run folder, and `sonde report`).
struct JSONOutputOption: ParsableArguments {
    @Flag(name: .long, help: "Print the report document (JSON) on stdout instead of the terminal view.")
    var json = false
}

/// `--threshold`, `--prom`, `--baseline`: how a run is judged, exported and compared (the run
/// commands; `sonde report`, whose thresholds replace the run's own).
struct JudgementOptions: ParsableArguments {
    @Option(name: .customLong("threshold"), help: ArgumentHelp(
        "A pass/fail rule on the run's metrics (repeatable), e.g. 'wait.p95<200ms', 'errors.rate<1%'. A failing one exits 99 "
            + "(sonde report: evaluated instead of the run's own).",
        discussion: "Metrics: \(ThresholdMetric.catalogue). Durations take a unit (us, ms, s, m, h, d); rates % or a fraction.",
        valueName: "expr"))
    var thresholdExpressions: [String] = []

    @Option(name: .customLong("prom"), help: ArgumentHelp(
        "Also write the run's metrics in Prometheus text format to this file (for node_exporter's textfile collector).",
        valueName: "file"))
    var prometheusPath: String?

    @Option(name: .customLong("baseline"), help: ArgumentHelp(
        "Compare this run with an earlier run folder, with 'previous' (the newest finished run of the same checks and URLs: in --history, "
            + "else in --output-dir), or with history:CHECK:median:N (the median of a check's newest N runs in --history), "
            + "phase by phase; enables .delta thresholds (e.g. 'wait.p95.delta<10%'). A run of other checks or URLs is refused (64).",
        valueName: "run-folder|previous|history:…"))
    var baselinePath: String?

    @Flag(name: .customLong("baseline-any"), help: "Compare with a --baseline run of other checks or URLs too (refused without it).")
    var baselineAny = false

    /// The parsed thresholds (`validate` has already rejected malformed ones).
    var thresholds: [Threshold] { (try? parsedThresholds(thresholdExpressions)) ?? [] }

    func validate() throws {
        _ = try parsedThresholds(thresholdExpressions)
        try Self.validateBaseline(baselinePath)
    }

    /// A `--baseline history:…` that is malformed, as the usage error it is (a run folder is checked when read).
    static func validateBaseline(_ baselinePath: String?) throws {
        guard let baselinePath, HistoryBaseline.isHistoryBaseline(baselinePath) else { return }
        do throws(TaskError) { _ = try HistoryBaseline(parsing: baselinePath) } catch { throw ValidationError(error.message) }
    }
}
