import Foundation
import Testing

/// `sonde analyze` on a capture of 300,000 connections (issue 39 #19: a 21 MB pcap of SYNs from
/// different addresses took 1.88 GB of RSS): memory stays bounded (`/usr/bin/time -v`), the first
/// 10,000 connections are analysed one by one and the rest counted in `omitted`, which the report
/// and the terminal say; tshark counts the same SYNs in the file.
@Suite(.serialized) struct AnalyzeMemoryCLITests {
    /// The peak RSS in MB `/usr/bin/time -v` printed.
    static func maxRSSMegabytes(_ stderr: String) -> Double? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains("Maximum resident set size (kbytes)") }),
              let kilobytes = Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") else { return nil }
        return kilobytes / 1024
    }

    @Test func aCaptureOf300000ConnectionsIsAnalysedInBoundedMemory() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pcap = directory + "/syn-flood.pcap"
        let made = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/syn_flood_pcap.py", pcap, "300000"],
                                   timeout: 120)
        #expect(made.status == 0, "\(made.stderr)")
        let output = directory + "/runs"
        let result = try Harness.run("/usr/bin/time", ["-v", Harness.sonde, "analyze", pcap, "--output-dir", output], timeout: 600)
        #expect(result.status == 0, "\(result.stdout.suffix(500))\(result.stderr.suffix(2000))")
        let rss = try #require(Self.maxRSSMegabytes(result.stderr), "\(result.stderr.suffix(2000))")
        // 10,000 connections' evidence through the report's writing: far below the 1.88 GB of 300,000.
        #expect(rss < 400, "peak RSS \(rss) MB")
        #expect(result.stdout.contains("Past the first 10000 connections of each kind, 290000 TCP segments"), "\(result.stdout.suffix(600))")

        let folder = output + "/" + (try #require(try Harness.entries(of: output).first))
        let report = try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let capture = try #require((report["captures"] as? [[String: Any]])?.first)
        let flows = capture["flows"] as? [[String: Any]] ?? []
        let omitted = try #require(capture["omitted"] as? [String: Any], "\(capture.keys)")
        #expect(capture["packets"] as? Int == 300_000 && capture["complete"] as? Bool == true)
        #expect(flows.count == 10_000 && omitted["limit"] as? Int == 10_000, "\(flows.count) \(omitted)")
        #expect(omitted["tcpSyns"] as? Int == 290_000 && omitted["tcpSegments"] as? Int == 290_000 && omitted["tcpBytes"] as? Int == 290_000 * 40,
                "\(omitted)")
        #expect(try Harness.validate([folder + "/report.json"]).status == 0)
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("Past the first 10000 connections"))

        // tshark, reading the same file: every packet a SYN without ACK, one per connection.
        let tshark = try Harness.run("/usr/bin/tshark", ["-r", pcap, "-Y", "tcp.flags.syn == 1 && tcp.flags.ack == 0", "-T", "fields",
                                                         "-e", "tcp.srcport"], timeout: 300)
        let syns = tshark.stdout.split(separator: "\n").count
        #expect(syns == flows.count + (omitted["tcpSyns"] as? Int ?? 0), "tshark: \(syns) SYNs")
    }
}
