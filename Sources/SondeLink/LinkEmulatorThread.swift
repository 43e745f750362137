import CLinkShim
import Foundation
import SondeCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The thread that moves packets between the host's TUN and the namespace's through a
/// `LinkEmulator`: epoll on both TUNs and an eventfd that stops it, waiting with epoll_pwait2 until
/// the next deadline (nanosecond timeout on CLOCK_MONOTONIC; a timerfd cost two more system calls
/// per deadline). Packets read from the host's TUN go down (to the
/// namespace's TUN), packets read from the namespace's go up; each is written to the other TUN
/// when the emulator says it is due.
///
/// Linux's TUN cannot hold a sender back: when its queue toward this thread is full it drops
/// (tx_dropped). So the thread never lets a backlog of due packets keep it from reading: it writes
/// them `deliveryRound` at a time and reads both TUNs between rounds, and the TUNs' queues are long
/// (`LinkTuning.tunQueuePackets`). What the kernel still drops, and writes that fail, are counted
/// (`LinkCounters.droppedByTUNQueue`, `droppedByTUNWrite`).
///
/// Threading: the loop and the emulator live on one thread, named `sonde-link`; `start` and `stop`
/// may be called from any thread (once each). The TUN descriptors stay open: their owner
/// (`LinkSession`) closes them after `stop` returns.
final class LinkEmulatorThread: @unchecked Sendable {
    private let host: Int32
    private let client: Int32
    private let profile: LinkProfile
    private let seed: UInt64
    private let tuning: LinkTuning
    /// Under `nat64`: translates what the host's TUN gives (IPv4) before it goes down the link, and
    /// what comes up the link (IPv6) before it is written to the host's TUN; its own ICMP errors go
    /// straight back to the sender's TUN.
    private let translator: NAT64Translator?
    private let stopEvent: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let lock = Mutex(())
    private var counters: (down: LinkCounters, up: LinkCounters) = (LinkCounters(), LinkCounters())
    /// Writes to a TUN that failed, per direction (the thread's own until it stops).
    private var failedWrites: (down: Int64, up: Int64) = (0, 0)
    private var connectionCounters: [LinkConnectionCounters] = []
    private var started: Timestamp?
    private var failure: String?

    private static let hostTag: Int32 = 0, clientTag: Int32 = 1, stopTag: Int32 = 3
    /// The most due packets written per direction before both TUNs are read again: a backlog of
    /// deliveries (a burst come due) must not leave the TUNs unread while their queues fill.
    static let deliveryRound = 16

    init(host: Int32, client: Int32, profile: LinkProfile, seed: UInt64, tuning: LinkTuning, translator: NAT64Translator? = nil) throws(LinkError) {
        self.translator = translator
        self.host = host
        self.client = client
        self.profile = profile
        self.seed = seed
        self.tuning = tuning
        let event = sonde_link_eventfd()
        guard event >= 0 else { throw LinkError.setup("creating the emulator's stop event", code: event) }
        stopEvent = event
    }

    func start() {
        Thread.startNamed("sonde-link", stackSize: 1 << 20) { [self] in
            run()
            finished.signal()
        }
    }

    /// The wall-clock time of the emulator's start (its outages and traces count from it); nil
    /// until the thread started it.
    var startedAt: Timestamp? {
        lock.withLock { _ in
            return started
        }
    }

    /// The counters per connection, once `stop` returned (empty before).
    var connections: [LinkConnectionCounters] {
        lock.withLock { _ in
            return connectionCounters
        }
    }

    /// Stops the loop and returns the counters (waits at most 5 s for the thread; after that the
    /// counters so far), with each direction's failed writes in `droppedByTUNWrite`. Idempotent.
    func stop() -> (down: LinkCounters, up: LinkCounters, problem: String?) {
        var one: UInt64 = 1
        _ = write(stopEvent, &one, 8)
        _ = finished.wait(timeout: .now() + 5)
        finished.signal()  // a second stop() does not wait again
        return lock.withLock { _ in
            var down = counters.down, up = counters.up
            down.droppedByTUNWrite += failedWrites.down
            up.droppedByTUNWrite += failedWrites.up
            return (down, up, failure)
        }
    }

    deinit { close(stopEvent) }

    private func fail(_ message: String) {
        lock.withLock { _ in
            failure = message
        }
    }

    private func run() {
        _ = sonde_link_set_timer_slack(1)
        if tuning.realtime { _ = sonde_link_set_fifo(10) }
        let epoll = sonde_link_epoll_create()
        guard epoll >= 0 else { return fail("the emulator could not create its epoll descriptor") }
        defer { close(epoll) }
        for (fd, tag) in [(host, Self.hostTag), (client, Self.clientTag), (stopEvent, Self.stopTag)] {
            let added = sonde_link_epoll_add(epoll, fd, tag)
            guard added == 0 else { return fail("the emulator could not watch a descriptor: \(systemErrorMessage(-added))") }
        }
        let wall = Timestamp.now()
        var emulator = LinkEmulator<[UInt8]>(profile: profile, seed: seed, start: sonde_link_now())
        lock.withLock { _ in
            started = wall
        }
        var table = LinkConnectionTable(translator: self.translator)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var tags = [Int32](repeating: 0, count: 16)
        var spin = SpinBudget(spinNs: tuning.spinNs, share: tuning.spinShare, now: sonde_link_now())
        let host = self.host, client = self.client
        var lastActivity: Int64 = 0
        var translator = self.translator
        var failed: (down: Int64, up: Int64) = (0, 0)
        /// Reads up to `tuning.batch` packets from the TUN of `direction` and hands them to the emulator.
        func readArrivals(_ direction: LinkDirection) {
            let from = direction == .down ? host : client
            for _ in 0..<tuning.batch {
                let length = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                guard length > 0 else { break }
                lastActivity = sonde_link_now()
                var packet = Array(buffer.prefix(length))
                if direction == .down, translator != nil {
                    switch translator?.down(packet) {
                    case let .translated(v6)?: packet = v6
                    case let .reply(v4)?:
                        _ = v4.withUnsafeBytes { write(host, $0.baseAddress, $0.count) }
                        continue
                    default: continue
                    }
                }
                let isDNS = direction == .up && profile.dnsDelayNs > 0 && packet.withUnsafeBytes { IPv4Packet.isDNSQuery($0) }
                let before = emulator.counters(direction)
                emulator.arrive(packet, length: packet.count, direction: direction, isDNS: isDNS, at: sonde_link_now())
                let after = emulator.counters(direction)
                buffer.withUnsafeBytes { table.count(UnsafeRawBufferPointer(rebasing: $0.prefix(length)), length: length,
                                                     direction: direction, before: before, after: after) }
            }
        }
        while true {
            var now = sonde_link_now()
            // Due packets a round at a time, both TUNs read between rounds (see the type).
            while emulator.deliver(until: now, limit: Self.deliveryRound, { direction, delivered in
                var packet = delivered
                if direction == .up, translator != nil {
                    switch translator?.up(delivered) {
                    case let .translated(v4)?: packet = v4
                    case let .reply(v6)?:
                        _ = v6.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                        return
                    default: return
                    }
                }
                let written = packet.withUnsafeBytes { write(direction == .down ? client : host, $0.baseAddress, $0.count) }
                if written < 0 {
                    if direction == .down { failed.down += 1 } else { failed.up += 1 }
                }
                lastActivity = now
            }) {
                readArrivals(.down)
                readArrivals(.up)
                now = sonde_link_now()
            }
            now = sonde_link_now()
            // epoll_pwait2 waits to the nanosecond: no timerfd to arm and read per deadline.
            let wake = spin.wake(for: emulator.nextDeadline, lastActivity: lastActivity, now: now)
            let count = tags.withUnsafeMutableBufferPointer { sonde_link_epoll_wait_until(epoll, $0.baseAddress, 16, wake) }
            if count == -EINTR { continue }
            guard count >= 0 else { return fail("the emulator's wait failed: \(systemErrorMessage(-count))") }
            for tag in tags.prefix(Int(count)) {
                switch tag {
                case Self.stopTag:
                    lock.withLock { _ in
                        counters = (emulator.counters(.down), emulator.counters(.up))
                        connectionCounters = table.connections
                        failedWrites = failed
                    }
                    return
                case Self.hostTag:
                    readArrivals(.down)
                case Self.clientTag:
                    readArrivals(.up)
                default:
                    break
                }
            }
        }
    }
}
