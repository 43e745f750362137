@testable import SondeCLI
import SondeSuite
import Testing

/// `PositionalRuns`: runs of positional tokens reach swift-argument-parser joined, and come back
/// apart in the same order with the same values, whatever options sit between them.
@Suite struct PositionalRunsTests {
    @Test func runsAreJoinedAndSplitBackInOrder() throws {
        let separator = String(PositionalRuns.separator)
        let line = ["probe", "http://a/1", "http://a/2", "--count", "2", "http://a/3", "http://a/4", "-H", "X: y", "http://a/5",
                    "http://a/6", "--timeout=5s", "http://a/7", "--no-reuse", "http://a/8", "http://a/9", "--", "http://a/10", "http://a/11"]
        let joined = PositionalRuns.joined(line)
        func run(_ values: String...) -> String { separator + values.map { separator + $0 }.joined(separator: separator) }
        #expect(joined == ["probe", run("http://a/1", "http://a/2"), "--count", "2", run("http://a/3", "http://a/4"),
                           "-H", "X: y", run("http://a/5", "http://a/6"), "--timeout=5s", "http://a/7", "--no-reuse", "http://a/8",
                           "http://a/9", "--", "http://a/10", "http://a/11"])
        var probe = try ProbeCommand.parse(Array(joined.dropFirst()))
        try probe.validate()
        #expect(probe.urls == (1...11).map { "http://a/\($0)" })
        #expect(probe.spec.count == 2 && probe.spec.noReuse == true)
        #expect(PositionalRuns.split([separator + separator + "a" + separator + separator + separator + separator + "b", "c"]) == ["a", "", "b", "c"])
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
        #expect(large < 60, "100,000 URLs: \(large) s")  // 10.5 s once beside other suites at load 11-15; alone 7 s
        #expect(large / max(small, 0.01) < 30, "10,000: \(small) s, 100,000: \(large) s")
    }

    /// `--name NAME` names the URL right after it (issue 41), wherever it stands among the URLs and
    /// options; the pair reaches the parser inside its run of URLs.
    @Test func aNameBindsToTheURLRightAfterIt() throws {
        let line = ["probe", "http://a/1", "--name", "login", "http://a/2", "http://a/3", "--count", "2", "--name=feed", "http://a/4",
                    "--insecure", "--name", "x | y", "http://a/1", "--name", "-", "http://a/5"]
        let joined = PositionalRuns.joined(line)
        var probe = try ProbeCommand.parse(Array(joined.dropFirst()))
        try probe.validate()
        #expect(probe.requests == [ProbeRequest(url: "http://a/1"), ProbeRequest(url: "http://a/2", name: "login"), ProbeRequest(url: "http://a/3"),
                                   ProbeRequest(url: "http://a/4", name: "feed"), ProbeRequest(url: "http://a/1", name: "x | y"),
                                   ProbeRequest(url: "http://a/5", name: "-")])
        #expect(probe.urls == ["http://a/1", "http://a/2", "http://a/3", "http://a/4", "http://a/1", "http://a/5"])
        #expect(probe.spec.count == 2 && probe.spec.insecure == true && probe.spec.requests == probe.requests)
        #expect(joined.count == 7, "\(joined)")
        // The suite entry of this command line names them as its mapping entries, and reads back the same.
        let yaml = SuiteLoader.entryYAML(name: "api", spec: probe.spec)
        #expect(yaml.contains("{name: login, url: "), "\(yaml)")
        let loaded = try SuiteLoader.parse("checks:\n" + yaml.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n",
                                           file: "suite.yaml", folder: "/", kinds: .sonde, environment: [:])
        guard let spec = loaded.suite.checks.first?.spec as? ProbeSpec else { Issue.record("\(loaded.suite)"); return }
        #expect(spec.requests == probe.requests)
    }

    @Test(arguments: [
        (["probe", "http://a/1", "--name", "last"], "--name last names no URL"),
        (["probe", "--name", "x", "--count", "2", "http://a/1"], "--name x names no URL"),
        (["probe", "--name", "x", "--", "http://a/1"], "--name x names no URL"),
        (["probe", "--name", "", "http://a/1"], "--name cannot be empty"),
        (["probe", "--name", "a\u{7}b", "http://a/1"], "control character"),
    ])
    func aNameWithoutItsURLIsRefused(line: [String], message: String) throws {
        do {
            var probe = try ProbeCommand.parse(Array(PositionalRuns.joined(line).dropFirst()))
            try probe.validate()
            Issue.record("accepted: \(line)")
        } catch {
            #expect("\(error)".contains(message) || ProbeCommand.message(for: error).contains(message), "\(ProbeCommand.message(for: error))")
        }
    }

    @Test func manyNamedURLsParseInLinearTime() throws {
        func seconds(_ count: Int) throws -> Double {
            let line = ["probe"] + (0..<count).flatMap { ["--name", "n\($0)", "http://127.0.0.1:1/\($0)"] }
            let started = ContinuousClock.now
            var probe = try ProbeCommand.parse(Array(PositionalRuns.joined(line).dropFirst()))
            try probe.validate()
            #expect(probe.requests.count == count && probe.requests.last?.name == "n\(count - 1)")
            let elapsed = ContinuousClock.now - started
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        let small = try seconds(10_000), large = try seconds(100_000)
        // Quadratic parsing took over 1,500 s for 40,000 URLs; linear takes 2-15 s here in a debug
        // build, depending on the load beside it: the bound is far from both.
        #expect(large < 60, "100,000 named URLs: \(large) s")
        #expect(large / max(small, 0.01) < 30, "10,000: \(small) s, 100,000: \(large) s")
    }
}
