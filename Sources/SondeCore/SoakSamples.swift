/// The fine-grained measurements of a soak between two journal flushes: ping RTTs with their
/// time (for the histogram and the timeline), missed pings, echo RTTs. Compact arrays, because a
/// soak of thousands of connections produces thousands of these a second.
public struct SoakSamples: Sendable, Equatable {
    /// `[connection, attempt, µs since the soak started, RTT µs]`.
    public var pings: [[Int64]]
    /// `[connection, attempt, µs since the soak started]` of pings whose pong never came.
    public var missed: [[Int64]]
    /// Echo RTTs, µs.
    public var echoes: [Int64]
    /// The times between consecutive events of the soak's subprotocol (`SoakSubprotocolAction.eventGap`:
    /// a subscription's messages), µs; nil (and absent from the journal) when there were none.
    public var nextGaps: [Int64]?

    public init(pings: [[Int64]] = [], missed: [[Int64]] = [], echoes: [Int64] = []) {
        self.pings = pings
        self.missed = missed
        self.echoes = echoes
    }

    public var isEmpty: Bool { pings.isEmpty && missed.isEmpty && echoes.isEmpty && (nextGaps ?? []).isEmpty }
}
