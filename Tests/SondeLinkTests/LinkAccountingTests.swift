import SondeCore
@testable import SondeLink
import Testing

/// Issue 39's link items without root: a queue counted in packets (dummynet's slots), deliveries
/// in rounds (so the thread reads between them), the kernel's drop counters read from
/// /proc/net/dev, TUN drops in the words ("none dropped" only when nothing dropped), the outage
/// windows a report lists, and the link's jitter in `sonde link`'s line.
@Suite struct LinkAccountingTests {
    private let ms: Int64 = 1_000_000

    private func problem(_ text: String) -> SettingProblem? {
        do { _ = try LinkProfileParser.parse(text); return nil } catch { return error }
    }

    /// `queue=3pkt` holds three packets whatever their size; `queue=4500B` holds 45 packets of
    /// 100 bytes. Ten 100-byte packets at once into 1 Mbit/s (each 0.8 ms on the wire).
    @Test func aQueueInPacketsCountsPacketsNotBytes() throws {
        func dropped(_ text: String) throws -> LinkCounters {
            let profile = try LinkProfileParser.parse(text)
            var emulator = DirectionEmulator<Int>(direction: profile.down, profile: profile, applyDNSDelay: false, seed: 1, start: 0)
            for index in 0..<10 { emulator.arrive(index, length: 100, at: 0) }
            emulator.deliver(until: 1000 * ms) { _ in }
            return emulator.counters
        }
        let packets = try dropped("rate-down=1Mbit,queue=3pkt")
        #expect(packets.droppedByQueue == 7 && packets.packetsDelivered == 3, "\(packets)")
        let bytes = try dropped("rate-down=1Mbit,queue=4500")
        #expect(bytes.droppedByQueue == 0 && bytes.packetsDelivered == 10, "\(bytes)")
        // Once the bottleneck has sent them, the slots are free again.
        let profile = try LinkProfileParser.parse("rate-down=1Mbit,queue=2pkt")
        var emulator = DirectionEmulator<Int>(direction: profile.down, profile: profile, applyDNSDelay: false, seed: 1, start: 0)
        emulator.arrive(0, length: 100, at: 0)
        emulator.arrive(1, length: 100, at: 0)
        emulator.arrive(2, length: 100, at: 0)  // dropped: two in the queue
        emulator.arrive(3, length: 100, at: 2 * ms)  // both sent by 1.6 ms
        emulator.deliver(until: 1000 * ms) { _ in }
        #expect(emulator.counters.droppedByQueue == 1 && emulator.counters.packetsDelivered == 3)
    }

    @Test func queueTakesPacketsAndSaysSoInTheReport() throws {
        let profile = try LinkProfileParser.parse("lte,queue=50pkt")
        #expect(profile.queuePackets == 50)
        #expect(profile.conditions.queuePackets == 50 && profile.conditions.queueBytes == 0)
        #expect(profile.conditions.summary.contains("queue 50 packets"), "\(profile.conditions.summary)")
        #expect(try LinkProfileParser.parse("queue=2 packets").queuePackets == 2)
        #expect(try LinkProfileParser.parse("queue=64KiB").queuePackets == nil)
        for bad in ["queue=0pkt", "queue=100001pkt", "queue=pkt", "queue=-3pkt", "queue=1.5pkt", "queue=99999999999pkt"] {
            #expect(problem(bad)?.key == "queue", "\(bad)")
        }
        // A queue other than the default shows in the words; the default does not.
        #expect(try LinkProfileParser.parse("rate-down=1Mbit,queue=64KiB").conditions.summary.contains("queue 65536 B"))
        #expect(!(try LinkProfileParser.parse("3g").conditions.summary.contains("queue")))
    }

    /// `limit` hands at most that many due packets and says more are due, so the emulator thread
    /// reads its TUNs between rounds of a backlog.
    @Test func deliveriesComeInRoundsWhenALimitIsGiven() throws {
        let profile = try LinkProfileParser.parse("delay-down=5ms")
        var emulator = LinkEmulator<Int>(profile: profile, seed: 1, start: 0)
        for index in 0..<40 { emulator.arrive(index, length: 1500, direction: .down, at: Int64(index)) }
        var handed: [Int] = []
        var rounds = 0
        while emulator.deliver(until: 10 * ms, limit: 16, { _, packet in handed.append(packet) }) { rounds += 1 }
        #expect(rounds == 2 && handed == Array(0..<40), "\(rounds) \(handed)")
        let more = emulator.deliver(until: 20 * ms, limit: 16) { _, _ in Issue.record("nothing is left") }
        #expect(!more)
    }

    @Test func theKernelsDropCountersAreReadFromProcNetDev() {
        let text = """
        Inter-|   Receive                                                |  Transmit
         face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
            lo:    1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0
        sonde12h: 4620068   68820    0    3    0     0          0         0 103889468   71390    0 4208    0     0       0          0
        sonde12c:  200  2 0 0 0 0 0 0  300 3 0 0 0 0 0 0
        """
        #expect(DeviceDrops.parse(text, device: "sonde12h") == DeviceDrops(receive: 3, transmit: 4208))
        #expect(DeviceDrops.parse(text, device: "sonde12c") == DeviceDrops(receive: 0, transmit: 0))
        #expect(DeviceDrops.parse(text, device: "sonde1") == nil)
        #expect(DeviceDrops.parse("sonde1: 1 2 3", device: "sonde1") == nil, "a short line is not read")
        #expect(DeviceDrops.parse("x: 0 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0", device: "x") == nil, "beyond a count")
        #expect(DeviceDrops.parse("x: 0 0 0 -1 0 0 0 0 0 0 0 0 0 0 0 0", device: "x") == nil)
        // The calling thread's own namespace has `lo`.
        #expect(DeviceDrops.read(device: "lo") != nil)
    }

    /// Drops by the kernel's TUNs are drops: never "none dropped".
    @Test func dropsAtTheTUNsAreNeverNone() {
        var counters = LinkCounters()
        counters.packetsIn = 1000
        counters.packetsDelivered = 1000
        #expect(counters.summary.contains("none dropped"))
        counters.droppedByTUNQueue = 42
        counters.droppedByTUNWrite = 1
        #expect(counters.dropped == 43)
        #expect(counters.summary == "1042 packets, 43 dropped (TUN queue 42, TUN write 1)", "\(counters.summary)")
        let use = LinkUse(conditions: LinkConditions(profile: "custom", spec: "delay-down=5ms"), seed: 1, down: counters, up: LinkCounters())
        #expect(use.dropped == 43)
    }

    /// `outage=2s/5s` from 10:00:00 to 10:00:12: down 3–5 s, 8–10 s, and 13… cut at the stop (12 s).
    @Test func outageWindowsFollowTheEmulatorsClock() {
        let start = Timestamp(microsecondsSince1970: 1_000_000_000_000_000)
        let windows = LinkOutageWindow.windows(start: start, stop: start.adding(microseconds: 12_000_000), durationMs: 2000, periodMs: 5000)
        #expect(windows.omitted == 0)
        #expect(windows.listed.map { ($0.startedAt.microsecondsSince1970 - start.microsecondsSince1970) / 1000 } == [3000, 8000])
        #expect(windows.listed.map { ($0.endedAt.microsecondsSince1970 - start.microsecondsSince1970) / 1000 } == [5000, 10_000])
        let cut = LinkOutageWindow.windows(start: start, stop: start.adding(microseconds: 14_000_000), durationMs: 2000, periodMs: 5000)
        #expect(cut.listed.count == 3 && cut.listed[2].endedAt == start.adding(microseconds: 14_000_000))
        let many = LinkOutageWindow.windows(start: start, stop: start.adding(microseconds: 86_400_000_000), durationMs: 1, periodMs: 2)
        #expect(many.listed.count == LinkOutageWindow.maxListed && many.omitted == 43_200_000 - Int64(LinkOutageWindow.maxListed))
        #expect(LinkOutageWindow.windows(start: start, stop: start, durationMs: 2000, periodMs: 5000).listed.isEmpty)
        var use = LinkUse(conditions: LinkConditions(profile: "t", spec: "outage=2s/5s", outageMs: 2000, outagePeriodMs: 5000), seed: 1)
        use.startedAt = start
        use.stoppedAt = start.adding(microseconds: 12_000_000)
        use.listOutages()
        #expect(use.outages?.count == 2 && use.outagesOmitted == nil)
        #expect(use.fieldRangeProblem == nil)
    }

    /// `sonde link`'s line names every parameter the profile sets: jitter too.
    @Test func theConditionsNameJitterAndTheRest() throws {
        let words = try LinkProfileParser.parse("delay-down=50ms,delay-up=50ms,jitter=20ms,dns-delay=1s,outage=1s/10s").conditions.parameters
        #expect(words == "down unlimited +50 ms, up unlimited +50 ms (RTT 100 ms, jitter ±20 ms, DNS +1000 ms, outage 1 s every 10 s)", "\(words)")
    }
}
