#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOWebSocket
import SondeCore

/// One open WebSocket connection of a soak: sends a sequence-numbered ping every ping interval
/// and measures the pong's RTT at the frame level (a pong missing after the pong timeout closes
/// the connection), answers server pings, sends sequence-numbered messages at the message rate
/// and checks every echo (lost, duplicated, reordered, corrupted), and works out why the
/// connection ended: a close frame (with code, reason and who sent it first), a TCP reset, an EOF
/// without a close frame, a pong timeout, a protocol error or a frame too large (sonde fails the
/// connection: its close frame carries the RFC's code and the rule or limit broken), or the end
/// of the run. Data messages without sonde's header are the server's own (`MessageSequencer`).
///
/// With a subprotocol (`SoakSubprotocol`) the data messages are the
/// subprotocol's to answer, and the keepalive sends its ping message instead of a ping frame:
/// its `.pong` answers the oldest outstanding ping, so RTTs, missed and unanswered pings count
/// the same way.
///
/// Threading: lives on its channel's event loop; reports to its `SoakConnection` on that loop.
///
/// Pings and pong timeouts are driven by the loop's `KeepaliveClock`, not by a timer each; the
/// message timer is never cancelled: it checks, when it fires, whether the session is still open
/// (cancelling a scheduled task costs SwiftNIO a search of its timer heap). Frames go out
/// encoded by `ClientFrame` into one reused buffer, with masking keys from the loop's
/// `MaskingKeySource`: a ping allocates nothing and is one write.
final class SoakSessionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// What the connection's owner learns when the session ends.
    struct Ending {
        var cause: DisconnectCause
        var closeCode: Int?
        var closeReason: String?
        var closedBy: String?
        var pings: SoakAttempt.Pings
        var messages: SoakAttempt.Messages
        /// The subprotocol's record (`SoakSubprotocol.parts`); empty without one.
        var parts: ModelParts
    }

    private let config: SoakConfig
    /// Largest frame or reassembled message accepted from the server, bytes (for the reason sent).
    private let maxFrameSize: Int
    private let connection: Int
    private let attempt: Int
    private let clock: SoakClock
    private let sink: SoakEventSink
    private var sequences: MessageSequencer
    private let onEnd: (Ending, MessageSequencer) -> Void
    /// The protocol spoken inside the connection, nil for a plain soak.
    private let subprotocol: SoakSubprotocol?
    /// Which `.wake` request is the current one (a later request replaces an earlier one).
    private var wakeGeneration: UInt64 = 0

    private var context: ChannelHandlerContext?
    private var pings = SoakAttempt.Pings()
    private var pingSequence: UInt64 = 0
    /// Outstanding pings in the order they were sent: sequence and monotonic send time (ns). A
    /// pong almost always answers the first; each ping leaves by its pong or its pong timeout.
    private var outstandingPings = CircularBuffer<(sequence: UInt64, sentAt: UInt64)>(initialCapacity: 4)

    /// The context frames are written through already encoded (`ClientFrame`): NIO's
    /// `WebSocketFrameEncoder`'s, so that they go on towards the socket past it. Nil when the
    /// pipeline has no such encoder: then frames go through the pipeline as `WebSocketFrame`s.
    private var frameOut: ChannelHandlerContext?
    /// The buffer small frames are encoded into, reused: by the next frame NIO has written the
    /// last one and let it go (if not, writing into it copies it first, as a `ByteBuffer` does).
    private var frameBuffer: ByteBuffer?
    /// Frames with longer payloads get a buffer of their own (the reused one stays small).
    private static let reusedPayloadLimit = 125

    private var sentClose = false
    private var receivedClose = false
    private var closeCode: Int?
    private var closeReason: String?
    private var closedBy: String?
    private var cause: DisconnectCause?
    private var sawReset = false
    private var ended = false
    /// Sonde failed the connection (RFC 6455 §7.1.7): nothing more is read from it.
    private var failed = false

    init(config: SoakConfig, maxFrameSize: Int, connection: Int, attempt: Int, clock: SoakClock, sink: SoakEventSink,
         sequences: MessageSequencer, subprotocol: SoakSubprotocol? = nil, onEnd: @escaping (Ending, MessageSequencer) -> Void) {
        self.config = config
        self.maxFrameSize = maxFrameSize
        self.connection = connection
        self.attempt = attempt
        self.clock = clock
        self.sink = sink
        self.sequences = sequences
        self.onEnd = onEnd
        self.subprotocol = subprotocol
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        frameOut = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        frameBuffer = context.channel.allocator.buffer(capacity: 2 + 4 + Self.reusedPayloadLimit)
        keepalive = KeepaliveClock.on(context.eventLoop, pingIntervalS: config.pingIntervalS, pongTimeoutS: config.pongTimeoutS)
        keepalive?.add(self)
        if config.messageRate > 0 {
            every(.nanoseconds(max(100_000, Int64(1e9 / config.messageRate)))) { $0.sendMessage() }
        }
        if let subprotocol { perform(subprotocol.opened(atNanos: monotonicNanos())) }
    }

    /// Does what the subprotocol asked, in order (nothing once the session failed or ended).
    private func perform(_ actions: [SoakSubprotocolAction]) {
        for action in actions {
            guard let context, !ended, !failed else { return }
            switch action {
            case .send(let text):
                guard !sentClose else { continue }
                var payload = context.channel.allocator.buffer(capacity: text.utf8.count)
                payload.writeString(text)
                send(.text, payload)
            case .pong:
                guard let first = outstandingPings.first else {
                    pings.unsolicitedPongs += 1
                    continue
                }
                outstandingPings.removeFirst()
                pings.answered += 1
                let rtt = Int64((monotonicNanos() &- first.sentAt) / 1000)
                sink.ping(connection: connection, attempt: attempt, atMicros: clock.micros(), rttMicros: rtt)
                onPong?()
            case .eventGap(let nanos):
                sink.eventGap(micros: Int64(clamping: nanos / 1000))
            case .wake(let after):
                wakeGeneration &+= 1
                let generation = wakeGeneration
                context.eventLoop.scheduleTask(in: .nanoseconds(Int64(clamping: min(after, UInt64(Int64.max))))) { [weak self] in
                    guard let self, !self.ended, self.wakeGeneration == generation, let subprotocol = self.subprotocol else { return }
                    self.perform(subprotocol.woke(atNanos: monotonicNanos()))
                }
            case .close(let code, let reason, let cause):
                fail(WebSocketViolation(cause: cause, code: code, reason))
            }
        }
    }

    /// Runs `body` every `interval` while the session is open (a chain of one-shot timers).
    private func every(_ interval: TimeAmount, _ body: @escaping (SoakSessionHandler) -> Void) {
        guard let loop = context?.eventLoop else { return }
        loop.scheduleTask(in: interval) { [weak self] in
            guard let self, !self.ended else { return }
            body(self)
            self.every(interval, body)
        }
    }

    // MARK: Outbound

    private func send(_ opcode: WebSocketOpcode, _ payload: ByteBuffer, promise: EventLoopPromise<Void>? = nil) {
        guard let context else { return }
        let key = nextMaskingKey()
        guard let frameOut else {
            let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: key, data: payload)
            return context.writeAndFlush(wrapOutboundOut(frame), promise: promise)
        }
        if payload.readableBytes <= Self.reusedPayloadLimit, var buffer = frameBuffer {
            frameBuffer = nil  // so that the buffer is uniquely referenced while it is written into
            buffer.clear()
            ClientFrame.write(opcode, payload: payload, key: key, into: &buffer)
            frameBuffer = buffer
            frameOut.writeAndFlush(NIOAny(buffer), promise: promise)
        } else {
            var buffer = context.channel.allocator.buffer(capacity: 14 + payload.readableBytes)
            ClientFrame.write(opcode, payload: payload, key: key, into: &buffer)
            frameOut.writeAndFlush(NIOAny(buffer), promise: promise)
        }
    }

    /// A masking key from the loop's source (the system's CSPRNG, drawn in blocks).
    private func nextMaskingKey() -> WebSocketMaskingKey {
        if let keepalive { return keepalive.maskingKeys.key() }
        return .random()
    }

    /// The counts of this connection so far, for a journal snapshot of an open attempt.
    var snapshot: (pings: SoakAttempt.Pings, messages: SoakAttempt.Messages, parts: ModelParts) {
        (pings, sequences.current, subprotocol?.parts ?? ModelParts())
    }

    /// Called when a pong answers one of this session's pings (the idle probe listens).
    var onPong: (() -> Void)?

    /// The loop's keepalive clock, which sends this session's pings and watches their pongs.
    private var keepalive: KeepaliveClock?

    /// Whether the session has ended (its `KeepaliveClock` then drops it).
    var hasEnded: Bool { ended }

    /// Sends a ping now (the keepalive clock's, or the idle-timeout probe's single one) and has
    /// the keepalive clock watch for its pong.
    func sendPing() {
        guard let context, !sentClose, !receivedClose else { return }
        pingSequence += 1
        let sequence = pingSequence
        let now = monotonicNanos()
        outstandingPings.append((sequence, now))
        pings.sent += 1
        if let subprotocol {
            var payload = context.channel.allocator.buffer(capacity: subprotocol.pingMessage.utf8.count)
            payload.writeString(subprotocol.pingMessage)
            send(.text, payload)
        } else if let frameOut, var buffer = frameBuffer {
            // The common case without a payload buffer: the frame is encoded straight into the reused one.
            frameBuffer = nil
            buffer.clear()
            ClientFrame.writePing(sequence: sequence, key: nextMaskingKey(), into: &buffer)
            frameBuffer = buffer
            frameOut.writeAndFlush(NIOAny(buffer), promise: nil)
        } else {
            var payload = context.channel.allocator.buffer(capacity: 8)
            payload.writeInteger(sequence)
            send(.ping, payload)
        }
        keepalive?.expectPong(self, sequence: sequence, sentAt: now)
    }

    private func sendMessage() {
        guard let context, !sentClose, !receivedClose else { return }
        var payload = context.channel.allocator.buffer(capacity: config.messageSize)
        sequences.writeNext(size: config.messageSize, into: &payload, at: monotonicNanos())
        send(.binary, payload)
    }

    /// Closes with a close frame (the run ended): waits up to a second for the server's answer.
    func closeGracefully(code: UInt16 = 1000, reason: String = "soak finished", cause: DisconnectCause = .runEnded) {
        guard let context, !ended else { return }
        if self.cause == nil { self.cause = cause }
        guard !sentClose else { return }
        sentClose = true
        if !receivedClose {
            closedBy = "client"
            closeCode = Int(code)
            closeReason = reason
        }
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        payload.writeInteger(code)
        payload.writeString(reason)
        send(.connectionClose, payload)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .pong:
            var data = frame.unmaskedData
            guard data.readableBytes == 8, let sequence = data.readInteger(as: UInt64.self),
                  let sentAt = removeOutstandingPing(sequence) else {
                pings.unsolicitedPongs += 1
                return
            }
            pings.answered += 1
            let rtt = Int64((monotonicNanos() &- sentAt) / 1000)
            sink.ping(connection: connection, attempt: attempt, atMicros: clock.micros(), rttMicros: rtt)
            onPong?()
        case .ping:
            pings.serverPings += 1
            if !sentClose { send(.pong, frame.unmaskedData) }
        case .binary, .text:
            let now = monotonicNanos()
            let payload = frame.unmaskedData
            if frame.opcode == .text, !payload.withUnsafeReadableBytes({ String(validating: $0, as: UTF8.self) != nil }) {
                return fail(WebSocketViolation(code: 1007, "a text message that is not valid UTF-8 (RFC 6455 §8.1)"))
            }
            if let subprotocol {
                return perform(subprotocol.received(Array(payload.readableBytesView), text: frame.opcode == .text, atNanos: now))
            }
            if let rtt = sequences.receive(payload, at: now) {
                sink.echo(rttMicros: Int64(rtt / 1000))
            }
        case .connectionClose:
            var data = frame.unmaskedData
            if !sentClose {
                // The server closed first: remember its code and reason, answer with its code (RFC 6455 §5.5.1).
                receivedClose = true
                closedBy = "server"
                closeCode = data.readInteger(as: UInt16.self).map(Int.init)
                closeReason = data.readString(length: min(data.readableBytes, 123))
                cause = .closeFrame
                sentClose = true
                var answer = context.channel.allocator.buffer(capacity: 2)
                answer.writeInteger(UInt16(closeCode ?? 1000))
                let written = context.eventLoop.makePromise(of: Void.self)
                send(.connectionClose, answer, promise: written)
                written.futureResult.whenComplete { _ in context.close(promise: nil) }
            } else {
                receivedClose = true
                context.close(promise: nil)
            }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let violation = WebSocketViolation(error, maxFrameSize: maxFrameSize) { return fail(violation) }
        if let error = error as? IOError, error.errnoCode == ECONNRESET { sawReset = true }
        context.close(promise: nil)
    }

    /// Fails the connection (RFC 6455 §7.1.7): records the violation's cause and, unless a close
    /// frame was already sent, sends one with its code and reason; then closes TCP once that is
    /// written, without waiting for the server's answer. Frames still arriving are ignored.
    private func fail(_ violation: WebSocketViolation) {
        guard let context, !ended, !failed else { return }
        failed = true
        if cause == nil { cause = violation.cause }
        guard !sentClose else { return context.close(promise: nil) }
        sentClose = true
        closedBy = "client"
        closeCode = Int(violation.code)
        closeReason = violation.reason
        var payload = context.channel.allocator.buffer(capacity: 2 + violation.reason.utf8.count)
        payload.writeInteger(violation.code)
        payload.writeString(violation.reason)
        let written = context.eventLoop.makePromise(of: Void.self)
        send(.connectionClose, payload, promise: written)
        written.futureResult.whenComplete { _ in context.close(promise: nil) }
    }

    /// The keepalive clock's pong deadline for ping `sequence`: if it is still unanswered, the
    /// connection is presumed dead.
    func pongTimedOut(_ sequence: UInt64) {
        guard !ended, let context, removeOutstandingPing(sequence) != nil else { return }
        pings.missed += 1
        sink.missedPing(connection: connection, attempt: attempt, atMicros: clock.micros())
        if cause == nil { cause = .pongTimeout }
        // The connection is presumed dead: no close handshake, just drop it and reconnect.
        context.close(promise: nil)
    }

    /// Takes ping `sequence` off the outstanding ones; its send time (monotonic ns), nil if it
    /// was not outstanding.
    private func removeOutstandingPing(_ sequence: UInt64) -> UInt64? {
        guard let index = outstandingPings.firstIndex(where: { $0.sequence == sequence }) else { return nil }
        if index == outstandingPings.startIndex { return outstandingPings.removeFirst().sentAt }
        return outstandingPings.remove(at: index).sentAt
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    private func finish() {
        guard !ended else { return }
        ended = true
        pings.unanswered = outstandingPings.count
        outstandingPings.removeAll()
        frameOut = nil
        frameBuffer = nil
        let messages = sequences.closeAttempt()
        let finalCause = cause ?? (sawReset ? .tcpReset : .eof)
        subprotocol?.closed(code: closeCode)
        onEnd(Ending(cause: finalCause, closeCode: closeCode, closeReason: closeReason, closedBy: closedBy,
                     pings: pings, messages: messages, parts: subprotocol?.parts ?? ModelParts()), sequences)
        context = nil
    }
}

extension SoakAttempt {
    /// Records how the attempt's open connection ended.
    mutating func record(_ ending: SoakSessionHandler.Ending, at time: Timestamp) {
        closedAt = time
        cause = ending.cause
        closeCode = ending.closeCode
        closeReason = ending.closeReason
        closedBy = ending.closedBy
        pings = ending.pings
        messages = ending.messages
        parts = ending.parts
    }
}
