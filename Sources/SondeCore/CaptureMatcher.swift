/// Attaches packet evidence to transactions: each transaction's connection is found among a
/// capture's flows by its 4-tuple (libcurl's local address and port, the remote address and
/// port) — its TCP connection in `flows`, or for an h3 transaction its QUIC connection in
/// `quicFlows`; when a port was used by several connections over the run, the last one that
/// began before the transaction's response. Then libcurl's view is checked against the packets
/// (`QUICCaptureCheck` for QUIC).
public struct CaptureMatcher: Sendable {
    struct Key: Hashable { let local: String; let localPort: Int; let remote: String; let remotePort: Int }
    private let flows: [Key: [FlowEvidence]]
    private let quicFlows: [Key: [QUICFlowEvidence]]

    public init(captures: [CaptureReport]) {
        flows = Self.index(captures.flatMap(\.flows)) {
            (Key(local: Self.bare($0.clientAddress), localPort: $0.clientPort, remote: Self.bare($0.serverAddress), remotePort: $0.serverPort),
             $0.firstPacketAt)
        }
        quicFlows = Self.index(captures.flatMap(\.quicFlows)) {
            (Key(local: Self.bare($0.clientAddress), localPort: $0.clientPort, remote: Self.bare($0.serverAddress), remotePort: $0.serverPort),
             $0.firstPacketAt)
        }
    }

    /// `items` by 4-tuple, each list in the order the connections began.
    private static func index<Flow>(_ items: [Flow], _ keyAndStart: (Flow) -> (Key, Timestamp)) -> [Key: [Flow]] {
        var lists: [Key: [(Timestamp, Flow)]] = [:]
        for item in items {
            let (key, start) = keyAndStart(item)
            lists[key, default: []].append((start, item))
        }
        return lists.mapValues { $0.sorted { $0.0 < $1.0 }.map(\.1) }
    }

    /// The last of `candidates` (in start order, not empty) that began before the transaction's
    /// response (its request, its fetch start); the last of all when none did or it has no time.
    private static func latest<Flow>(_ candidates: [Flow], started: (Flow) -> Timestamp, before transaction: TransactionMetrics) -> Flow? {
        let before = transaction.responseStartDate ?? transaction.requestStartDate ?? transaction.fetchStartDate
        return before.flatMap { limit in candidates.last { started($0) <= limit } } ?? candidates.last
    }

    public var isEmpty: Bool { flows.isEmpty && quicFlows.isEmpty }

    /// `task` with `capture` set on every transaction whose connection is in the capture.
    /// Returns nil when nothing matched (the task is unchanged).
    public func attach(to task: ProbeTask) -> ProbeTask? {
        var task = task
        var changed = false
        for index in task.transactionMetrics.indices {
            let transaction = task.transactionMetrics[index]
            guard let local = transaction.localAddress, let localPort = transaction.localPort,
                  let remote = transaction.remoteAddress, let remotePort = transaction.remotePort else { continue }
            let key = Key(local: Self.bare(local), localPort: localPort, remote: Self.bare(remote), remotePort: remotePort)
            if transaction.networkProtocolName == "h3" {
                guard let flow = quicFlows[key].flatMap({ Self.latest($0, started: \.firstPacketAt, before: transaction) }) else { continue }
                task.transactionMetrics[index].capture = QUICCaptureCheck.evidence(flow, transaction)
            } else {
                guard let flow = flows[key].flatMap({ Self.latest($0, started: \.firstPacketAt, before: transaction) }) else { continue }
                task.transactionMetrics[index].capture = Self.evidence(flow, transaction)
            }
            changed = true
        }
        return changed ? task : nil
    }

    static func evidence(_ flow: FlowEvidence, _ transaction: TransactionMetrics) -> CaptureEvidence {
        let handshake = flow.handshake
        let synToSynAck = handshake.synAt.flatMap { syn in
            handshake.synAckAt.map { Double($0.microsecondsSince1970 - syn.microsecondsSince1970) / 1000 }
        }
        let reuseAgrees = reuseAgrees(openedAt: handshake.synAt, transaction)
        // The wire's SYN → SYN/ACK must fit inside libcurl's connect phase.
        let connectAgrees = fits(synToSynAck, in: transaction.phases.connect, transaction)
        var tlsAgrees: Bool? = nil
        if let fits = fits(flow.tls?.handshakeMs, in: transaction.phases.tls, transaction) {
            // ClientHello → the client's Finished lies inside libcurl's TLS phase, which ends once
            // libcurl has that Finished out; same version.
            let versionAgrees = transaction.negotiatedTLSProtocolVersion.map { $0 == flow.tls?.version } ?? true
            tlsAgrees = fits && versionAgrees
        }
        return CaptureEvidence(flow: flow.tuple, synSeen: handshake.synAt != nil, synToSynAckMs: synToSynAck.map { ($0 * 1000).rounded() / 1000 },
                               initialRttMs: flow.initialRttMs,
                               retransmissions: flow.clientToServer.retransmissions + flow.serverToClient.retransmissions,
                               resets: flow.resets, reuseAgrees: reuseAgrees, connectAgrees: connectAgrees,
                               tlsVersion: flow.tls?.version, tlsHandshakeMs: flow.tls?.handshakeMs, tlsAgrees: tlsAgrees,
                               packets: packets(flow.packets, from: flow.firstPacketAt, in: transaction))
    }

    /// A connection's recorded packets (`marks`, offsets from its first packet at `origin`) between
    /// the transaction's fetch start (nothing of its own goes out before it; what came just before
    /// is the previous transaction's) and its response end (1 ms of slack for the last ACKs), as
    /// offsets from the fetch start.
    static func packets(_ marks: [FlowEvidence.PacketMark]?, from origin: Timestamp,
                        in transaction: TransactionMetrics) -> [FlowEvidence.PacketMark] {
        guard let marks, let start = transaction.fetchStartDate?.microsecondsSince1970 else { return [] }
        let end = (transaction.responseEndDate ?? transaction.responseStartDate)?.microsecondsSince1970
            ?? transaction.phases.total.map { start + Int64($0 * 1000) } ?? start
        return marks.compactMap { mark in
            let at = origin.microsecondsSince1970 + mark.offsetUs
            guard at >= start, at <= end + 1000 else { return nil }
            var shifted = mark
            shifted.offsetUs = at - start
            return shifted
        }
    }

    /// Whether libcurl's reuse flag agrees with the time the connection's first packet (`openedAt`:
    /// SYN, first client Initial) went out. The packets contradict the flag only when they are
    /// clear of the clocks' slack (`reuseSlackMicros`), each way against the instant that decides it:
    ///
    /// - a new connection is opened by its hop once libcurl has it: its first packet cannot come
    ///   before the hop was handed to libcurl (`fetchStartDate` + `queue`, the time it waited in
    ///   sonde's queue);
    /// - a reused connection was opened before its request went out (`requestStartDate`, else
    ///   `responseStartDate`, else the hop's start). Its first packet may well come after the
    ///   transaction's *start*: a hop held in the queue while another hop opens the connection
    ///   (HTTP/2, `--parallel`) starts first and reuses it, and on loopback a reused transaction
    ///   starts well within a millisecond of the SYN of the one before (issue 39 #21: SYN at
    ///   .398593, the reused transaction at .399164, once judged to disagree).
    ///
    /// nil without the times needed.
    static func reuseAgrees(openedAt: Timestamp?, _ transaction: TransactionMetrics) -> Bool? {
        guard let opened = openedAt?.microsecondsSince1970, let fetchStart = transaction.fetchStartDate?.microsecondsSince1970 else { return nil }
        let queue = transaction.queue ?? 0
        let hopStart = fetchStart + (queue.isFinite ? Int64((min(max(queue, 0), 1e9) * 1000).rounded()) : 0)
        if transaction.isReusedConnection {
            let requestStart = (transaction.requestStartDate ?? transaction.responseStartDate)?.microsecondsSince1970 ?? hopStart
            return opened <= max(requestStart, hopStart) + reuseSlackMicros
        }
        return opened >= hopStart - reuseSlackMicros
    }

    /// The clocks' slack in `reuseAgrees` (µs): libpcap's timestamps and sonde's wall clock are
    /// both CLOCK_REALTIME, read at slightly different moments (the kernel stamps a packet when
    /// it passes the tap; sonde reads its clock before handing the hop to libcurl).
    static let reuseSlackMicros: Int64 = 1000

    /// Whether an interval seen on the wire (ms) fits inside a libcurl phase (ms), which also holds
    /// the client's own scheduling (ms on a loaded machine): 1 ms of slack for the two clocks.
    /// nil for a reused connection (no such phase) or when either is missing.
    static func fits(_ wireMs: Double?, in phaseMs: Double?, _ transaction: TransactionMetrics) -> Bool? {
        guard let wireMs, let phaseMs, !transaction.isReusedConnection else { return nil }
        return wireMs <= phaseMs + 1.0
    }

    static func bare(_ address: String) -> String {
        var value = address
        if value.hasPrefix("[") && value.hasSuffix("]") { value = String(value.dropFirst().dropLast()) }
        if value.hasPrefix("::ffff:") { value = String(value.dropFirst("::ffff:".count)) }
        return value.lowercased()
    }
}
