import NIOCore
import NIOWebSocket
import SondeCore

/// One logical connection of a soak: opens, stays open while it can, and when it breaks waits
/// the backoff policy's delay and opens again, until the soak ends or `--max-attempts` attempts
/// in a row have failed.
///
/// An attempt counts as failed when its handshake fails or when it ends before it was up for
/// `--stable-after`; an attempt that stayed up that long resets the count (and so the delay).
///
/// Threading: every method runs on `loop`; `finished` completes once, when the connection has
/// stopped for good (its last attempt reported to the sink).
final class SoakConnection {
    let index: Int
    let loop: EventLoop
    let finished: EventLoopPromise<Void>

    /// The soak's options, handshaker, sink and clock: one instance for every connection.
    private let shared: SoakConnection.Shared
    private var options: SoakOptions { shared.options }
    private var handshaker: WebSocketHandshaker { shared.handshaker }
    private var sink: SoakEventSink { shared.sink }
    private var clock: SoakClock { shared.clock }
    private var random = SystemRandomNumberGenerator()

    private enum State { case idle, waiting, handshaking, open, done }
    private var state = State.idle
    private var stopping = false
    private var attempt: SoakAttempt?
    private var attemptNumber = 0
    private var failuresInRow = 0
    /// When the current outage began (monotonic ns): the disconnect of the connection's last open
    /// attempt. Nil while open, and before the connection first opened (failed first attempts are
    /// no outage: the attempt that opens then is no reconnect and has no time to recover).
    private var downSince: UInt64?
    private var openedAtNanos: UInt64?
    private var session: SoakSessionHandler?
    private var reconnect: Scheduled<Void>?
    private var sequences = MessageSequencer()

    /// What every connection of a soak reads and none changes, held once by reference: a copy
    /// of the options and the handshaker (which holds them again) in each connection cost about
    /// 1 KiB per connection (heaptrack, 2,000 held connections).
    final class Shared {
        let options: SoakOptions
        let handshaker: WebSocketHandshaker
        let sink: SoakEventSink
        let clock: SoakClock

        init(options: SoakOptions, handshaker: WebSocketHandshaker, sink: SoakEventSink, clock: SoakClock) {
            self.options = options
            self.handshaker = handshaker
            self.sink = sink
            self.clock = clock
        }
    }

    init(index: Int, loop: EventLoop, shared: SoakConnection.Shared) {
        self.index = index
        self.loop = loop
        self.shared = shared
        finished = loop.makePromise()
    }

    /// Starts the first attempt after `delay` (the ramp).
    func start(after delay: TimeAmount) {
        state = .waiting
        reconnect = loop.scheduleTask(in: delay) { [self] in beginAttempt(backoffMs: nil, failure: nil) }
    }

    /// Ends the connection: an open one is closed with 1000, a waiting one stops waiting.
    func stop() {
        guard !stopping else { return }
        stopping = true
        switch state {
        case .idle, .waiting:
            reconnect?.cancel()
            done()
        case .handshaking:
            break  // finishes when the handshake does
        case .open:
            session?.closeGracefully()
        case .done:
            break
        }
    }

    private func beginAttempt(backoffMs: Double?, failure: Int?) {
        guard !stopping else { return done() }
        attemptNumber += 1
        state = .handshaking
        attempt = SoakAttempt(connection: index, attempt: attemptNumber, startedAt: clock.timestamp(),
                              backoffMs: backoffMs, backoffFailure: failure)
        let spanID = SpanID.random()
        attempt?.spanId = spanID
        let traceparent = options.traceID.map { [HeaderField(name: "traceparent", value: SpanID.traceparent(trace: $0, span: spanID))] } ?? []
        let number = attemptNumber
        handshaker.open(on: loop, extraHeaders: traceparent, makeSession: { [self] channel, _ in
            let session = SoakSessionHandler(
                config: options.config, maxFrameSize: options.maxFrameSize, connection: index, attempt: number, clock: clock, sink: sink,
                sequences: sequences, subprotocol: options.subprotocol?.make(), onEnd: { [self] ending, sequences in
                    self.sequences = sequences
                    sessionEnded(ending)
                })
            self.session = session
            return session
        }, completion: { [self] result, handshake in
            handshakeFinished(result, handshake)
        })
    }

    private func handshakeFinished(_ result: Result<Channel, TaskError>, _ handshake: WebSocketHandshake) {
        guard var attempt else { return }
        attempt.handshake = handshake
        let now = monotonicNanos()
        switch result {
        case .success:
            state = .open
            openedAtNanos = now
            attempt.openedAt = clock.timestamp(at: now)
            if let downSince {
                attempt.timeToRecoverMs = Double(now &- downSince) / 1e6
                self.downSince = nil
            }
            self.attempt = attempt
            sink.attempt(attempt)
            if stopping {
                session?.closeGracefully()
            } else {
                startSnapshots()
            }
        case .failure(let error):
            session = nil
            attempt.error = error
            attempt.cause = .handshakeFailure
            attempt.closedAt = clock.timestamp(at: now)
            self.attempt = attempt
            attemptEnded(upForNanos: nil)
        }
    }

    /// While open, the attempt is journalled again every `snapshotInterval` with its counts so
    /// far, so a run killed mid-soak still has them (one line per connection per interval: the
    /// interval grows with the number of connections, 10 s per 1,000).
    private func startSnapshots() {
        let interval = TimeAmount.nanoseconds(Int64(max(10, Double(options.config.connections) / 100) * 1e9))
        let number = attemptNumber
        // A chain of entries in the loop's queue of deadlines an interval away (one NIO timer for
        // every connection of the loop), which ends with the attempt.
        let queue = LoopDeadlineQueue.on(loop, delay: interval)
        func next() {
            queue.add { [weak self] in
                guard let self, var attempt = self.attempt, attempt.attempt == number, attempt.cause == nil,
                      let session = self.session else { return }
                let (pings, messages, parts) = session.snapshot
                attempt.pings = pings
                attempt.messages = messages
                attempt.parts = parts
                self.sink.attempt(attempt)
                next()
            }
        }
        next()
    }

    private func sessionEnded(_ ending: SoakSessionHandler.Ending) {
        guard var attempt else { return }
        session = nil
        let now = monotonicNanos()
        attempt.record(ending, at: clock.timestamp(at: now))
        self.attempt = attempt
        if ending.cause != .runEnded && downSince == nil { downSince = now }
        attemptEnded(upForNanos: openedAtNanos.map { now &- $0 })
    }

    /// Reports the ended attempt and decides what comes next: stop, give up, or wait and retry.
    private func attemptEnded(upForNanos: UInt64?) {
        guard var attempt else { return }
        openedAtNanos = nil
        if stopping || attempt.cause == .runEnded {
            sink.attempt(attempt)
            return done()
        }
        if let up = upForNanos, Double(up) / 1e9 >= options.config.stableAfterS { failuresInRow = 0 }
        failuresInRow += 1
        if let limit = options.config.maxAttempts, failuresInRow >= limit {
            attempt.gaveUp = true
            self.attempt = attempt
            sink.attempt(attempt)
            return done()
        }
        sink.attempt(attempt)
        let failure = failuresInRow
        let delay = options.config.backoff.delayMs(failure: failure, using: &random)
        state = .waiting
        reconnect = loop.scheduleTask(in: .nanoseconds(Int64(delay * 1e6))) { [self] in
            beginAttempt(backoffMs: delay, failure: failure)
        }
    }

    private func done() {
        guard state != .done else { return }
        state = .done
        finished.succeed(())
    }
}
