import SondeCore

/// Groups UDP datagrams into QUIC connections and counts what their cleartext headers show
/// (`QUICHeaderParser`): datagrams, bytes and QUIC packets each way (coalesced packets one by
/// one), Initial / 0-RTT / Handshake / Retry / Version Negotiation / 1-RTT packets, the client's
/// first Initial → the server's first datagram (`initialRttMs`), and each side's first 1-RTT packet.
///
/// - A UDP flow becomes a QUIC connection at a datagram whose first packet is a long header with
///   a version (a known one, or 0: Version Negotiation), as tshark's QUIC heuristic starts one;
///   datagrams of a 4-tuple with no connection that do not start one are not QUIC (`add` is false).
/// - Connections are keyed by 4-tuple, and told apart on one 4-tuple by their connection IDs, as
///   tshark's `quic.connection.number` does: libcurl binds QUIC sockets to the capture's port
///   block, so the next connection reuses the 4-tuple at once (UDP has no TIME_WAIT), and the
///   previous one's last datagrams can come after the next one's first Initial. A client Initial
///   with a source connection ID no connection on the 4-tuple has starts a new connection; any
///   other datagram goes to the newest connection whose IDs it carries (`owner`), else to the
///   newest connection on the 4-tuple. (A peer that switches to a connection ID issued later, in
///   an encrypted NEW_CONNECTION_ID frame, is followed by the fallback only.)
/// - Zero bytes after a long-header packet are padding, not a packet (tshark: "coalesced padding").
///
/// Memory: one small record per connection, `markLimit` marks and `problemLimit` problems at most,
/// for at most `flowLimit` connections: past it, a datagram that would start a connection is only
/// counted (`omitted`), and a followed 4-tuple that a new connection reuses is followed no further.
struct QUICFlowAnalyzer {
    private final class Connection {
        let client: PacketEndpoint
        let server: PacketEndpoint
        let first: Int64
        var last: Int64
        var version: UInt32?
        var originalDestinationID: [UInt8]?
        var clientSourceID: [UInt8]?
        var serverSourceID: [UInt8]?
        var clientInitialAt: Int64?
        var serverFirstAt: Int64?
        var clientFirstShortAt: Int64?
        var toServer = QUICFlowEvidence.Direction()
        var toClient = QUICFlowEvidence.Direction()
        var problems: [String] = []
        var marks: [FlowEvidence.PacketMark] = []

        init(client: PacketEndpoint, server: PacketEndpoint, at time: Int64) {
            self.client = client
            self.server = server
            first = time
            last = time
        }
    }

    /// Datagrams kept per connection for timelines (`QUICFlowEvidence.packets`); 0 keeps none.
    let markLimit: Int
    /// Problems kept per connection.
    static let problemLimit = 8
    /// Connections followed one by one, at most.
    let flowLimit: Int
    /// The datagrams of connections past `flowLimit` (its `tcp*` counts stay 0 here).
    private(set) var omitted: CaptureReport.OmittedFlows
    private var connections: [Connection] = []
    /// The connections of each 4-tuple, in the order they began.
    private var current: [FlowKey: [Connection]] = [:]

    init(markLimit: Int = 0, flowLimit: Int = .max) {
        self.markLimit = markLimit
        self.flowLimit = flowLimit
        omitted = CaptureReport.OmittedFlows(limit: flowLimit)
    }

    /// Adds a datagram; false when it is not QUIC (no connection on its 4-tuple, and its first
    /// packet is no long header with a version).
    @discardableResult
    mutating func add(_ datagram: UDPDatagram) -> Bool {
        let parsed = QUICHeaderParser.parse(datagram.payload, length: datagram.payloadLength)
        let key = FlowKey(datagram.source, datagram.destination)
        let opening = parsed.packets.first.flatMap { header in
            header.version.map { $0 == 0 || QUICHeaderParser.isKnown($0) } == true ? header : nil
        }
        let onTuple = current[key] ?? []
        var connection = Self.owner(of: datagram, first: parsed.packets.first, among: onTuple)
        // A client Initial that no connection on the 4-tuple owns: a new connection reusing it.
        let reused = opening?.type == .initial && onTuple.last.map { datagram.source == $0.client && $0.clientSourceID != nil } == true
        if connection == nil && !reused { connection = onTuple.last }
        if connection == nil {
            guard let opening else { return false }
            guard connections.count < flowLimit else {
                // Past the limit: counted only (see `omitted`).
                omitted.quicDatagrams += 1
                omitted.quicBytes += datagram.ipLength
                if opening.type == .initial { omitted.quicInitials += 1 }
                current.removeValue(forKey: key)
                return true
            }
            // Only servers send Retry and Version Negotiation.
            let fromServer = opening.type == .retry || opening.type == .versionNegotiation
            let started = Connection(client: fromServer ? datagram.destination : datagram.source,
                                     server: fromServer ? datagram.source : datagram.destination, at: datagram.timestampNanos)
            connections.append(started)
            current[key, default: []].append(started)
            connection = started
        }
        guard let connection else { return false }
        analyse(datagram, parsed, in: connection)
        return true
    }

    /// Connections searched per 4-tuple for the owner of a datagram, newest first.
    static let ownerSearchLimit = 4

    /// The connection on the datagram's 4-tuple whose connection IDs its first packet carries,
    /// newest first: a long header's source ID (client) or destination ID (server) is the client's
    /// source ID; a short header's destination ID starts with the other side's source ID (its
    /// length is not on the wire). nil when none does (or the IDs are not known yet).
    private static func owner(of datagram: UDPDatagram, first: QUICHeaderParser.Header?, among onTuple: [Connection]) -> Connection? {
        guard let first else { return nil }
        for candidate in onTuple.suffix(ownerSearchLimit).reversed() {
            let fromClient = datagram.source == candidate.client
            if first.version != nil {
                if let clientID = candidate.clientSourceID, (fromClient ? first.sourceID : first.destinationID) == clientID { return candidate }
            } else if let expected = fromClient ? candidate.serverSourceID : candidate.clientSourceID, !expected.isEmpty,
                      datagram.payload.count >= 1 + expected.count,
                      datagram.payload[1..<(1 + expected.count)].elementsEqual(expected) {
                return candidate
            }
        }
        return nil
    }

    private func analyse(_ datagram: UDPDatagram, _ parsed: QUICHeaderParser.Datagram, in connection: Connection) {
        let t = datagram.timestampNanos
        connection.last = t
        let fromClient = datagram.source == connection.client
        var side = fromClient ? connection.toServer : connection.toClient
        side.datagrams += 1
        side.bytes += datagram.ipLength
        side.payloadBytes += datagram.payloadLength
        side.packets += parsed.packets.count
        for header in parsed.packets {
            switch header.type {
            case .initial: side.initialPackets += 1
            case .zeroRTT: side.zeroRttPackets += 1
            case .handshake:
                side.handshakePackets += 1
                side.lastHandshakeAt = Self.stamp(t)
            case .retry: side.retryPackets += 1
            case .versionNegotiation: side.versionNegotiationPackets += 1
            case .oneRTT:
                side.shortHeaderPackets += 1
                if side.firstShortHeaderAt == nil { side.firstShortHeaderAt = Self.stamp(t) }
            case .unknownVersion: break
            }
            if let version = header.version, version != 0, connection.version == nil { connection.version = version }
            if header.version != nil && header.version != 0 {
                if fromClient && connection.clientSourceID == nil { connection.clientSourceID = header.sourceID }
                if !fromClient && connection.serverSourceID == nil { connection.serverSourceID = header.sourceID }
            }
            if fromClient && header.type == .initial && connection.clientInitialAt == nil {
                connection.clientInitialAt = t
                connection.originalDestinationID = header.destinationID
            }
            if fromClient && header.type == .oneRTT && connection.clientFirstShortAt == nil { connection.clientFirstShortAt = t }
        }
        if !fromClient && connection.serverFirstAt == nil { connection.serverFirstAt = t }
        if let problem = parsed.problem, connection.problems.count < Self.problemLimit {
            connection.problems.append(problem)
        }
        if connection.marks.count < markLimit {
            let types = parsed.packets.map(\.type.rawValue)
            connection.marks.append(.init(offsetUs: (t - connection.first) / 1000, fromClient: fromClient,
                                          payload: datagram.payloadLength, flags: types.isEmpty ? "?" : types.joined(separator: "+")))
        }
        if fromClient { connection.toServer = side } else { connection.toClient = side }
    }

    private static func stamp(_ nanos: Int64) -> Timestamp { Timestamp(microsecondsSince1970: nanos / 1000) }

    /// ns → ms, for a later instant after an earlier one; nil when either is missing or out of order.
    private static func milliseconds(from start: Int64?, to end: Int64?) -> Double? {
        guard let start, let end, end >= start else { return nil }
        return Double(end - start) / 1e6
    }

    /// "QUICv1", "QUICv2", "draft-29"; nil for others.
    static func versionName(_ version: UInt32) -> String? {
        switch version {
        case QUICHeaderParser.version1: return "QUICv1"
        case QUICHeaderParser.version2: return "QUICv2"
        case 0xFF00_001D...0xFF00_0022: return "draft-\(version & 0xFF)"
        default: return nil
        }
    }

    private static func hex(_ bytes: [UInt8]?) -> String? {
        bytes.map { $0.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined() }
    }

    /// The connections in the order their first datagram was seen.
    func evidence() -> [QUICFlowEvidence] {
        connections.map { c in
            QUICFlowEvidence(
                tuple: "\(c.client.text) > \(c.server.text)",
                clientAddress: c.client.addressText, clientPort: Int(c.client.port),
                serverAddress: c.server.addressText, serverPort: Int(c.server.port),
                version: c.version.map { "0x" + String(repeating: "0", count: 8 - String($0, radix: 16).count) + String($0, radix: 16) },
                versionName: c.version.flatMap(Self.versionName),
                originalDestinationConnectionId: Self.hex(c.originalDestinationID),
                clientConnectionId: Self.hex(c.clientSourceID), serverConnectionId: Self.hex(c.serverSourceID),
                firstPacketAt: Self.stamp(c.first), lastPacketAt: Self.stamp(c.last),
                firstClientInitialAt: c.clientInitialAt.map(Self.stamp), firstServerPacketAt: c.serverFirstAt.map(Self.stamp),
                initialRttMs: Self.milliseconds(from: c.clientInitialAt, to: c.serverFirstAt),
                handshakeMs: Self.milliseconds(from: c.clientInitialAt, to: c.clientFirstShortAt),
                clientToServer: c.toServer, serverToClient: c.toClient, problems: c.problems,
                packets: markLimit > 0 ? c.marks : nil)
        }
    }
}
