@testable import SondeCLI
import Testing

/// `PositionalRuns`: runs of positional tokens reach swift-argument-parser joined, and come back
/// apart in the same order with the same values, whatever options sit between them.
@Suite struct PositionalRunsTests {
    @Test func runsAreJoinedAndSplitBackInOrder() throws {
        let separator = String(PositionalRuns.separator)
        let line = ["probe", "http://a/1", "http://a/2", "--count", "2", "http://a/3", "http://a/4", "-H", "X: y", "http://a/5",
                    "http://a/6", "--timeout=5s", "http://a/7", "--no-reuse", "http://a/8", "http://a/9", "--", "http://a/10", "http://a/11"]
        let joined = PositionalRuns.joined(line)
        #expect(joined == ["probe", "http://a/1" + separator + "http://a/2", "--count", "2", "http://a/3" + separator + "http://a/4",
                           "-H", "X: y", "http://a/5" + separator + "http://a/6", "--timeout=5s", "http://a/7", "--no-reuse", "http://a/8",
                           "http://a/9", "--", "http://a/10", "http://a/11"])
        var probe = try ProbeCommand.parse(Array(joined.dropFirst()))
        try probe.validate()
        #expect(probe.urls == (1...11).map { "http://a/\($0)" })
        #expect(probe.spec.count == 2 && probe.spec.noReuse == true)
        #expect(PositionalRuns.split(["a" + separator + separator + "b", "c"]) == ["a", "", "b", "c"])
        // Other commands' lines are left alone.
        #expect(PositionalRuns.joined(["soak", "ws://a/", "ws://b/"]) == ["soak", "ws://a/", "ws://b/"])
        #expect(PositionalRuns.split(["a", "b"]) == ["a", "b"])
    }

    @Test func manyURLsParseInLinearTime() throws {
        func seconds(_ count: Int) throws -> Double {
            let line = ["probe"] + (0..<count).map { "http://127.0.0.1:1/\($0)" }
            let started = ContinuousClock.now
            var probe = try ProbeCommand.parse(Array(PositionalRuns.joined(line).dropFirst()))
            try probe.validate()
            #expect(probe.urls.count == count)
            let elapsed = ContinuousClock.now - started
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        let small = try seconds(10_000), large = try seconds(100_000)
        #expect(large < 10, "100,000 URLs: \(large) s")
        #expect(large / max(small, 0.01) < 30, "10,000: \(small) s, 100,000: \(large) s")
    }
}
