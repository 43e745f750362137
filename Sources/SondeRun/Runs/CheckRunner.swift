import SondeCore
import SondeOTLP
import SondeReport

/// How one check's run ended, for the run's status (`RunStatus.of`) and the check's own.
struct CheckOutcome: Sendable {
    /// What stopped the check itself (a recording failure, an engine that could not start, a
    /// resume whose reference download failed); nil when it ran to its end.
    var error: TaskError?
    /// Some of its work failed (a probe task); soaks and trials are judged by the recorder.
    var failedWork = false
    /// The engine could not be set up after the run folder was opened (nothing of the check ran):
    /// a single command gives the run up as a usage error, a suite goes on with its next check.
    var setupFailed = false
}

/// Where a check runs: its name in a suite (nil for a plain command), and whether other checks
/// run beside it (then its terminal lines carry its name and no TTY status line is drawn).
struct CheckContext {
    var name: String?
    var overlapping = false
    /// The emulated link the check runs over, up for the check's whole run; nil without one.
    var link: CheckLink? = nil

    /// The prefix of the check's terminal lines.
    var linePrefix: String { overlapping ? "[\(name ?? "")] " : "" }
}

/// The engine of one check, driven by `CheckDriver` inside a run's lifecycle. Each kind's runner
/// does its own work and terminal lines; the driver owns everything around it.
public enum CheckRunner {
    case probe(ProbeCheckRunner)
    case soak(SoakCheckRunner)
    case resume(ResumeCheckRunner)
    case audit(AuditCheckRunner)

    var kind: String {
        switch self {
        case .probe: return "probe"
        case .soak: return "soak"
        case .resume: return "resume"
        case .audit: return "audit"
        }
    }

    /// Sets up what can fail before any run folder exists (a usage error then).
    /// - Parameter localPorts: the block a capture's filter names, the run's connections bind to it.
    mutating func prepare(redactor: Redactor, localPorts: ClosedRange<Int>?) throws(TaskError) {
        switch self {
        case .probe(var runner):
            try runner.prepare(redactor: redactor, localPorts: localPorts)
            self = .probe(runner)
        case .soak(var runner):
            runner.prepare(localPorts: localPorts)
            self = .soak(runner)
        case .resume(var runner):
            try runner.prepare(localPorts: localPorts)
            self = .resume(runner)
        case .audit:
            // The audit's handshakes bind no port block: a capture of the run does not see them.
            break
        }
    }

    /// `--traceparent`: a probe check's requests carry the run's root span as their parent; a
    /// resume check's trial requests each carry their own leg's span (`ResumeLeg.spanId`), a
    /// soak's handshakes their attempt's (`SoakAttempt.spanId`); audits go without it.
    mutating func trace(_ context: OTLPTraceContext) {
        switch self {
        case .probe(var runner):
            runner.addRequestHeader(HeaderField(name: "traceparent", value: context.traceparent))
            self = .probe(runner)
        case .resume(var runner):
            runner.trace(traceID: context.traceIDHex)
            self = .resume(runner)
        case .soak(var runner):
            runner.trace(traceID: context.traceIDHex)
            self = .soak(runner)
        case .audit:
            break
        }
    }

    /// Warnings the run's report carries because of this check.
    var warnings: [String] {
        switch self {
        case .probe(let runner): return runner.warnings
        case .soak(let runner): return runner.warnings
        case .resume, .audit: return []
        }
    }

    var insecure: Bool {
        switch self {
        case .probe(let runner): return runner.groups.contains { $0.options.insecure }
        case .soak(let runner): return runner.options.config.insecure
        case .resume(let runner): return runner.settings.insecure
        // The audit's HTTP probes skip verification by design; cert.chain judges the chain.
        case .audit: return false
        }
    }

    /// The check's URLs and `--resolve` pins as given, unresolved: an emulated link decides from
    /// them whether the check needs more than the host's loopback (`CheckLink.reachesLoopbackOnly`)
    /// without asking a resolver on the host (the check's names are resolved inside the link only).
    var targets: (urls: [String], resolve: [String]) {
        switch self {
        case .probe(let runner): return (runner.groups.flatMap(\.urls), runner.groups.flatMap(\.options.resolve))
        case .soak(let runner): return ([runner.url], [])
        case .resume(let runner): return ([runner.url], runner.settings.resolve)
        case .audit(let runner): return (runner.urls, [])
        }
    }

    /// Where the check's flows go, for a capture's filter (names resolved by the host's resolver).
    var endpoints: [(address: String, port: Int)] {
        switch self {
        case .probe(let runner): return runner.endpoints
        case .soak(let runner): return runner.endpoints
        case .resume(let runner): return runner.endpoints
        case .audit(let runner): return runner.endpoints
        }
    }

    func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome {
        switch self {
        case .probe(let runner): return await runner.run(in: lifecycle, context)
        case .soak(let runner): return await runner.run(in: lifecycle, context)
        case .resume(let runner): return await runner.run(in: lifecycle, context)
        case .audit(let runner): return await runner.run(in: lifecycle, context)
        }
    }

    /// A plain command's end on the terminal: the summary, the soak, the trials' totals (a suite prints a line per check instead).
    func render(_ finished: RunOutcome, _ renderer: TerminalRenderer) {
        switch self {
        case .probe(let runner): runner.render(finished, renderer)
        case .soak(let runner): runner.render(finished, renderer)
        case .resume(let runner): runner.render(finished, renderer)
        case .audit(let runner): runner.render(finished, renderer)
        }
    }
}
