/// Attaches packet evidence to transactions: each transaction's TCP connection is found among a
/// capture's flows by its 4-tuple (libcurl's local address and port, the remote address and
/// port); when a port was used by several connections over the run, the last one that began
/// before the transaction's response. Then libcurl's view is checked against the packets.
public struct CaptureMatcher: Sendable {
    private struct Key: Hashable { let local: String; let localPort: Int; let remote: String; let remotePort: Int }
    private let flows: [Key: [FlowEvidence]]

    public init(captures: [CaptureReport]) {
        var flows: [Key: [FlowEvidence]] = [:]
        for capture in captures {
            for flow in capture.flows {
                let key = Key(local: Self.bare(flow.clientAddress), localPort: flow.clientPort,
                              remote: Self.bare(flow.serverAddress), remotePort: flow.serverPort)
                flows[key, default: []].append(flow)
            }
        }
        self.flows = flows.mapValues { $0.sorted { $0.firstPacketAt < $1.firstPacketAt } }
    }

    public var isEmpty: Bool { flows.isEmpty }

    /// `task` with `capture` set on every transaction whose connection is in the capture.
    /// Returns nil when nothing matched (the task is unchanged).
    public func attach(to task: ProbeTask) -> ProbeTask? {
        var task = task
        var changed = false
        for index in task.transactionMetrics.indices {
            let transaction = task.transactionMetrics[index]
            guard let local = transaction.localAddress, let localPort = transaction.localPort,
                  let remote = transaction.remoteAddress, let remotePort = transaction.remotePort,
                  let candidates = flows[Key(local: Self.bare(local), localPort: localPort, remote: Self.bare(remote), remotePort: remotePort)]
            else { continue }
            let before = transaction.responseStartDate ?? transaction.requestStartDate ?? transaction.fetchStartDate
            let flow = before.flatMap { limit in candidates.last { $0.firstPacketAt <= limit } } ?? candidates.last!
            task.transactionMetrics[index].capture = Self.evidence(flow, transaction)
            changed = true
        }
        return changed ? task : nil
    }

    static func evidence(_ flow: FlowEvidence, _ transaction: TransactionMetrics) -> CaptureEvidence {
        let handshake = flow.handshake
        let synToSynAck = handshake.synAt.flatMap { syn in
            handshake.synAckAt.map { Double($0.microsecondsSince1970 - syn.microsecondsSince1970) / 1000 }
        }
        var reuseAgrees: Bool? = nil
        if let syn = handshake.synAt, let start = transaction.fetchStartDate {
            // A new connection's SYN comes after this transaction began (1 ms of slack for clocks);
            // a reused connection's came before.
            let synAfterStart = syn.microsecondsSince1970 >= start.microsecondsSince1970 - 1000
            reuseAgrees = transaction.isReusedConnection ? !synAfterStart : synAfterStart
        }
        var connectAgrees: Bool? = nil
        if let connect = transaction.phases.connect, let synToSynAck, !transaction.isReusedConnection {
            // The wire's SYN → SYN/ACK must fit inside libcurl's connect phase, which also holds the
            // client's own scheduling (ms on a loaded machine): 1 ms of slack for the two clocks.
            connectAgrees = synToSynAck <= connect + 1.0
        }
        var tlsAgrees: Bool? = nil
        if let wire = flow.tls?.handshakeMs, let phase = transaction.phases.tls, !transaction.isReusedConnection {
            // ClientHello → the client's Finished lies inside libcurl's TLS phase, which ends once
            // libcurl has that Finished out (1 ms of slack for the two clocks); same version.
            let versionAgrees = transaction.negotiatedTLSProtocolVersion.map { $0 == flow.tls?.version } ?? true
            tlsAgrees = wire <= phase + 1.0 && versionAgrees
        }
        return CaptureEvidence(flow: flow.tuple, synSeen: handshake.synAt != nil, synToSynAckMs: synToSynAck.map { ($0 * 1000).rounded() / 1000 },
                               initialRttMs: flow.initialRttMs,
                               retransmissions: flow.clientToServer.retransmissions + flow.serverToClient.retransmissions,
                               resets: flow.resets, reuseAgrees: reuseAgrees, connectAgrees: connectAgrees,
                               tlsVersion: flow.tls?.version, tlsHandshakeMs: flow.tls?.handshakeMs, tlsAgrees: tlsAgrees,
                               packets: packets(of: flow, in: transaction))
    }

    /// The flow's recorded packets between the transaction's fetch start (nothing of its own goes
    /// out before it; what came just before is the previous transaction's) and its response end
    /// (1 ms of slack for the last ACKs), as offsets from the fetch start.
    static func packets(of flow: FlowEvidence, in transaction: TransactionMetrics) -> [FlowEvidence.PacketMark] {
        guard let marks = flow.packets, let start = transaction.fetchStartDate?.microsecondsSince1970 else { return [] }
        let end = (transaction.responseEndDate ?? transaction.responseStartDate)?.microsecondsSince1970
            ?? transaction.phases.total.map { start + Int64($0 * 1000) } ?? start
        let origin = flow.firstPacketAt.microsecondsSince1970
        return marks.compactMap { mark in
            let at = origin + mark.offsetUs
            guard at >= start, at <= end + 1000 else { return nil }
            var shifted = mark
            shifted.offsetUs = at - start
            return shifted
        }
    }

    private static func bare(_ address: String) -> String {
        var value = address
        if value.hasPrefix("[") && value.hasSuffix("]") { value = String(value.dropFirst().dropLast()) }
        if value.hasPrefix("::ffff:") { value = String(value.dropFirst("::ffff:".count)) }
        return value.lowercased()
    }
}
