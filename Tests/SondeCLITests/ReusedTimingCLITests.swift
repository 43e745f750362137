import Foundation
import Testing

/// Phases on reused connections checked against the wire: nginx (an independent server) answers
/// a small file in tens of µs over loopback, so a request milestone stamped late by libcurl shows
/// as a `wait` shorter than the capture's request-to-response gap. Needs tcpdump's privilege.
@Suite(.serialized) struct ReusedTimingCLITests {
    /// Ten sequential requests on one TLS connection (HTTP/1.1, then HTTP/2): for every reused
    /// transaction, the request starts before its packet is on the wire, the response starts
    /// after the server's first bytes are, and `wait` holds the whole gap between the two.
    @Test(arguments: ["--http1.1", "--http2"])
    func waitOnAReusedConnectionHoldsTheServersTime(version: String) throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let port = nginx.https
        let work = Harness.temporaryDirectory()
        let file = work + "/reused.pcap"
        var report: [String: Any] = [:]
        try CLICaptureTests.capture("/usr/bin/tcpdump", ["-i", "lo", "-U", "--immediate-mode", "-B", "65536", "-w", file, "tcp port \(port)"],
                                    file: file, ready: "listening on", connections: 1) {
            let result = try Harness.sonde(["probe", "--json", version, "--count", "10", "--cacert", nginx.certificate,
                                            "--output-dir", work + "/reports", "https://127.0.0.1:\(port)/1k.bin"])
            #expect(result.status == 0, "\(result.stderr)")
            report = try Harness.json(result.stdout)
        }
        let wire = try ParallelTimingCLITests.packets(file).filter { $0.length > 0 }
        let transactions = (report["probes"] as? [[String: Any]] ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        #expect(transactions.count == 10)
        let reused = transactions.filter { $0["isReusedConnection"] as? Bool == true }
        #expect(reused.count == 9, "one connection for all ten")
        var gaps: [String] = []
        // The transactions run one after another: a request is the first client record after the
        // previous response began and after its hop started, the response the server's next record.
        var previous = try #require(ParallelTimingCLITests.micros(transactions.first?["responseStartDate"]))
        for t in reused {
            let fetchStart = try #require(ParallelTimingCLITests.micros(t["fetchStartDate"]))
            let requestStart = try #require(ParallelTimingCLITests.micros(t["requestStartDate"]))
            let responseStart = try #require(ParallelTimingCLITests.micros(t["responseStartDate"]))
            // 50 µs of slack wherever the wall clock of a date meets the capture's.
            let request = try #require(wire.first { $0.destinationPort == port && $0.at > previous && $0.at >= fetchStart - 50 },
                                       "request after \(fetchStart)")
            let response = try #require(wire.first { $0.sourcePort == port && $0.at > request.at }, "response after \(request.at)")
            previous = response.at
            let phases = try #require(t["phases"] as? [String: Any])
            let wait = Int64(((phases["wait"] as? Double ?? 0) * 1000).rounded())
            let gap = response.at - request.at
            gaps.append("wire \(gap) µs, wait \(wait) µs")
            // wait is measured on one clock, the gap on another: 20 µs for rounding and drift.
            #expect(wait >= gap - 20, "\(version): wait \(wait) µs, yet the server took \(gap) µs on the wire: \(phases)")
            #expect(requestStart <= request.at + 50, "\(version): request started at \(requestStart), its packet left at \(request.at)")
            #expect(responseStart >= response.at - 50, "\(version): response started at \(responseStart), its first bytes came at \(response.at)")
            let sum = ["send", "wait", "receive"].compactMap { phases[$0] as? Double }.reduce(0, +)
            #expect(abs(sum - (phases["total"] as? Double ?? -1)) < 0.002, "\(phases)")
        }
        print("\(version) reused: \(gaps.joined(separator: "; "))")
    }
}
