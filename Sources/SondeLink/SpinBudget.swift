/// When the emulator thread polls instead of sleeping (timers and wake-ups here are 50–100 µs late,
/// docs/link.md): in the `spinNs` before a deadline, and in the `spinNs` after the last packet it
/// read or wrote (the answer to a packet often comes right after it: polling then takes the
/// wake-up's latency off the answer's arrival time, which is when its delay starts). A token bucket
/// bounds it: polling is paid in the wall time it takes, earned at `share` of the wall time, and
/// holds at most ten spins. Sparse packets (a handshake, a ping, a request) are polled for every
/// time; a stream of deadlines 120 µs apart (100 Mbit/s) polls for at most `share` of the
/// thread's time and sleeps to the other deadlines, so the CPU it costs is bounded by design.
///
/// Times are CLOCK_MONOTONIC nanoseconds. Not thread-safe: it lives on the emulator thread.
struct SpinBudget {
    /// How long before a deadline, and after the last packet, the thread polls (0: never).
    let spinNs: Int64
    /// The largest share of wall time polling may take, 0...1.
    let share: Double
    private let capNs: Int64
    private var tokensNs: Int64
    private var lastNs: Int64
    private var polling = false

    init(spinNs: Int64, share: Double, now: Int64) {
        self.spinNs = max(0, spinNs)
        self.share = min(1, max(0, share))
        capNs = self.spinNs * 10
        tokensNs = capNs
        lastNs = now
    }

    /// When the next wait should end: `now` to poll, `deadline - spinNs` (or the deadline when the
    /// budget is spent) to sleep towards the next deadline, -1 to sleep until a packet comes.
    /// - Parameters:
    ///   - deadline: the emulator's next deadline, if it holds packets.
    ///   - lastActivity: when the thread last read or wrote a packet.
    mutating func wake(for deadline: Int64?, lastActivity: Int64, now: Int64) -> Int64 {
        let elapsed = max(0, now - lastNs)
        lastNs = now
        if polling { tokensNs -= elapsed }
        tokensNs = min(capNs, tokensNs + Int64(Double(elapsed) * share))
        polling = false
        guard spinNs > 0, tokensNs > 0 else { return deadline ?? -1 }
        if now - lastActivity < spinNs || (deadline.map { $0 - now <= spinNs } ?? false) {
            polling = true
            return now
        }
        return deadline.map { $0 - spinNs } ?? -1
    }
}
