/// One QUIC connection seen in a capture (`captures[].quicFlows[]`), read from the cleartext
/// headers only (RFC 9000 §17: header form, long-header type, version, connection IDs, Length):
/// nothing is decrypted. The client is the sender of the connection's first datagram (the
/// receiver when that datagram is a Retry or Version Negotiation, which only servers send).
/// Counting rules are those of tshark's QUIC dissector, so the figures can be checked against it.
public struct QUICFlowEvidence: Sendable, Equatable {
    /// "client-address:port > server-address:port" (IPv6 addresses in brackets).
    public var tuple: String
    public var clientAddress: String
    public var clientPort: Int
    public var serverAddress: String
    public var serverPort: Int
    /// The first long header's version as tshark prints `quic.version`, e.g. "0x00000001".
    public var version: String?
    /// "QUICv1", "QUICv2", "draft-29"…; nil for a version sonde does not know.
    public var versionName: String?
    /// The destination connection ID of the client's first Initial (hex), which derives the Initial keys.
    public var originalDestinationConnectionId: String?
    /// The source connection ID of the client's first long header (hex).
    public var clientConnectionId: String?
    /// The source connection ID of the server's first long header (hex).
    public var serverConnectionId: String?
    public var firstPacketAt: Timestamp
    public var lastPacketAt: Timestamp
    /// The client's first Initial packet.
    public var firstClientInitialAt: Timestamp?
    /// The server's first datagram of this connection.
    public var firstServerPacketAt: Timestamp?
    /// The client's first Initial → the server's first datagram, ms: one round trip, and the
    /// wire's view of libcurl's QUIC connect phase (which ends at the server's first packet).
    /// nil without both, or when the server's came first (a capture started mid-connection).
    public var initialRttMs: Double?
    /// The client's first Initial → the client's first 1-RTT (short-header) packet, ms: the
    /// client has both handshake flights and has sent its Finished; the wire's view of libcurl's
    /// connect + TLS phases. nil without both.
    public var handshakeMs: Double?
    public var clientToServer: Direction
    public var serverToClient: Direction
    /// What stopped the header walk in some datagrams (truncated or malformed headers), at most
    /// `QUICFlowAnalyzer.problemLimit`; empty when every datagram was read to its end.
    public var problems: [String]
    /// The connection's first datagrams (at most the analyzer's mark limit: 256 in a live
    /// capture): `flags` names the QUIC packet types in it, e.g. "initial+handshake", "1rtt";
    /// `payload` is the UDP payload's length. Absent when not recorded (`sonde analyze`).
    public var packets: [FlowEvidence.PacketMark]?

    public init(tuple: String, clientAddress: String, clientPort: Int, serverAddress: String, serverPort: Int,
                version: String? = nil, versionName: String? = nil, originalDestinationConnectionId: String? = nil,
                clientConnectionId: String? = nil, serverConnectionId: String? = nil,
                firstPacketAt: Timestamp, lastPacketAt: Timestamp, firstClientInitialAt: Timestamp? = nil,
                firstServerPacketAt: Timestamp? = nil, initialRttMs: Double? = nil, handshakeMs: Double? = nil,
                clientToServer: Direction = Direction(), serverToClient: Direction = Direction(), problems: [String] = [],
                packets: [FlowEvidence.PacketMark]? = nil) {
        self.tuple = tuple
        self.clientAddress = clientAddress
        self.clientPort = clientPort
        self.serverAddress = serverAddress
        self.serverPort = serverPort
        self.version = version
        self.versionName = versionName
        self.originalDestinationConnectionId = originalDestinationConnectionId
        self.clientConnectionId = clientConnectionId
        self.serverConnectionId = serverConnectionId
        self.firstPacketAt = firstPacketAt
        self.lastPacketAt = lastPacketAt
        self.firstClientInitialAt = firstClientInitialAt
        self.firstServerPacketAt = firstServerPacketAt
        self.initialRttMs = initialRttMs
        self.handshakeMs = handshakeMs
        self.clientToServer = clientToServer
        self.serverToClient = serverToClient
        self.problems = problems
        self.packets = packets
    }

    /// Counters of one direction.
    public struct Direction: Sendable, Equatable {
        /// UDP datagrams.
        public var datagrams = 0
        /// Bytes on the wire (IP packets' total lengths).
        public var bytes = 0
        /// UDP payload bytes (tshark's `udp.length` minus the 8-byte header).
        public var payloadBytes = 0
        /// QUIC packets, coalesced ones counted one by one (tshark's `quic.header_form` occurrences).
        public var packets = 0
        public var initialPackets = 0
        public var zeroRttPackets = 0
        public var handshakePackets = 0
        public var retryPackets = 0
        public var versionNegotiationPackets = 0
        /// Short-header (1-RTT) packets.
        public var shortHeaderPackets = 0
        /// The first short-header (1-RTT) packet this way.
        public var firstShortHeaderAt: Timestamp?
        /// The last Handshake packet this way (the client's carries its Finished, or acknowledges
        /// the server's Handshake packets).
        public var lastHandshakeAt: Timestamp?

        public init() {}
    }
}
