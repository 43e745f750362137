/// How the emulator thread waits for a deadline: timers on this VM fire 80–100 µs late even when
/// idle (docs/link.md), so the thread asks for no timer slack, may run SCHED_FIFO, and may wake
/// `spinNs` before a deadline and poll until it (a short busy wait, which costs CPU per deadline),
/// after quiet spells only and for at most `spinShare` of its time (`SpinBudget`).
public struct LinkTuning: Sendable, Equatable {
    /// Wake this long before each deadline and poll until it (0: sleep until the deadline).
    public var spinNs: Int64
    /// The largest share of the thread's wall time spins may take (0...1); past it, the thread
    /// sleeps to its deadlines until the budget refills.
    public var spinShare: Double
    /// Run the emulator thread SCHED_FIFO (priority 10) when the process may (root).
    public var realtime: Bool
    /// The most packets read from one TUN per wake-up before the other gets its turn.
    public var batch: Int
    /// Each TUN's transmit queue (txqueuelen), in packets: what the kernel holds for the emulator
    /// before it drops (`LinkNamespace.defaultTUNQueuePackets`).
    public var tunQueuePackets: Int32

    /// The default spin (100 µs, at most 25 % of the thread's time) holds the per-packet error
    /// under 50 µs on sparse traffic; a bulk stream is not polled for (`SpinBudget`), so it costs
    /// no polling at high rates (docs/link.md).
    public init(spinNs: Int64 = 100_000, spinShare: Double = 0.25, realtime: Bool = true, batch: Int = 64,
                tunQueuePackets: Int32 = LinkTuning.defaultTUNQueuePackets) {
        self.spinNs = spinNs
        self.spinShare = spinShare
        self.realtime = realtime
        self.batch = batch
        self.tunQueuePackets = tunQueuePackets
    }

    /// The TUNs' transmit queue when none is given (Linux's default is 500). Linux's TUN applies
    /// no backpressure (since 3.8 it drops when this ring is full), so the ring is long: more than
    /// a TCP connection's largest receive window (tcp_rmem's 6 MiB by default, about 4,300
    /// full-size packets) fits in it, so a TCP receiver on either side holds its sender back by
    /// flow control before the ring overflows. What still overflows it is counted
    /// (`LinkCounters.droppedByTUNQueue`).
    public static let defaultTUNQueuePackets: Int32 = 16_384
    /// The bounds of `tunQueuePackets`.
    public static let tunQueueRange: ClosedRange<Int32> = 1...1_000_000

    /// The largest spin accepted: 1 ms.
    public static let maxSpinNs: Int64 = 1_000_000
}
