import SondeCore
import SondeSuite

/// A blackbox prober (dns, icmp, grpc) whose whole probe is blocking work on one thread: the
/// common part of those probers. `probe` runs `run` on a thread of `ProbeThreads`;
/// `beginRun` opens the probe's run (deadline, debug log) with blackbox's first log line.
///
/// Threading: `run` blocks its calling thread for at most `timeout` seconds; `probe` may be
/// called from any task.
protocol BlockingBlackboxProber: Sendable {
    var module: BlackboxModule { get }
    var moduleName: String { get }
    /// The probe's time limit (s).
    var timeout: Double { get }
    /// Whether the probe's log is kept (`debug=true`).
    var debug: Bool { get }
    /// The prober's name in blackbox's log (`probe=dns`).
    static var kind: String { get }

    /// The whole probe, on the calling thread.
    func run(target: String) -> BlackboxProber.Outcome
}

extension BlockingBlackboxProber {
    func probe(target: String) async -> BlackboxProber.Outcome {
        await WorkerPool.probeThreads.run { run(target: target) }
    }

    /// A new probe run for `target`, its log begun as blackbox begins it.
    func beginRun(target: String) -> BlackboxProbeRun {
        var run = BlackboxProbeRun(timeout: timeout, log: BlackboxProber.Log(target: target, module: moduleName, enabled: debug))
        run.log.say("Beginning probe", "probe=\(Self.kind) timeout_seconds=\(timeout)")
        return run
    }
}
