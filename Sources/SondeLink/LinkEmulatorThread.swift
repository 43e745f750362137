import CLinkShim
import Foundation
import SondeCore
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
/// Threading: the loop and the emulator live on one thread, named `sonde-link`; `start` and `stop`
/// may be called from any thread (once each). The TUN descriptors stay open: their owner
/// (`LinkSession`) closes them after `stop` returns.
final class LinkEmulatorThread: @unchecked Sendable {
    private let host: Int32
    private let client: Int32
    private let profile: LinkProfile
    private let seed: UInt64
    private let tuning: LinkTuning
    private let stopEvent: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var counters: (down: LinkCounters, up: LinkCounters) = (LinkCounters(), LinkCounters())
    private var connectionCounters: [LinkConnectionCounters] = []
    private var failure: String?

    private static let hostTag: Int32 = 0, clientTag: Int32 = 1, stopTag: Int32 = 3

    init(host: Int32, client: Int32, profile: LinkProfile, seed: UInt64, tuning: LinkTuning) throws(LinkError) {
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

    /// The counters per connection, once `stop` returned (empty before).
    var connections: [LinkConnectionCounters] {
        lock.lock()
        defer { lock.unlock() }
        return connectionCounters
    }

    /// Stops the loop and returns the counters (waits at most 5 s for the thread; after that the
    /// counters so far). Idempotent.
    func stop() -> (down: LinkCounters, up: LinkCounters, problem: String?) {
        var one: UInt64 = 1
        _ = write(stopEvent, &one, 8)
        _ = finished.wait(timeout: .now() + 5)
        finished.signal()  // a second stop() does not wait again
        lock.lock()
        defer { lock.unlock() }
        return (counters.down, counters.up, failure)
    }

    deinit { close(stopEvent) }

    private func fail(_ message: String) {
        lock.lock()
        failure = message
        lock.unlock()
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
        var emulator = LinkEmulator<[UInt8]>(profile: profile, seed: seed, start: sonde_link_now())
        var table = LinkConnectionTable()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var tags = [Int32](repeating: 0, count: 16)
        var spin = SpinBudget(spinNs: tuning.spinNs, share: tuning.spinShare, now: sonde_link_now())
        let host = self.host, client = self.client
        var lastActivity: Int64 = 0
        while true {
            var now = sonde_link_now()
            emulator.deliver(until: now) { direction, packet in
                _ = packet.withUnsafeBytes { write(direction == .down ? client : host, $0.baseAddress, $0.count) }
                lastActivity = now
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
                    lock.lock()
                    counters = (emulator.counters(.down), emulator.counters(.up))
                    connectionCounters = table.connections
                    lock.unlock()
                    return
                case Self.hostTag, Self.clientTag:
                    let from = tag == Self.hostTag ? host : client
                    let direction: LinkDirection = tag == Self.hostTag ? .down : .up
                    for _ in 0..<tuning.batch {
                        let length = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                        guard length > 0 else { break }
                        lastActivity = sonde_link_now()
                        let packet = Array(buffer.prefix(length))
                        let isDNS = direction == .up && profile.dnsDelayNs > 0 && packet.withUnsafeBytes { IPv4Packet.isDNSQuery($0) }
                        let before = emulator.counters(direction)
                        emulator.arrive(packet, length: length, direction: direction, isDNS: isDNS, at: sonde_link_now())
                        let after = emulator.counters(direction)
                        buffer.withUnsafeBytes { table.count(UnsafeRawBufferPointer(rebasing: $0.prefix(length)), length: length,
                                                             direction: direction, before: before, after: after) }
                    }
                default:
                    break
                }
            }
        }
    }
}
