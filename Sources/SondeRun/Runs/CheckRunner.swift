import SondeCore
import SondeSuite
import SondeOTLP
import SondeReport

/// How one check's run ended, for the run's status (`RunStatus.of`) and the check's own.
public struct CheckOutcome: Sendable {
    /// What stopped the check itself (a recording failure, an engine that could not start, a
    /// resume whose reference download failed); nil when it ran to its end.
    public var error: TaskError?
    /// Some of its work failed (a probe task); soaks and trials are judged by the recorder.
    public var failedWork = false
    /// The engine could not be set up after the run folder was opened (nothing of the check ran):
    /// a single command gives the run up as a usage error, a suite goes on with its next check.
    public var setupFailed = false

    public init(error: TaskError? = nil, failedWork: Bool = false, setupFailed: Bool = false) {
        self.error = error
        self.failedWork = failedWork
        self.setupFailed = setupFailed
    }
}

/// Where a check runs: its name in a suite (nil for a plain command), and whether other checks
/// run beside it (then its terminal lines carry its name and no TTY status line is drawn).
public struct CheckContext: Sendable {
    public var name: String?
    public var overlapping = false
    /// The emulated link the check runs over, up for the check's whole run; nil without one.
    public var link: CheckLink? = nil

    /// The prefix of the check's terminal lines.
    public var linePrefix: String { overlapping ? "[\(name ?? "")] " : "" }
}

/// The engine of one check of some kind (`CheckKind`), driven by `CheckDriver` inside a run's
/// lifecycle: prepared before the run folder exists, run once, its end rendered for a plain
/// command. Each kind's runner does its own work and terminal lines; the driver owns everything
/// around it (the folder, the capture, the signals, the link, the status, the report).
///
/// Threading: `prepare` and `trace` are called from the driver's task before the run opens;
/// `run` from the task that runs the check (checks of a suite's `parallel` run on tasks of their
/// own); the properties are read from the driver's task.
public protocol CheckRunner {
    /// The check's kind (the registered type whose `runner(for:settings:)` made this engine).
    var kind: any CheckKind.Type { get }

    /// Sets up what can fail before any run folder exists (a usage error then).
    /// - Parameter localPorts: the block a capture's filter names; the check's connections bind
    ///   to it (nil without a capture; a runner whose connections cannot bind leaves it).
    mutating func prepare(redactor: Redactor, localPorts: ClosedRange<Int>?) throws(TaskError)

    /// `--traceparent`: the check's requests carry the run's trace (`context.traceIDHex`), each
    /// with the span of what it belongs to, or the run's root span (`context.traceparent`).
    mutating func trace(_ context: OTLPTraceContext)

    /// Warnings the run's report carries because of this check.
    var warnings: [String] { get }

    /// Whether the check skips TLS verification (the run's `insecure`).
    var insecure: Bool { get }

    /// The check's URLs and `--resolve` pins as given, unresolved: an emulated link decides from
    /// them whether the check needs more than the host's loopback (`CheckLink.reachesLoopbackOnly`)
    /// without asking a resolver on the host (the check's names are resolved inside the link only).
    var targets: (urls: [String], resolve: [String]) { get }

    /// Where the check's flows go, for a capture's filter (names resolved by the host's resolver).
    var endpoints: [(address: String, port: Int)] { get }

    /// Whether the check records probe tasks, which the run's HAR holds (its path is listed).
    var recordsHAR: Bool { get }

    /// What the terminal says of a plain command's run that Ctrl-C ended.
    var interruptedNote: String { get }

    /// Runs the check: its work recorded through `lifecycle.recorder` under `context.name`, over
    /// `context.link` when it has one; ends early when `lifecycle.interrupted`.
    func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome

    /// A plain command's end on the terminal: the summary, the soak, the trials' totals (a suite
    /// prints a line per check instead).
    func render(_ finished: RunOutcome, _ renderer: TerminalRenderer)
}

extension CheckRunner {
    /// The check's kind as reports carry it (`CheckKind.name`).
    public var kindName: String { kind.name }

    /// Nothing to set up.
    public mutating func prepare(redactor: Redactor, localPorts: ClosedRange<Int>?) throws(TaskError) {}
    /// No request carries the trace.
    public mutating func trace(_ context: OTLPTraceContext) {}
    public var warnings: [String] { [] }
    public var recordsHAR: Bool { false }
    public var interruptedNote: String { "the report holds what the check recorded before" }
}
