/// The packet evidence of one capture (a live `--capture` or `sonde analyze FILE`): the report's
/// `captures[]` entries. Counting rules follow Wireshark's TCP analysis (see `TCPFlowAnalyzer`).
public struct CaptureReport: Codable, Sendable, Equatable {
    public var file: String
    /// The interface captured on (live captures), nil for a file analysed offline.
    public var interface: String?
    /// The BPF filter of a live capture, nil offline.
    public var filter: String?
    /// libpcap's link-type name, e.g. EN10MB, LINUX_SLL, LINUX_SLL2, RAW, NULL.
    public var linkType: String
    public var packets: Int
    /// Packets that were not IPv4/IPv6 TCP (or could not be decoded): counted, not analysed.
    public var otherPackets: Int
    /// Packets libpcap dropped during a live capture (pcap_stats); nil offline.
    public var drops: Int?
    /// False when the file ended early or was damaged: the flows hold what was read before.
    public var complete: Bool
    /// What went wrong while reading, in words (empty for a clean file).
    public var problems: [String]
    public var flows: [FlowEvidence]

    public init(file: String, interface: String? = nil, filter: String? = nil, linkType: String, packets: Int,
                otherPackets: Int, drops: Int? = nil, complete: Bool, problems: [String], flows: [FlowEvidence]) {
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
    }
}

/// One TCP connection seen in a capture. The client is the side that sent the first SYN (or,
/// when the capture starts mid-connection, the side of the first packet seen).
public struct FlowEvidence: Codable, Sendable, Equatable {
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

    public init(tuple: String, clientAddress: String, clientPort: Int, serverAddress: String, serverPort: Int,
                firstPacketAt: Timestamp, lastPacketAt: Timestamp, handshake: Handshake, initialRttMs: Double?,
                clientToServer: Direction, serverToClient: Direction, resets: Int, fins: Int, closedBy: String?) {
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
    }

    public struct Handshake: Codable, Sendable, Equatable {
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

    public struct TCPOptions: Codable, Sendable, Equatable {
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
    public struct Direction: Codable, Sendable, Equatable {
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
        public init() {}
    }
}
