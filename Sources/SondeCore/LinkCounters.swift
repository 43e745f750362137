/// What the link did to one direction of traffic (`link.counters.down|up` in a report): packets
/// and bytes that reached the emulator, that it delivered, and why the others were dropped, by
/// the emulator (the profile's loss, queue and outages) or by the kernel's TUN devices around it
/// (`droppedByTUNQueue`, `droppedByTUNWrite`), so that every packet lost between the two network
/// namespaces is counted somewhere.
///
/// Invariant, once the emulator has drained: `packetsIn == packetsDelivered + droppedByLoss +
/// droppedByQueue + droppedByOutage` (packets still in flight when a run stops are the
/// difference); `droppedByTUNQueue` never reached the emulator, so it is not in `packetsIn`;
/// `droppedByTUNWrite` is part of `packetsDelivered` (the emulator handed them on, the kernel lost
/// them after). Packets sent into the link: `packetsIn + droppedByTUNQueue`.
/// Bytes are IP bytes (header included), as the rate counts them.
public struct LinkCounters: Sendable, Equatable {
    public var packetsIn: Int64 = 0
    public var bytesIn: Int64 = 0
    public var packetsDelivered: Int64 = 0
    public var bytesDelivered: Int64 = 0
    /// Dropped by the loss model (independent or Gilbert-Elliott).
    public var droppedByLoss: Int64 = 0
    /// Dropped because the queue could not hold them (drop-tail).
    public var droppedByQueue: Int64 = 0
    /// Dropped because they arrived, or were due, during an outage.
    public var droppedByOutage: Int64 = 0
    /// The most bytes the queue held at once.
    public var queuePeakBytes: Int64 = 0
    /// Dropped by the kernel before the emulator read them: the TUN they entered by had its queue
    /// toward the emulator full (the device's tx_dropped; the emulator fell behind the sender).
    public var droppedByTUNQueue: Int64 = 0
    /// Delivered by the emulator but lost on the way out: writes to the far TUN that failed, and
    /// packets that TUN's kernel side dropped on receipt (its rx_dropped).
    public var droppedByTUNWrite: Int64 = 0

    public init() {}

    /// Packets dropped for any reason, by the emulator or by the TUN devices.
    public var dropped: Int64 { droppedByLoss + droppedByQueue + droppedByOutage + droppedByTUN }

    /// Packets the kernel's TUN devices dropped (not the profile's doing).
    public var droppedByTUN: Int64 { droppedByTUNQueue + droppedByTUNWrite }
}

extension LinkCounters: FieldModel {
    public static let blank = LinkCounters()

    public mutating func visitFields<Visitor: FieldVisitor>(_ v: inout Visitor) throws(Visitor.Failure) {
        try v.visit("packetsIn", &packetsIn, .requiredCount)
        try v.visit("bytesIn", &bytesIn, .requiredCount)
        try v.visit("packetsDelivered", &packetsDelivered, .requiredCount)
        try v.visit("bytesDelivered", &bytesDelivered, .requiredCount)
        try v.visit("droppedByLoss", &droppedByLoss, .requiredCount)
        try v.visit("droppedByQueue", &droppedByQueue, .requiredCount)
        try v.visit("droppedByOutage", &droppedByOutage, .requiredCount)
        try v.visit("queuePeakBytes", &queuePeakBytes, .requiredCount)
        try v.visit("droppedByTUNQueue", &droppedByTUNQueue, .count)
        try v.visit("droppedByTUNWrite", &droppedByTUNWrite, .count)
    }
}
