/// When the emulator thread polls instead of sleeping (timers and wake-ups here are 50–100 µs late,
/// docs/link.md): in the `spinNs` before a deadline, and in the `spinNs` after the last packet it
/// read or wrote (the answer to a packet often comes right after it: polling then takes the
/// wake-up's latency off the answer's arrival time, which is when its delay starts).
///
/// Polling begins only after a quiet spell: a wait that slept at least `quietNs` (the thread had
/// nothing to do for that long); it then goes on while a deadline or the last packet is within
/// `spinNs`, and stops when the thread next goes to sleep. The thread sleeps to `spinNs` before a
/// deadline only when that sleep is itself a quiet spell, else straight to the deadline. Sparse
/// packets (a handshake, a ping, a request, a stream of datagrams milliseconds apart) follow quiet
/// spells and are polled for every time; a stream dense enough that the thread never sleeps `quietNs` at a time (a bulk transfer:
/// at 50 Mbit/s a deadline every 240 µs) is not polled for at all, and its packets leave as late as
/// the thread's wake-ups are (as with `--spin 0us`). A token bucket bounds what is left: polling is
/// paid in the wall time it takes, earned at `share` of the wall time, and holds at most ten spins,
/// so polling never takes more than `share` of the thread's time (a stream with deadlines
/// 0.6–0.8 ms apart is where it reaches it: each deadline polled for, 200 µs at a time).
///
/// Times are CLOCK_MONOTONIC nanoseconds. Not thread-safe: it lives on the emulator thread.
struct SpinBudget {
    /// How long before a deadline, and after the last packet, the thread polls (0: never).
    let spinNs: Int64
    /// The largest share of wall time polling may take, 0...1.
    let share: Double
    /// The shortest sleep after which polling may begin again.
    let quietNs: Int64
    private let capNs: Int64
    private var tokensNs: Int64
    private var lastNs: Int64
    private var polling = false
    /// Whether polling may begin: set when a sleep of at least `quietNs` ends, cleared when the
    /// thread goes back to sleep.
    private var primed = true

    /// The quiet spell before polling when none is given: 500 µs (wifi's 1 ms delay leaves the
    /// thread about 800 µs of sleep between a packet and its deadline's spin).
    static let defaultQuietNs: Int64 = 500_000

    init(spinNs: Int64, share: Double, quietNs: Int64 = SpinBudget.defaultQuietNs, now: Int64) {
        self.spinNs = max(0, spinNs)
        self.share = min(1, max(0, share))
        self.quietNs = max(0, quietNs)
        capNs = self.spinNs * 10
        tokensNs = capNs
        lastNs = now
    }

    /// When the next wait should end: `now` to poll, `deadline - spinNs` to sleep towards the next
    /// deadline's spin (a sleep of at least `quietNs`), the deadline itself when it is closer or the
    /// budget is spent, -1 to sleep until a packet comes.
    /// - Parameters:
    ///   - deadline: the emulator's next deadline, if it holds packets.
    ///   - lastActivity: when the thread last read or wrote a packet.
    mutating func wake(for deadline: Int64?, lastActivity: Int64, now: Int64) -> Int64 {
        let elapsed = max(0, now - lastNs)
        lastNs = now
        if polling {
            tokensNs -= elapsed
        } else if elapsed >= quietNs {
            primed = true
        }
        tokensNs = min(capNs, tokensNs + Int64(Double(elapsed) * share))
        polling = false
        guard spinNs > 0, tokensNs > 0 else {
            primed = false
            return deadline ?? -1
        }
        if primed, now - lastActivity < spinNs || (deadline.map { $0 - now <= spinNs } ?? false) {
            polling = true
            return now
        }
        primed = false
        guard let deadline else { return -1 }
        // Sleeping to the deadline's spin is a quiet spell only when it is long enough; else the
        // thread sleeps straight to the deadline (one wake-up, no polling).
        return deadline - spinNs - now >= quietNs ? deadline - spinNs : deadline
    }
}
