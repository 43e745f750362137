import SondeCore
@testable import SondeLink
import Testing

/// The emulator core with a made-up clock (nanoseconds): delay, rate, queue, loss, jitter,
/// outages, traces, DNS delay and the counters.
@Suite struct DirectionEmulatorTests {
    private let ms: Int64 = 1_000_000

    private func profile(_ text: String, trace: String = "1\n") throws -> LinkProfile {
        try LinkProfileParser.parse(text) { (path: String, key: String) throws(SettingProblem) -> DeliveryTrace in
            try DeliveryTrace(path: path, text: trace, key: key)
        }
    }

    /// Runs `arrivals` (time, length) through the downlink and returns each packet's delivery
    /// time (nil when dropped), stepping the clock from deadline to deadline like the thread does.
    private func run(_ profile: LinkProfile, _ arrivals: [(Int64, Int)], seed: UInt64 = 1,
                     until end: Int64? = nil) -> (times: [Int64?], counters: LinkCounters) {
        var emulator = DirectionEmulator<Int>(direction: profile.down, profile: profile, applyDNSDelay: false, seed: seed, start: 0)
        var delivered = [Int64?](repeating: nil, count: arrivals.count)
        var index = 0
        var now: Int64 = 0
        var steps = 0
        while steps < 10_000_000 {
            steps += 1
            let nextArrival = index < arrivals.count ? arrivals[index].0 : nil
            let nextDue = emulator.nextDeadline
            guard let next = [nextArrival, nextDue].compactMap({ $0 }).min() else { break }
            now = next
            if let end, now > end { break }
            emulator.deliver(until: now) { delivered[$0] = now }
            while index < arrivals.count, arrivals[index].0 == now {
                emulator.arrive(index, length: arrivals[index].1, at: now)
                index += 1
            }
            emulator.deliver(until: now) { delivered[$0] = now }
        }
        return (delivered, emulator.counters)
    }

    @Test func delayIsAddedOneWay() throws {
        let result = run(try profile("delay-down=40ms"), [(0, 100), (5 * ms, 100)])
        #expect(result.times == [40 * ms, 45 * ms])
        #expect(result.counters.packetsDelivered == 2 && result.counters.bytesDelivered == 200)
    }

    @Test func rateSpacesPacketsBySerialization() throws {
        // 8 Mbit/s: 1000 bytes take 1 ms; three back-to-back packets leave at 1, 2, 3 ms, then + 10 ms.
        let result = run(try profile("rate-down=8Mbit,delay-down=10ms"), [(0, 1000), (0, 1000), (0, 1000)])
        #expect(result.times == [11 * ms, 12 * ms, 13 * ms])
        #expect(result.counters.queuePeakBytes == 3000)
    }

    @Test func aLongRunDeliversAtTheRate() throws {
        // 2 s of 1500-byte packets offered at 12 Mbit/s to an 8 Mbit/s link with a large queue:
        // everything delivered in the first second's worth of link time is 8 Mbit.
        let arrivals = (0..<2000).map { (Int64($0) * 1_000_000, 1500) }
        let result = run(try profile("rate-down=8Mbit,queue=100MB"), arrivals)
        let inFirstSecond = result.times.compactMap { $0 }.filter { $0 <= 1_000 * ms }.count
        #expect(inFirstSecond == 666)  // 8e6 / (1500 × 8) = 666.7
        #expect(result.counters.dropped == 0)
    }

    @Test func theQueueIsDropTail() throws {
        // 3000 bytes of queue at 8 Mbit/s: of ten 1000-byte packets at once, three fit.
        let result = run(try profile("rate-down=8Mbit,queue=3000"), (0..<10).map { _ in (0, 1000) })
        #expect(result.times.prefix(3).allSatisfy { $0 != nil } && result.times.dropFirst(3).allSatisfy { $0 == nil })
        #expect(result.counters.droppedByQueue == 7 && result.counters.queuePeakBytes == 3000)
        // Once the queue drains, packets are taken again.
        let later = run(try profile("rate-down=8Mbit,queue=3000"), (0..<4).map { _ in (0, 1000) } + [(3 * ms, 1000)])
        #expect(later.times[3] == nil && later.times[4] == 4 * ms)
    }

    @Test func lossIsNearItsProbabilityAndSeeded() throws {
        let arrivals = (0..<20_000).map { (Int64($0) * 10_000, 100) }
        let first = run(try profile("loss-down=1%"), arrivals, seed: 7)
        let rate = Double(first.counters.droppedByLoss) / 20_000
        #expect(rate > 0.008 && rate < 0.012)
        let again = run(try profile("loss-down=1%"), arrivals, seed: 7)
        #expect(again.times == first.times)
        #expect(first.counters.packetsIn == first.counters.packetsDelivered + first.counters.dropped)
        #expect(run(try profile("100%-loss"), arrivals.prefix(50).map { $0 }).counters.packetsDelivered == 0)
    }

    @Test func gilbertLossComesInBursts() throws {
        let arrivals = (0..<50_000).map { (Int64($0) * 10_000, 100) }
        let result = run(try profile("loss-model=gilbert:1%,25%"), arrivals, seed: 3)
        let mean = Double(result.counters.droppedByLoss) / 50_000  // p / (p + r) = 3.85 %
        #expect(mean > 0.030 && mean < 0.047)
        // Bursts: mean run of losses 1 / r = 4, far above independent loss's ~1.04.
        var runs = 0, lost = 0, inRun = false
        for time in result.times {
            if time == nil { lost += 1; if !inRun { runs += 1 }; inRun = true } else { inRun = false }
        }
        #expect(Double(lost) / Double(runs) > 3)
    }

    @Test func jitterNeverReorders() throws {
        let arrivals = (0..<2000).map { (Int64($0) * 100_000, 100) }
        let result = run(try profile("delay-down=20ms,jitter=5ms"), arrivals)
        let times = result.times.compactMap { $0 }
        #expect(times.count == 2000 && zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        let extra = zip(times, arrivals).map { $0 - $1.0 }
        #expect(extra.min()! >= 15 * ms && extra.max()! <= 25 * ms + 100_000)
        #expect(Set(extra).count > 100)  // it does vary
    }

    @Test func outagesDropEverything() throws {
        // Down for 1 s at the end of every 4 s: arrivals in 3…4 s are dropped, and so are those
        // in flight due then (delay 100 ms: sent at 2.95 s, due at 3.05 s).
        let profile = try profile("delay-down=100ms,outage=1s/4s")
        let arrivals: [(Int64, Int)] = [(1_000 * ms, 100), (2_950 * ms, 100), (3_500 * ms, 100), (4_100 * ms, 100), (7_950 * ms, 100)]
        let result = run(profile, arrivals)
        #expect(result.times == [1_100 * ms, nil, nil, 4_200 * ms, nil])
        #expect(result.counters.droppedByOutage == 3)
    }

    @Test func traceOpportunitiesCarry1500Bytes() throws {
        // Opportunities at 10, 10, 20 ms, period 20 ms (so 30, 30, 40, 50, 50, 60 … after it).
        let profile = try profile("trace-down=t,delay-down=5ms,queue=100KB", trace: "10\n10\n20\n")
        // Four 1500-byte packets at 0: two leave at 10 ms (two opportunities), one at 20, one at 30.
        let result = run(profile, (0..<4).map { _ in (0, 1500) })
        #expect(result.times == [15 * ms, 15 * ms, 25 * ms, 35 * ms])
        // A 3000-byte packet needs two opportunities; a 500-byte one shares an opportunity.
        let split = run(profile, [(0, 3000), (0, 500), (0, 500)])
        #expect(split.times == [15 * ms, 25 * ms, 25 * ms])
        #expect(split.counters.queuePeakBytes == 4000)
    }

    @Test func anIdleTraceSkipsUnusedOpportunities() throws {
        let profile = try profile("trace-down=t", trace: "10\n10\n20\n")
        // Arriving at 1 s + 15 ms: the next opportunity is 1 s + 20 ms (the loop has run 50 times).
        let result = run(profile, [(1_015 * ms, 1500), (1_015 * ms, 1500), (1_015 * ms, 1500)])
        #expect(result.times == [1_020 * ms, 1_030 * ms, 1_030 * ms])
    }

    @Test func traceQueueIsBounded() throws {
        let profile = try profile("trace-down=t,queue=3000", trace: "100\n")
        let result = run(profile, (0..<5).map { _ in (0, 1500) })
        #expect(result.counters.droppedByQueue == 3 && result.times[0] == 100 * ms && result.times[1] == 200 * ms)
    }

    @Test func dnsQueriesWaitOnALineOfTheirOwn() throws {
        let profile = try profile("delay-up=10ms,dns-delay=100ms")
        var emulator = LinkEmulator<Int>(profile: profile, seed: 1, start: 0)
        emulator.arrive(1, length: 60, direction: .up, isDNS: true, at: 0)
        emulator.arrive(2, length: 60, direction: .up, at: 1 * ms)
        var seen: [(Int, Int64)] = []
        var steps = 0
        while let next = emulator.nextDeadline, steps < 10 {
            steps += 1
            emulator.deliver(until: next) { _, packet in seen.append((packet, next)) }
        }
        #expect(seen.map(\.0) == [2, 1] && seen.map(\.1) == [11 * ms, 110 * ms])
    }

    @Test func dnsPacketsAreRecognised() {
        // IPv4 + UDP to port 53, and to port 80.
        var query: [UInt8] = [0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1, 0x30, 0x39, 0, 53]
        query += [UInt8](repeating: 0, count: 16)
        var web = query
        web[23] = 80
        #expect(query.withUnsafeBytes { IPv4Packet.isDNSQuery($0) })
        #expect(!web.withUnsafeBytes { IPv4Packet.isDNSQuery($0) })
        #expect(!Array(query.prefix(22)).withUnsafeBytes { IPv4Packet.isDNSQuery($0) })
        #expect(![UInt8]().withUnsafeBytes { IPv4Packet.isDNSQuery($0) })
    }
}
