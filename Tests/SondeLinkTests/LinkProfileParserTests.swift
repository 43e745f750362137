import SondeCore
@testable import SondeLink
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--link` text: presets, overrides, custom keys, and clear refusals naming the key.
@Suite struct LinkProfileParserTests {
    private func parse(_ text: String) throws(SettingProblem) -> LinkProfile {
        try LinkProfileParser.parse(text) { (path: String, key: String) throws(SettingProblem) -> DeliveryTrace in
            try DeliveryTrace(path: path, text: "0\n5\n10\n", key: key)
        }
    }

    private func problem(_ text: String) -> SettingProblem? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func presetsCarryApplesValues() throws {
        let threeG = try parse("3g")
        #expect(threeG.down.rateBitsPerSecond == 780_000 && threeG.up.rateBitsPerSecond == 330_000)
        #expect(threeG.down.delayNs == 100_000_000 && threeG.up.delayNs == 100_000_000)
        let edge = try parse("edge")
        #expect(edge.down.rateBitsPerSecond == 240_000 && edge.up.rateBitsPerSecond == 200_000)
        #expect(edge.down.delayNs == 400_000_000 && edge.up.delayNs == 440_000_000)
        let bad = try parse("very-bad")
        #expect(bad.down.rateBitsPerSecond == 1_000_000 && bad.down.loss == 0.1 && bad.up.loss == 0.1 && bad.up.delayNs == 500_000_000)
        #expect(try parse("100%-loss").down.loss == 1)
        #expect(try parse("high-latency-dns").dnsDelayNs == 3_000_000_000)
        for name in LinkPresets.names { #expect(try parse(name).name == name) }
    }

    @Test func customKeysAreRead() throws {
        let profile = try parse("rate-down=8Mbit,rate-up=2Mbit,delay-down=40ms,delay-up=40ms,jitter=5ms,loss-down=1%,loss-up=0.5%,queue=64KiB,dns-delay=0ms")
        #expect(profile.name == "custom")
        #expect(profile.down.rateBitsPerSecond == 8_000_000 && profile.up.rateBitsPerSecond == 2_000_000)
        #expect(profile.down.delayNs == 40_000_000 && profile.up.delayNs == 40_000_000)
        #expect(profile.jitterNs == 5_000_000 && profile.queueBytes == 65_536)
        #expect(profile.down.loss == 0.01 && profile.up.loss == 0.005)
        let conditions = profile.conditions
        #expect(conditions.delayDownMs == 40 && conditions.lossUpPercent == 0.5 && conditions.rateDownBitsPerSecond == 8_000_000)
    }

    @Test func everyKeyIsOptional() throws {
        let profile = try parse("delay-up=10ms")
        #expect(profile.down == LinkProfile.Direction() && profile.up.delayNs == 10_000_000)
        #expect(profile.queueBytes == LinkProfile.defaultQueueBytes && profile.outage == nil)
    }

    @Test func aPresetTakesOverrides() throws {
        let profile = try parse("lte,loss-down=2%,rate-up=none")
        #expect(profile.name == "lte+" && profile.down.rateBitsPerSecond == 50_000_000 && profile.down.loss == 0.02)
        #expect(profile.up.rateBitsPerSecond == nil && profile.up.delayNs == 65_000_000)
    }

    @Test func theSeedIsAKeyOfTheProfile() throws {
        #expect(try parse("lte").seed == LinkProfile.defaultSeed)
        let seeded = try parse("lte,seed=42")
        #expect(seeded.seed == 42 && seeded.name == "lte")
        #expect(try parse("seed=9223372036854775807").seed == UInt64(Int64.max))
        for bad in ["seed=-1", "seed=9223372036854775808", "seed=1e3", "seed=x"] {
            #expect(problem(bad)?.key == "seed", "\(bad)")
        }
    }

    @Test func gilbertLossKeepsItsComma() throws {
        let profile = try parse("delay-down=10ms,loss-model=gilbert:1%,30%,queue=10KB")
        #expect(profile.lossModel == .gilbert(p: 0.01, r: 0.3) && profile.queueBytes == 10_000)
        #expect(profile.conditions.lossModel == "gilbert:1%,30%")
        // A preset's independent loss gives way to the chain.
        let bad = try parse("very-bad,loss-model=gilbert:2%,50%")
        #expect(bad.down.loss == 0 && bad.lossModel == .gilbert(p: 0.02, r: 0.5))
    }

    @Test func outagesAndTraces() throws {
        let profile = try parse("outage=5s/60s,trace-down=down.trace")
        #expect(profile.outage == LinkProfile.Outage(durationNs: 5_000_000_000, periodNs: 60_000_000_000))
        #expect(profile.down.trace?.timesMs == [0, 5, 10] && profile.down.trace?.periodMs == 10)
        #expect(profile.conditions.traceDown == "down.trace" && profile.conditions.outageMs == 5000)
    }

    @Test(arguments: [
        ("", "link"), ("lte,lte", "link"), ("wimax", "link"), ("colour=blue", "link"), ("delay-down=40ms,40ms", "link"),
        ("rate-down=8MB", "rate-down"), ("rate-down=0", "rate-down"), ("rate-down=200Gbit", "rate-down"), ("rate-up=fast", "rate-up"),
        ("delay-down=-5ms", "delay-down"), ("delay-up=2m", "delay-up"), ("delay-down=", "delay-down"), ("jitter=11s", "jitter"),
        ("loss-down=1", "loss-down"), ("loss-up=101%", "loss-up"), ("loss-down=-1%", "loss-down"), ("loss-down=x%", "loss-down"),
        ("loss-model=gilbert:1%", "loss-model"), ("loss-model=gilbert:1%,0%", "loss-model"), ("loss-model=markov", "loss-model"),
        ("loss-model=gilbert:1%,30%,loss-down=1%", "loss-model"),
        ("queue=100", "queue"), ("queue=2GiB", "queue"), ("queue=lots", "queue"),
        ("dns-delay=2m", "dns-delay"), ("outage=5s", "outage"), ("outage=60s/5s", "outage"), ("outage=0s/5s", "outage"),
        ("outage=1s/2d", "outage"), ("delay-down=1ms,delay-down=2ms", "delay-down"), ("rate-down=1Mbit,trace-down=x", "trace-down"),
        ("a,,b", "link"),
    ])
    func badInputIsRefusedNamingTheKey(text: String, key: String) {
        let refused = problem(text)
        #expect(refused?.key == key, "\(text): \(String(describing: refused))")
        #expect((refused?.message.isEmpty ?? true) == false)
    }

    @Test func longTextIsRefused() {
        #expect(problem(String(repeating: "x", count: 5000))?.key == "link")
    }

    @Test func ratesParseWithUnits() {
        #expect(Quantity.rate("8Mbit") == 8_000_000)
        #expect(Quantity.rate("780 kbit") == 780_000)
        #expect(Quantity.rate("1Gbit") == 1_000_000_000)
        #expect(Quantity.rate("2.5mbps") == 2_500_000)
        #expect(Quantity.rate("64000") == 64_000)
        #expect(Quantity.rate("8MB") == nil && Quantity.rate("-1kbit") == nil && Quantity.rate("1e300Gbit") == nil)
        #expect(Quantity.rate("1e-9kbit") == nil && Quantity.rate("kbit") == nil && Quantity.rate("") == nil)
    }

    @Test func theReportFormRoundTrips() throws {
        var output = JSONOutput()
        try parse("lte,jitter=3ms,outage=5s/60s").conditions.writeJSON(to: &output)
        var reader = JSONReader(output.bytes)
        let back = try LinkConditions(reading: &reader)
        #expect(back == (try parse("lte,jitter=3ms,outage=5s/60s").conditions))
        #expect(back.fieldRangeProblem == nil)
    }
}

/// mahimahi trace files: bounded, whole non-negative milliseconds, never decreasing.
@Suite struct DeliveryTraceTests {
    private func problem(_ text: String) -> String? {
        do { _ = try DeliveryTrace(path: "t", text: text, key: "trace-down"); return nil } catch { return error.message }
    }

    @Test func readsMahimahiLines() throws {
        let trace = try DeliveryTrace(path: "t", text: "1\n1\n3\r\n7", key: "trace-down")
        #expect(trace.timesMs == [1, 1, 3, 7] && trace.periodMs == 7)
    }

    @Test(arguments: ["", "\n", "5\n\n6\n", "-1\n", "1.5\n", "abc\n", "5\n3\n", "0\n0\n", " 5\n", "99999999999\n"])
    func refusesBadTraces(text: String) {
        #expect(problem(text) != nil, "\(text.debugDescription) was accepted")
    }

    @Test func refusesLinksAndHugeFiles() throws {
        let directory = "/tmp/sonde-link-trace-\(getpid())"
        mkdir(directory, 0o700)
        defer { _ = unlink(directory + "/big"); _ = unlink(directory + "/link"); _ = rmdir(directory) }
        let big = open(directory + "/big", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(big >= 0)
        _ = ftruncate(big, off_t(DeliveryTrace.maxFileBytes + 1))
        close(big)
        #expect(throws: SettingProblem.self) { _ = try DeliveryTrace.read(path: directory + "/big", key: "trace-up") }
        _ = symlink(directory + "/big", directory + "/link")
        #expect(throws: SettingProblem.self) { _ = try DeliveryTrace.read(path: directory + "/link", key: "trace-up") }
        #expect(throws: SettingProblem.self) { _ = try DeliveryTrace.read(path: directory + "/missing", key: "trace-up") }
    }
}
