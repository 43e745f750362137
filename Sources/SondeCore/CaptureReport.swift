/// The packet evidence of one capture (a live `--capture` or `sonde analyze FILE`): the report's
/// `captures[]` entries. Counting rules follow Wireshark's TCP analysis (see `TCPFlowAnalyzer`) and
/// tshark's QUIC dissector (see `QUICFlowAnalyzer`).
public struct CaptureReport: Sendable, Equatable {
    public var file: String
    /// The interface captured on (live captures), nil for a file analysed offline.
    public var interface: String?
    /// The BPF filter of a live capture, nil offline.
    public var filter: String?
    /// libpcap's link-type name, e.g. EN10MB, LINUX_SLL, LINUX_SLL2, RAW, NULL.
    public var linkType: String
    public var packets: Int
    /// Packets that were neither IPv4/IPv6 TCP nor QUIC over UDP (or could not be decoded):
    /// counted, not analysed.
    public var otherPackets: Int
    /// Packets libpcap dropped during a live capture (pcap_stats); nil offline.
    public var drops: Int?
    /// False when the file ended early or was damaged: the flows hold what was read before.
    public var complete: Bool
    /// What went wrong while reading, in words (empty for a clean file).
    public var problems: [String]
    /// TCP connections.
    public var flows: [FlowEvidence]
    /// QUIC connections (UDP), in the order their first datagram was seen.
    public var quicFlows: [QUICFlowEvidence]
    /// What came past the analysis's limit on connections analysed one by one: counted, not
    /// analysed (so that memory stays bounded whatever the file holds); nil when nothing did.
    public var omitted: OmittedFlows?

    public init(file: String, interface: String? = nil, filter: String? = nil, linkType: String, packets: Int,
                otherPackets: Int, drops: Int? = nil, complete: Bool, problems: [String], flows: [FlowEvidence],
                quicFlows: [QUICFlowEvidence] = [], omitted: OmittedFlows? = nil) {
        self.file = file
        self.interface = interface
        self.filter = filter
        self.linkType = linkType
        self.packets = packets
        self.otherPackets = otherPackets
        self.drops = drops
        self.complete = complete
        self.problems = problems
        self.flows = flows
        self.quicFlows = quicFlows
        self.omitted = omitted
    }

    /// The connections a capture's analysis did not keep one by one: once `limit` TCP connections
    /// (or `limit` QUIC connections) are being followed, a packet of any other connection is only
    /// counted here. A 4-tuple whose connection is followed and that a new connection reuses past
    /// the limit is followed no further (its later packets are counted here).
    public struct OmittedFlows: Sendable, Equatable {
        /// The connections followed one by one, at most, of each of TCP and QUIC.
        public var limit: Int
        /// SYNs without ACK past the limit: the connections opened (a retransmitted SYN counts again).
        public var tcpSyns = 0
        /// TCP segments past the limit, and their bytes on the wire (IP lengths).
        public var tcpSegments = 0
        public var tcpBytes = 0
        /// Datagrams past the limit that start with a QUIC long header of a known version, those
        /// among them whose first packet is an Initial, and their bytes (IP lengths). (Later
        /// short-header datagrams of such connections cannot be told from other UDP: they are
        /// `otherPackets`.)
        public var quicDatagrams = 0
        public var quicInitials = 0
        public var quicBytes = 0

        public init(limit: Int) { self.limit = limit }

        /// Whether anything was counted.
        public var isEmpty: Bool { tcpSegments == 0 && quicDatagrams == 0 }

        /// In words, for the terminal and the HTML: "past the first 10000 connections of each kind, …
        /// were counted, not analysed one by one".
        public var summary: String {
            var parts: [String] = []
            if tcpSegments > 0 { parts.append("\(tcpSegments) TCP segments (\(tcpBytes) bytes, \(tcpSyns) SYNs opening connections)") }
            if quicDatagrams > 0 { parts.append("\(quicDatagrams) QUIC datagrams (\(quicBytes) bytes, \(quicInitials) opening with an Initial)") }
            return "Past the first \(limit) connections of each kind, \(parts.joined(separator: " and ")) were counted, not analysed one by one"
        }
    }
}

/// One TCP connection seen in a capture. The client is the side that sent the first SYN (or,
/// when the capture starts mid-connection, the side of the first packet seen).
public struct FlowEvidence: Sendable, Equatable {
    /// "client-address:port > server-address:port" (IPv6 addresses in brackets).
    public var tuple: String
    public var clientAddress: String
    public var clientPort: Int
    public var serverAddress: String
    public var serverPort: Int
    public var firstPacketAt: Timestamp
    public var lastPacketAt: Timestamp
    public var handshake: Handshake
    /// Time from the SYN to the ACK that completes the handshake, ms (Wireshark's
    /// `tcp.analysis.initial_rtt`); null when the capture has no complete handshake.
    public var initialRttMs: Double?
    public var clientToServer: Direction
    public var serverToClient: Direction
    public var resets: Int
    public var fins: Int
    /// "client" or "server": who sent the first FIN (or RST when there was no FIN); null if open.
    public var closedBy: String?
    /// The TLS handshake as the cleartext record layer shows it; absent when the client's first
    /// bytes were not a TLS handshake record.
    public var tls: TLS?
    /// The connection's first packets (at most `TCPFlowAnalyzer`'s mark limit: 256 in a live
    /// capture), for the per-transaction timeline; absent when not recorded (`sonde analyze`).
    public var packets: [PacketMark]?

    public init(tuple: String, clientAddress: String, clientPort: Int, serverAddress: String, serverPort: Int,
                firstPacketAt: Timestamp, lastPacketAt: Timestamp, handshake: Handshake, initialRttMs: Double?,
                clientToServer: Direction, serverToClient: Direction, resets: Int, fins: Int, closedBy: String?,
                tls: TLS? = nil, packets: [PacketMark]? = nil) {
        self.tuple = tuple
        self.clientAddress = clientAddress
        self.clientPort = clientPort
        self.serverAddress = serverAddress
        self.serverPort = serverPort
        self.firstPacketAt = firstPacketAt
        self.lastPacketAt = lastPacketAt
        self.handshake = handshake
        self.initialRttMs = initialRttMs
        self.clientToServer = clientToServer
        self.serverToClient = serverToClient
        self.resets = resets
        self.fins = fins
        self.closedBy = closedBy
        self.tls = tls
        self.packets = packets
    }

    public struct Handshake: Sendable, Equatable {
        public var synAt: Timestamp?
        public var synAckAt: Timestamp?
        public var ackAt: Timestamp?
        public var complete: Bool
        /// Options of the SYN (client) and SYN/ACK (server).
        public var clientOptions: TCPOptions?
        public var serverOptions: TCPOptions?

        public init(synAt: Timestamp?, synAckAt: Timestamp?, ackAt: Timestamp?, complete: Bool,
                    clientOptions: TCPOptions?, serverOptions: TCPOptions?) {
            self.synAt = synAt
            self.synAckAt = synAckAt
            self.ackAt = ackAt
            self.complete = complete
            self.clientOptions = clientOptions
            self.serverOptions = serverOptions
        }
    }

    public struct TCPOptions: Sendable, Equatable {
        public var mss: Int?
        public var windowScale: Int?
        public var sackPermitted: Bool
        public var timestamps: Bool

        public init(mss: Int?, windowScale: Int?, sackPermitted: Bool, timestamps: Bool) {
            self.mss = mss
            self.windowScale = windowScale
            self.sackPermitted = sackPermitted
            self.timestamps = timestamps
        }
    }

    /// Counters of one direction, Wireshark's definitions.
    public struct Direction: Sendable, Equatable {
        public var segments = 0
        /// Bytes on the wire (IP packets' total lengths).
        public var bytes = 0
        /// TCP payload bytes, retransmissions included.
        public var payloadBytes = 0
        public var retransmissions = 0
        public var fastRetransmissions = 0
        public var outOfOrder = 0
        public var duplicateAcks = 0
        public var zeroWindows = 0
        public var keepAlives = 0
        /// Segments that filled the receiver's advertised window (Wireshark's `window_full`).
        public var windowFull = 0
        public init() {}
    }

    public struct TLS: Sendable, Equatable {
        public var clientHelloAt: Timestamp?
        /// The ClientHello's server_name (SNI); nil when it sent none (an IP-address URL).
        public var serverName: String?
        /// The ClientHello's ALPN protocols, in its order.
        public var offeredAlpn: [String]
        /// The ClientHello's supported_versions (or its legacy version), e.g. "TLSv1.3".
        public var offeredVersions: [String]
        public var serverHelloAt: Timestamp?
        /// The negotiated version in OpenSSL's spelling ("TLSv1.3"), as `negotiatedTLSProtocolVersion`.
        public var version: String?
        /// The negotiated cipher suite's IANA name, or its code when sonde does not know the name.
        public var cipherSuite: String?
        /// The cipher suite's code, e.g. "0x1302" (as tshark prints `tls.handshake.ciphersuite`).
        public var cipherSuiteCode: String?
        /// The ALPN protocol the ServerHello chose: visible up to TLS 1.2 only.
        public var alpn: String?
        /// The server answered the first ClientHello with a HelloRetryRequest.
        public var helloRetryRequest: Bool
        public var clientChangeCipherSpecAt: Timestamp?
        public var serverChangeCipherSpecAt: Timestamp?
        public var clientFinishedAt: Timestamp?
        /// TLS 1.2 and earlier only.
        public var serverFinishedAt: Timestamp?
        public var clientFirstApplicationDataAt: Timestamp?
        public var serverFirstApplicationDataAt: Timestamp?
        /// ClientHello → the client's Finished, ms: the wire's view of libcurl's TLS phase.
        public var handshakeMs: Double?
        /// Alert records seen while the record layer was followed, both directions.
        public var alerts: Int
        /// Why the record layer could not be followed to the end of the handshake (a gap in the
        /// capture, a snap length that cut a record header, bytes that are not TLS); nil when it was.
        public var problem: String?

        public init(clientHelloAt: Timestamp? = nil, serverName: String? = nil, offeredAlpn: [String] = [],
                    offeredVersions: [String] = [], serverHelloAt: Timestamp? = nil, version: String? = nil,
                    cipherSuite: String? = nil, cipherSuiteCode: String? = nil, alpn: String? = nil,
                    helloRetryRequest: Bool = false, clientChangeCipherSpecAt: Timestamp? = nil,
                    serverChangeCipherSpecAt: Timestamp? = nil, clientFinishedAt: Timestamp? = nil,
                    serverFinishedAt: Timestamp? = nil, clientFirstApplicationDataAt: Timestamp? = nil,
                    serverFirstApplicationDataAt: Timestamp? = nil, handshakeMs: Double? = nil, alerts: Int = 0,
                    problem: String? = nil) {
            self.clientHelloAt = clientHelloAt
            self.serverName = serverName
            self.offeredAlpn = offeredAlpn
            self.offeredVersions = offeredVersions
            self.serverHelloAt = serverHelloAt
            self.version = version
            self.cipherSuite = cipherSuite
            self.cipherSuiteCode = cipherSuiteCode
            self.alpn = alpn
            self.helloRetryRequest = helloRetryRequest
            self.clientChangeCipherSpecAt = clientChangeCipherSpecAt
            self.serverChangeCipherSpecAt = serverChangeCipherSpecAt
            self.clientFinishedAt = clientFinishedAt
            self.serverFinishedAt = serverFinishedAt
            self.clientFirstApplicationDataAt = clientFirstApplicationDataAt
            self.serverFirstApplicationDataAt = serverFirstApplicationDataAt
            self.handshakeMs = handshakeMs
            self.alerts = alerts
            self.problem = problem
        }
    }

    /// One packet on a timeline: when (µs after a reference instant: the connection's first packet
    /// in `flows[]`, the transaction's fetch start in a transaction's `capture`), which way, how
    /// much payload, which flags ("S", "SA", "A", "PA", "FA", "R", …).
    public struct PacketMark: Sendable, Equatable {
        /// TCP flags as letters, or QUIC packet types joined by "+", or "?".
        static let flagsPattern = #"^(S?F?R?P?A?|(initial|0rtt|handshake|retry|versionNegotiation|1rtt|unknownVersion)(\+(initial|0rtt|handshake|retry|versionNegotiation|1rtt|unknownVersion))*|\?)$"#
        public var offsetUs: Int64
        public var fromClient: Bool
        public var payload: Int
        public var flags: String

        public init(offsetUs: Int64, fromClient: Bool, payload: Int, flags: String) {
            self.offsetUs = offsetUs
            self.fromClient = fromClient
            self.payload = payload
            self.flags = flags
        }
    }
}

/// Keys in alphabetical order, as `JSONEncoder` with `.sortedKeys` writes them.
extension FlowEvidence.PacketMark: FieldModel {
    public static let blank = FlowEvidence.PacketMark(offsetUs: 0, fromClient: false, payload: 0, flags: "")
    public static var schemaName: String? { "packetMark" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("flags", &flags, FieldRule(pattern: Self.flagsPattern))
        try v.visit("fromClient", &fromClient, .field)
        try v.visit("offsetUs", &offsetUs, FieldRule(unit: .microseconds))
        try v.visit("payload", &payload, .count)
    }
}
