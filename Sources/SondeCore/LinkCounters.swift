/// What the link emulator did to one direction of traffic (`link.counters.down|up` in a report):
/// packets and bytes that arrived, that were delivered, and why the others were dropped.
///
/// Invariant, once the emulator has drained: `packetsIn == packetsDelivered + droppedByLoss +
/// droppedByQueue + droppedByOutage` (packets still in flight when a run stops are the difference).
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

    public init() {}

    /// Packets dropped for any reason.
    public var dropped: Int64 { droppedByLoss + droppedByQueue + droppedByOutage }
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
    }
}
