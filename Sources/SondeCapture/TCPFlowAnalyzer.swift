import SondeCore

/// Groups TCP segments into connections and counts what Wireshark's TCP analysis counts, with
/// its definitions (Wireshark User's Guide, "TCP Analysis"), so that the numbers can be checked
/// against tshark on the same file:
///
/// - keep-alive: 0 or 1 payload byte at one less than the next expected sequence number, no SYN/FIN/RST;
/// - zero window: window field 0, no SYN/FIN/RST;
/// - duplicate ACK: no payload, non-zero window equal to the previous one, sequence at the next
///   expected one, the same ACK number as before, no SYN/FIN/RST, and not the answer to a keep-alive;
/// - for a segment with payload or SYN/FIN whose sequence number is below the next expected one
///   (and that is not a keep-alive): a fast retransmission if ≥ 2 duplicate ACKs of this sequence
///   number came the other way within 20 ms; else out-of-order if it came within the initial RTT
///   (3 ms before one is known) of the segment that last advanced the sequence and does not end
///   at the next expected number; else a retransmission. `retransmissions` counts all three
///   retransmission kinds that tshark's `tcp.analysis.retransmission` matches (plain and fast).
/// - window full: a segment with payload, no SYN/FIN/RST, that ends exactly at the other side's
///   last ACK plus its last advertised window (scaled by its window-scale shift when both SYNs
///   carried the option; a SYN's own window unscaled; not judged when the handshake was not seen);
/// - initial RTT: first SYN to the ACK that completes the handshake.
///
/// - TLS: when the client's first payload is a TLS handshake record, `TLSHandshakeTracker`
///   follows the record layer to the first application data each way.
///
/// A SYN on a 4-tuple whose connection already had a different SYN starts a new connection
/// (port reuse), as tshark's `tcp.stream` does.
///
/// Memory: one small record per connection, for at most `flowLimit` connections; once that many
/// are followed, a segment of any other connection is only counted (`omitted`), and a followed
/// 4-tuple that a new connection reuses is followed no further.
struct TCPFlowAnalyzer {
    private typealias Key = FlowKey

    private struct SideState {
        var nextSeq: UInt32?
        var nextSeqTime: Int64 = 0
        var lastAck: UInt32?
        var lastAckTime: Int64 = 0
        var window: UInt16?
        var dupAcks = 0
        /// Whether this direction's last segment was a keep-alive (its answer is no duplicate ACK).
        var lastWasKeepAlive = false
        /// Wireshark's `win_scale`: -1 unknown (no SYN seen), -2 no scaling, else the shift.
        var windowScale = -1
        /// The last window came in a SYN or SYN/ACK, which is never scaled (RFC 7323 §2.2).
        var lastWindowFromSYN = false
        var counters = FlowEvidence.Direction()
    }

    private final class Flow {
        let client: TCPSegment.Endpoint
        let server: TCPSegment.Endpoint
        var first: Int64
        var last: Int64
        var synSequence: UInt32?
        var synAt: Int64?
        var synAckAt: Int64?
        var synAckSequence: UInt32?
        var ackAt: Int64?
        var clientOptions: FlowEvidence.TCPOptions?
        var serverOptions: FlowEvidence.TCPOptions?
        var toServer = SideState()
        var toClient = SideState()
        var resets = 0
        var fins = 0
        var closedBy: String?
        /// Decided at the first payload byte: whether the client opened with a TLS record.
        var tlsDecided = false
        var tls: TLSHandshakeTracker?
        var marks: [FlowEvidence.PacketMark] = []

        init(client: TCPSegment.Endpoint, server: TCPSegment.Endpoint, at time: Int64) {
            self.client = client
            self.server = server
            first = time
            last = time
        }

        var initialRTTNanos: Int64? { synAt.flatMap { syn in ackAt.map { $0 - syn } } }
    }

    /// Packets kept per connection for timelines (`FlowEvidence.packets`); 0 keeps none.
    let markLimit: Int
    /// Connections followed one by one, at most.
    let flowLimit: Int
    /// The segments of connections past `flowLimit` (its `quic*` counts stay 0 here).
    private(set) var omitted: CaptureReport.OmittedFlows
    private var flows: [Flow] = []
    private var current: [Key: Flow] = [:]
    /// The last connection looked up: consecutive packets are often of one connection.
    private var recent: (key: Key, flow: Flow)?

    mutating func add(_ segment: TCPSegment) {
        let key = Key(segment.source, segment.destination)
        var flow = recent.flatMap { $0.key == key ? $0.flow : nil } ?? current[key]
        if let existing = flow, segment.isSYN, !segment.hasACK,
           let previous = existing.synSequence, previous != segment.sequence {
            flow = nil  // the 4-tuple was reused by a new connection
        }
        let active: Flow
        if let flow {
            active = flow
        } else if flows.count >= flowLimit {
            // Past the limit: counted only; a followed 4-tuple reused by this connection is dropped
            // from the lookup, so that its packets are not mixed into the old connection's.
            omitted.tcpSegments += 1
            omitted.tcpBytes += segment.ipLength
            if segment.isSYN && !segment.hasACK { omitted.tcpSyns += 1 }
            if current.removeValue(forKey: key) != nil { recent = nil }
            return
        } else {
            // The client is the SYN sender; without a SYN, the sender of the first segment seen
            // (or the receiver, when that first segment is a SYN/ACK).
            let fromServer = segment.isSYN && segment.hasACK
            active = Flow(client: fromServer ? segment.destination : segment.source,
                          server: fromServer ? segment.source : segment.destination, at: segment.timestampNanos)
            flows.append(active)
            current[key] = active
        }
        recent = (key, active)
        analyse(segment, in: active)
    }

    init(markLimit: Int = 0, flowLimit: Int = .max) {
        self.markLimit = markLimit
        self.flowLimit = flowLimit
        omitted = CaptureReport.OmittedFlows(limit: flowLimit)
    }

    private func analyse(_ s: TCPSegment, in flow: Flow) {
        flow.last = s.timestampNanos
        let fromClient = s.source == flow.client
        if flow.marks.count < markLimit {
            flow.marks.append(.init(offsetUs: (s.timestampNanos - flow.first) / 1000, fromClient: fromClient,
                                    payload: s.payloadLength, flags: Self.flagText(s.flags)))
        }
        var fwd = fromClient ? flow.toServer : flow.toClient
        var rev = fromClient ? flow.toClient : flow.toServer
        let t = s.timestampNanos

        // Handshake.
        if s.isSYN && !s.hasACK && fromClient {
            if flow.synAt == nil { flow.synAt = t; flow.synSequence = s.sequence }
            flow.clientOptions = options(s)
        } else if s.isSYN && s.hasACK && !fromClient {
            if flow.synAckAt == nil { flow.synAckAt = t; flow.synAckSequence = s.sequence }
            flow.serverOptions = options(s)
        } else if fromClient && s.hasACK && !s.isSYN && flow.synAckAt != nil && flow.ackAt == nil {
            flow.ackAt = t
        }

        // Window scaling, decided on the SYNs as Wireshark decides it (verify_tcp_window_scaling).
        if s.isSYN {
            if let shift = s.options.windowScale { fwd.windowScale = min(shift, 14) }
            if fwd.windowScale == -1 {
                fwd.windowScale = -2
                rev.windowScale = -2
            } else if s.hasACK && rev.windowScale == -2 {
                fwd.windowScale = -2
            }
        }

        fwd.counters.segments += 1
        fwd.counters.bytes += s.ipLength
        fwd.counters.payloadBytes += s.payloadLength
        let noControl = !s.isSYN && !s.isFIN && !s.isRST

        // Zero window.
        if s.window == 0 && noControl { fwd.counters.zeroWindows += 1 }

        // Keep-alive.
        var keepAlive = false
        if let next = fwd.nextSeq, (s.payloadLength == 0 || s.payloadLength == 1), s.sequence == next &- 1, noControl {
            keepAlive = true
            fwd.counters.keepAlives += 1
        }

        // Duplicate ACK (an ACK answering a keep-alive is a keep-alive ACK instead).
        if s.payloadLength == 0, s.window != 0, let window = fwd.window, window == s.window,
           let next = fwd.nextSeq, s.sequence == next, let lastAck = fwd.lastAck, s.acknowledgement == lastAck, noControl {
            if !rev.lastWasKeepAlive {
                fwd.dupAcks += 1
                fwd.counters.duplicateAcks += 1
            }
        } else if fwd.lastAck != s.acknowledgement || s.payloadLength > 0 {
            fwd.dupAcks = 0
        }

        // Window full: this segment reaches the edge of the window the other side advertised.
        if s.payloadLength > 0, noControl, rev.windowScale != -1, let ack = rev.lastAck, let window = rev.window {
            let shift = rev.lastWindowFromSYN || rev.windowScale < 0 ? 0 : UInt32(rev.windowScale)
            if s.sequence &+ UInt32(truncatingIfNeeded: s.payloadLength) == ack &+ (UInt32(window) << shift) {
                fwd.counters.windowFull += 1
            }
        }

        // Retransmission, fast retransmission, out-of-order.
        let consumes = s.payloadLength > 0 || s.isSYN || s.isFIN
        if consumes, !keepAlive, let next = fwd.nextSeq, sequenceLess(s.sequence, next) {
            let sinceDupAck = t - rev.lastAckTime
            let end = s.sequence &+ UInt32(truncatingIfNeeded: s.payloadLength)
            let oooThreshold = flow.initialRTTNanos ?? 3_000_000
            if rev.dupAcks >= 2, rev.lastAck == s.sequence, sinceDupAck < 20_000_000 {
                fwd.counters.fastRetransmissions += 1
                fwd.counters.retransmissions += 1
            } else if t - fwd.nextSeqTime < oooThreshold, next != end {
                fwd.counters.outOfOrder += 1
            } else {
                fwd.counters.retransmissions += 1
            }
        }

        // Advance the next expected sequence number.
        if consumes {
            var next = s.sequence &+ UInt32(truncatingIfNeeded: s.payloadLength)
            if s.isSYN || s.isFIN { next = next &+ 1 }
            if fwd.nextSeq.map({ sequenceLess($0, next) }) ?? true {
                fwd.nextSeq = next
                fwd.nextSeqTime = t
            }
        } else if fwd.nextSeq == nil {
            fwd.nextSeq = s.sequence
            fwd.nextSeqTime = t
        }
        fwd.window = s.window
        fwd.lastWindowFromSYN = s.isSYN
        fwd.lastWasKeepAlive = keepAlive
        if s.hasACK {
            fwd.lastAck = s.acknowledgement
            fwd.lastAckTime = t
        }

        if s.payloadLength > 0 { followTLS(s, in: flow, fromClient: fromClient) }

        if s.isRST {
            flow.resets += 1
            if flow.closedBy == nil { flow.closedBy = fromClient ? "client" : "server" }
        }
        if s.isFIN {
            flow.fins += 1
            if flow.closedBy == nil { flow.closedBy = fromClient ? "client" : "server" }
        }
        if fromClient {
            flow.toServer = fwd
            flow.toClient = rev
        } else {
            flow.toClient = fwd
            flow.toServer = rev
        }
    }

    /// The TLS record layer, when the client's first payload is a TLS handshake record.
    private func followTLS(_ s: TCPSegment, in flow: Flow, fromClient: Bool) {
        if !flow.tlsDecided {
            flow.tlsDecided = true
            guard fromClient, let tracker = TLSHandshakeTracker.startingWith(s.payload) else { return }
            tracker.start(clientAt: flow.synSequence.map { $0 &+ 1 }, serverAt: flow.synAckSequence.map { $0 &+ 1 })
            flow.tls = tracker
        }
        guard let tracker = flow.tls, !(fromClient ? tracker.client.stopped : tracker.server.stopped) else { return }
        tracker.add(fromClient: fromClient, sequence: s.sequence, length: s.payloadLength, captured: s.payload,
                    timestampNanos: s.timestampNanos)
    }

    private func options(_ s: TCPSegment) -> FlowEvidence.TCPOptions {
        FlowEvidence.TCPOptions(mss: s.options.mss, windowScale: s.options.windowScale,
                                sackPermitted: s.options.sackPermitted, timestamps: s.options.timestamps)
    }

    /// tcpdump's letters, in a fixed order: S, F, R, P, A (e.g. "SA", "PA", "FA").
    static func flagText(_ flags: UInt8) -> String {
        var text = ""
        if flags & TCPSegment.syn != 0 { text += "S" }
        if flags & TCPSegment.fin != 0 { text += "F" }
        if flags & TCPSegment.rst != 0 { text += "R" }
        if flags & 0x08 != 0 { text += "P" }
        if flags & TCPSegment.ack != 0 { text += "A" }
        return text
    }

    /// RFC 1982 serial-number comparison: a < b modulo 2^32.
    private func sequenceLess(_ a: UInt32, _ b: UInt32) -> Bool { Int32(bitPattern: a &- b) < 0 }

    /// The connections in the order their first packet was seen.
    func evidence() -> [FlowEvidence] {
        flows.map { flow in
            func stamp(_ nanos: Int64?) -> Timestamp? { nanos.map { Timestamp(microsecondsSince1970: $0 / 1000) } }
            return FlowEvidence(
                tuple: "\(flow.client.text) > \(flow.server.text)",
                clientAddress: flow.client.addressText, clientPort: Int(flow.client.port),
                serverAddress: flow.server.addressText, serverPort: Int(flow.server.port),
                firstPacketAt: Timestamp(microsecondsSince1970: flow.first / 1000),
                lastPacketAt: Timestamp(microsecondsSince1970: flow.last / 1000),
                handshake: .init(synAt: stamp(flow.synAt), synAckAt: stamp(flow.synAckAt), ackAt: stamp(flow.ackAt),
                                 complete: flow.synAt != nil && flow.synAckAt != nil && flow.ackAt != nil,
                                 clientOptions: flow.clientOptions, serverOptions: flow.serverOptions),
                initialRttMs: flow.initialRTTNanos.map { Double($0) / 1e6 },
                clientToServer: flow.toServer.counters, serverToClient: flow.toClient.counters,
                resets: flow.resets, fins: flow.fins, closedBy: flow.closedBy, tls: flow.tls?.evidence(),
                packets: markLimit > 0 ? flow.marks : nil)
        }
    }
}
