import Foundation
import Testing

/// `reuseAgrees` on real reused connections whose transactions start within about a millisecond
/// of the connection's SYN (issue 39 #21: a SYN at .398593, the reused transaction at .399164,
/// judged to DISAGREE). Captured by sonde's live capture (root, as CI runs), each connection's
/// SYNs read again by tshark from the same file.
@Suite(.serialized) struct CaptureReuseCLITests {
    /// tshark's SYNs (without ACK) of `file`: client port → their times (epoch seconds).
    static func synsByPort(_ file: String) throws -> [Int: [Double]] {
        let result = try Harness.run("/usr/bin/tshark", ["-r", file, "-Y", "tcp.flags.syn == 1 && tcp.flags.ack == 0", "-T", "fields",
                                                          "-e", "frame.time_epoch", "-e", "tcp.srcport"])
        #expect(result.status == 0, "\(result.stderr)")
        var syns: [Int: [Double]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let fields = line.split(separator: "\t")
            guard fields.count == 2, let time = Double(fields[0]), let port = Int(fields[1]) else { continue }
            syns[port, default: []].append(time)
        }
        return syns
    }

    /// Seconds since the epoch of a report date (`2026-11-27T19:01:02.398593Z`).
    static func epoch(_ text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text), let dot = text.lastIndex(of: "."), let micros = Double("0" + text[dot...].dropLast()) else {
            return nil
        }
        return date.timeIntervalSince1970.rounded(.down) + micros
    }

    /// Runs `arguments` with a live capture and checks every transaction: one SYN on its local
    /// port in the file (tshark), and `reuseAgrees` true. Returns the reused transactions' start
    /// minus their connection's SYN (ms, tshark's time).
    func reusedStartsAfterTheirSYN(_ arguments: [String]) throws -> [Double] {
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--capture", "--json", "--output-dir", output] + arguments, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        let syns = try Self.synsByPort(folder + "/capture.pcap")
        let transactions = (report["probes"] as? [[String: Any]] ?? []).flatMap { ($0["transactionMetrics"] as? [[String: Any]]) ?? [] }
        var gaps: [Double] = []
        for transaction in transactions {
            let port = transaction["localPort"] as? Int ?? 0
            let portSYNs = syns[port] ?? []
            #expect(portSYNs.count == 1, "port \(port): SYNs \(portSYNs)")
            let evidence = transaction["capture"] as? [String: Any] ?? [:]
            #expect(evidence["reuseAgrees"] as? Bool == true,
                    "\(transaction["isReusedConnection"] ?? "?") on port \(port), SYN \(portSYNs), fetch start \(transaction["fetchStartDate"] ?? "?"), queue \(transaction["queue"] ?? "-"): \(evidence)")
            if transaction["isReusedConnection"] as? Bool == true, let syn = portSYNs.first,
               let start = (transaction["fetchStartDate"] as? String).flatMap(Self.epoch) {
                gaps.append((start - syn) * 1000)
            }
        }
        return gaps
    }

    /// HTTP/2 with `--parallel 4`: three hops wait in sonde's queue while the first opens the
    /// connection, then reuse it: they began before its SYN went out.
    @Test func queuedHTTP2HopsThatReuseTheConnectionAgree() throws {
        let target = try TargetProcess.get()
        let gaps = try reusedStartsAfterTheirSYN(["--http2", "--cacert", target.caFile, "--parallel", "4", "--count", "4",
                                                  target.https + "/bytes/10"])
        #expect(gaps.count == 3 && gaps.allSatisfy { $0 < 1 }, "reused transactions start \(gaps) ms after the SYN")
    }

    /// Sequential requests on one HTTP/1.1 connection: every reused transaction agrees, its SYN
    /// before it. (In a debug build on a loaded machine the first reused one starts 2.7–14 ms after
    /// the SYN, past the old rule's reach; the issue's 0.57 ms was a faster build: the rule's unit
    /// test `CaptureMatcherReuseTests` holds those very times.)
    @Test func sequentialReuseRightAfterTheSYNAgrees() throws {
        let target = try TargetProcess.get()
        let gaps = try reusedStartsAfterTheirSYN(["--count", "6", target.http + "/bytes/1"])
        #expect(gaps.count == 5 && gaps.allSatisfy { $0 > 0 }, "\(gaps)")
    }
}
