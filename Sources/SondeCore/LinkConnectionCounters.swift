/// What the link emulator did to one connection's packets (`link.connections[]` in a report): a
/// TCP connection or a UDP flow (a QUIC connection, a DNS exchange) of the checked process, named
/// by its protocol, its port on the checked side and the far end, with both directions' counters.
///
/// Invariants: each direction's `packetsIn == packetsDelivered + droppedByLoss + droppedByQueue +
/// droppedByOutage` counts the fate each packet got on arrival (a packet dropped later, because it
/// came due during an outage, counts as delivered here: the link's own counters have it);
/// `queuePeakBytes` is 0 (the queue is the link's, shared by every connection).
public struct LinkConnectionCounters: Sendable, Equatable {
    /// "tcp", "udp", or "other" for the packets of connections beyond the emulator's table.
    public var protocolName: String
    /// The port on the checked process's side (0 for "other", which has no port).
    public var localPort: Int
    public var remoteAddress: String
    public var remotePort: Int
    /// What the far end is when the link itself runs it: "DNS64" (a `nat64` link's resolver, which
    /// the checked process sees as `[fd53:6f6e:6465::53]:53`); nil for the checked servers.
    public var service: String?
    public var down: LinkCounters
    public var up: LinkCounters

    public init(protocolName: String, localPort: Int, remoteAddress: String, remotePort: Int, service: String? = nil,
                down: LinkCounters = LinkCounters(), up: LinkCounters = LinkCounters()) {
        self.protocolName = protocolName
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.service = service
        self.down = down
        self.up = up
    }
}

extension LinkConnectionCounters: FieldModel {
    public static let blank = LinkConnectionCounters(protocolName: "", localPort: 0, remoteAddress: "", remotePort: 0)
    public static var schemaName: String? { "linkConnection" }

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("protocolName", &protocolName, .required)
        try v.visit("localPort", &localPort, .requiredCount)
        try v.visit("remoteAddress", &remoteAddress, .required)
        try v.visit("remotePort", &remotePort, .requiredCount)
        try v.visit("service", &service, .omittedWhenNil)
        try v.visit("down", &down, .required)
        try v.visit("up", &up, .required)
    }
}
