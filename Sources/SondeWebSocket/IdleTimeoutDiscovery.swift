import NIOCore
import NIOPosix
import NIOWebSocket
import SondeCore

/// Finds how long a connection may stay silent before something on the path (a load balancer,
/// a NAT, the server) cuts it: opens one connection per planned silence at once, sends nothing
/// on them, and at the end of each one's silence sends a ping. A connection that answers
/// survived; one that was closed, reset or dropped before (or does not answer within the pong
/// timeout) was cut, and the time from its last frame to the cut is what is reported.
///
/// Silences: a ladder from 1 s up to `maxIdleS` (1, 2, 3, 5, 8, 10, 15, 20, 30, 45, 60, 90 s, then
/// every minute), so the answer brackets the cut; all run in parallel, so the discovery takes
/// `maxIdleS` plus the pong timeout.
public struct IdleTimeoutDiscovery: Sendable {
    public let options: SoakOptions
    public let maxIdleS: Double

    public init(options: SoakOptions, maxIdleS: Double) {
        self.options = options
        self.maxIdleS = maxIdleS
    }

    /// The planned silences, seconds, ascending, ending with `maxIdleS`.
    public static func ladder(upTo maxIdleS: Double) -> [Double] {
        var steps: [Double] = [1, 2, 3, 5, 8, 10, 15, 20, 30, 45, 60, 90]
        var next = 120.0
        while next < maxIdleS { steps.append(next); next += 60 }
        return steps.filter { $0 < maxIdleS } + [maxIdleS]
    }

    /// Runs the discovery; every probe connection is reported to `sink` as an attempt.
    public func run(engine: SoakEngine, shouldStop: @escaping @Sendable () -> Bool) async -> IdleTimeoutFindings {
        let silences = Self.ladder(upTo: maxIdleS)
        let results = MutexBox([Int: IdleTimeoutFindings.Probe]())
        let group = engine.group
        var probes: [IdleProbe] = []
        for (index, silence) in silences.enumerated() {
            let probe = IdleProbe(index: index, silence: silence, loop: group.next(), engine: engine) { result in
                results.withLock { $0[index] = result }
            }
            probes.append(probe)
            probe.loop.execute { probe.start() }
        }
        let deadline = monotonicNanos() + UInt64((maxIdleS + options.config.pongTimeoutS + options.config.connectTimeoutS + 2) * 1e9)
        while monotonicNanos() < deadline && results.withLock({ $0.count }) < silences.count && !shouldStop() {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        for probe in probes { probe.loop.execute { probe.stop() } }
        try? await Task.sleep(nanoseconds: 300_000_000)
        let found = results.withLock { $0 }
        let ordered = silences.indices.map { found[$0] ?? .init(plannedS: silences[$0], survived: false, cutAfterS: nil,
                                                               cause: "not finished", closeCode: nil) }
        let survived = ordered.filter(\.survived).map(\.plannedS).max()
        let cuts = ordered.filter { !$0.survived && $0.cutAfterS != nil }
        let shortest = cuts.min { ($0.cutAfterS ?? 0) < ($1.cutAfterS ?? 0) }
        return IdleTimeoutFindings(maxIdleS: maxIdleS, longestSurvivedS: survived, shortestCutS: shortest?.cutAfterS,
                                   cutBy: shortest.map { ($0.cause ?? "?") + ($0.closeCode.map { " \($0)" } ?? "") },
                                   probes: ordered)
    }
}

/// One silent connection of the discovery. Lives on `loop`.
final class IdleProbe {
    let index: Int
    let silence: Double
    let loop: EventLoop
    private let engine: SoakEngine
    private let report: (IdleTimeoutFindings.Probe) -> Void
    private var session: SoakSessionHandler?
    private var openedAt: UInt64?
    private var wake: Scheduled<Void>?
    private var reported = false

    init(index: Int, silence: Double, loop: EventLoop, engine: SoakEngine, report: @escaping (IdleTimeoutFindings.Probe) -> Void) {
        self.index = index
        self.silence = silence
        self.loop = loop
        self.engine = engine
        self.report = report
    }

    func start() {
        var config = engine.options.config
        config.pingIntervalS = 0  // silent: the single ping is sent by hand after the silence
        config.messageRate = 0
        var attempt = SoakAttempt(connection: index, attempt: 1, startedAt: engine.clock.timestamp(), backoffMs: nil, backoffFailure: nil)
        engine.handshaker.open(on: loop, makeSession: { [self] _, _ in
            let session = SoakSessionHandler(
                config: config, maxFrameSize: engine.options.maxFrameSize, connection: index, attempt: 1, clock: engine.clock, sink: engine.sink,
                sequences: MessageSequencer(), onEnd: { [self] ending, _ in
                    attempt.record(ending, at: engine.clock.timestamp())
                    engine.sink.attempt(attempt)
                    ended(ending)
                })
            session.onPong = { [weak self] in self?.answered() }
            self.session = session
            return session
        }, completion: { [self] result, handshake in
            attempt.handshake = handshake
            switch result {
            case .success:
                openedAt = monotonicNanos()
                attempt.openedAt = engine.clock.timestamp()
                engine.sink.attempt(attempt)
                wake = loop.scheduleTask(in: .nanoseconds(Int64(silence * 1e9))) { [self] in session?.sendPing() }
            case .failure(let error):
                attempt.error = error
                attempt.cause = .handshakeFailure
                attempt.closedAt = engine.clock.timestamp()
                engine.sink.attempt(attempt)
                finish(.init(plannedS: silence, survived: false, cutAfterS: nil, cause: "handshakeFailure: \(error.code.rawValue)", closeCode: nil))
            }
        })
    }

    /// A pong after the silence: survived, close politely.
    func answered() {
        finish(.init(plannedS: silence, survived: true, cutAfterS: nil, cause: nil, closeCode: nil))
        session?.closeGracefully(code: 1000, reason: "idle probe finished", cause: .probeFinished)
    }

    private func ended(_ ending: SoakSessionHandler.Ending) {
        wake?.cancel()
        if ending.pings.answered > 0 { return finish(.init(plannedS: silence, survived: true, cutAfterS: nil, cause: nil, closeCode: nil)) }
        guard let openedAt else { return }
        // Cut before the ping: the silence that was cut is the time from the last frame (the
        // upgrade) to the cut. Cut noticed by the ping (no pong): at most the planned silence.
        let after = ending.cause == .pongTimeout ? silence : Double(monotonicNanos() &- openedAt) / 1e9
        finish(.init(plannedS: silence, survived: false, cutAfterS: after, cause: ending.cause.rawValue, closeCode: ending.closeCode))
    }

    private func finish(_ result: IdleTimeoutFindings.Probe) {
        guard !reported else { return }
        reported = true
        report(result)
    }

    func stop() {
        wake?.cancel()
        session?.closeGracefully(code: 1000, reason: "idle probe finished", cause: .probeFinished)
    }
}
