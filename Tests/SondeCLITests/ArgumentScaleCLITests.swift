import Foundation
import Testing

/// The command line of `sonde probe` with tens of thousands of URLs is parsed in time linear in
/// their number (issue 39 #20: 10,000 URLs took 3.9 s and 40,000 63 s before a run began).
/// `--count 0` is refused once the whole line is parsed, so the time is the parse's.
@Suite(.serialized) struct ArgumentScaleCLITests {
    @Test func tensOfThousandsOfURLsParseInLinearTime() throws {
        var seconds: [Int: Double] = [:]
        for count in [10_000, 40_000] {
            let urls = (0..<count).map { "http://127.0.0.1:1/\($0)" }
            let started = Date()
            let result = try Harness.sonde(["probe", "--count", "0"] + urls, timeout: 90)
            seconds[count] = Date().timeIntervalSince(started)
            #expect(result.status == 64 && result.stderr.contains("--count must be between"), "\(count): \(result.status) \(result.stderr.prefix(300))")
        }
        let small = seconds[10_000] ?? .infinity, large = seconds[40_000] ?? .infinity
        #expect(large < 20, "40,000 URLs: \(large) s")
        // Linear: four times the URLs, well under sixteen times the time (a start-up floor included).
        #expect(large < 8 * max(small, 0.25), "10,000 URLs: \(small) s, 40,000: \(large) s")
    }
}
