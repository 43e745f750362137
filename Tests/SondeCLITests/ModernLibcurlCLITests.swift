import Foundation
import Testing

/// What libcurl 8 adds, used where present, and the same story told on libcurl 7.88: connection
/// ids (CURLINFO_CONN_ID on 8.2+, the 4-tuple before), libcurl's own queue time (8.6+, null/-1
/// before), the send phase ending at CURLINFO_POSTTRANSFER_TIME_T (8.10+), and h2c reuse (8.0+).
/// They run on whichever libcurl the test process gives sonde: `swift test` (the provided libcurl
/// 8) and `make test-system-libcurl` (Debian's 7.88) each check their half.
@Suite(.serialized) struct ModernLibcurlCLITests {
    /// The transactions of a `--json` run, in task order.
    static func transactions(_ arguments: [String]) throws -> (report: [String: Any], transactions: [[String: Any]], folder: String) {
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["probe", "--json", "--output-dir", output] + arguments, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Harness.json(result.stdout)
        let tasks = try #require(report["probes"] as? [[String: Any]])
        let folder = output + "/" + (try Harness.entries(of: output)[0])
        return (report, tasks.flatMap { $0["transactionMetrics"] as? [[String: Any]] ?? [] }, folder)
    }

    static func ids(_ transactions: [[String: Any]]) -> [Int] {
        transactions.compactMap { $0["connectionID"] as? Int }
    }

    /// Both libcurls tell the same reuse story, whichever way they identify a connection.
    @Test(arguments: ["http", "https"])
    func keepAliveGivesOneConnectionAndNoReuseThree(scheme: String) throws {
        let target = try TargetProcess.get()
        let url = (scheme == "http" ? target.http : target.https) + "/bytes/100"
        let warm = try Self.transactions(["--count", "3", "--cacert", target.caFile, url]).transactions
        #expect(warm.count == 3)
        #expect(Self.ids(warm) == [1, 1, 1], "\(LibcurlFacts.runningVersion): \(warm.map { $0["connectionID"] ?? "nil" })")
        #expect(warm.map { $0["isReusedConnection"] as? Bool } == [false, true, true])
        let fresh = try Self.transactions(["--count", "3", "--no-reuse", "--cacert", target.caFile, url]).transactions
        #expect(Self.ids(fresh) == [1, 2, 3], "\(LibcurlFacts.runningVersion): \(fresh.map { $0["connectionID"] ?? "nil" })")
        #expect(fresh.allSatisfy { $0["isReusedConnection"] as? Bool == false })
    }

    /// h2c reuses its connection on libcurl 8; on 7.88 (curl issue #10634) every task opens its
    /// own and the run says why, and only there.
    @Test func h2cReusesItsConnectionExceptOn788() throws {
        let target = try TargetProcess.get()
        let run = try Self.transactions(["--count", "3", "--http2-prior-knowledge", target.h2c + "/bytes/10"])
        let warnings = (run.report["run"] as? [String: Any])?["warnings"] as? [String] ?? []
        let warned = warnings.contains { $0.contains("#10634") }
        #expect(run.transactions.allSatisfy { $0["networkProtocolName"] as? String == "h2c" })
        if LibcurlFacts.runningMajor >= 8 {
            #expect(!warned, "\(warnings)")
            #expect(Self.ids(run.transactions) == [1, 1, 1])
        } else {
            #expect(warned, "\(warnings)")
            #expect(Self.ids(run.transactions) == [1, 2, 3])
        }
    }

    /// libcurl's queue time where libcurl 8.6+ has it, null (HAR: -1) where it does not; HAR's
    /// `blocked` is sonde's queue on both.
    @Test func libcurlQueueIsPresentOnlyWhereLibcurlMeasuresIt() throws {
        let target = try TargetProcess.get()
        let run = try Self.transactions(["--count", "2", target.http + "/bytes/10"])
        let har = try Harness.json(try String(contentsOfFile: run.folder + "/report.har", encoding: .utf8))
        let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        for (transaction, entry) in zip(run.transactions, entries) {
            let timings = try #require(entry["timings"] as? [String: Any])
            #expect(timings["blocked"] as? Double == transaction["queue"] as? Double)
            if LibcurlFacts.runningLacks("queueTime") {
                #expect(transaction["libcurlQueue"] is NSNull)
                #expect(entry["_libcurlQueue"] as? Double == -1)
            } else {
                let queue = try #require(transaction["libcurlQueue"] as? Double)
                #expect(queue >= 0 && queue < 1_000)
                #expect(entry["_libcurlQueue"] as? Double == queue)
            }
        }
        let (check, _) = try CLIReportFormatTests.check(run.folder)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(try Harness.validate([run.folder + "/report.json"]).status == 0)
    }

    /// An upload's send phase runs until its last byte went (libcurl 8.10+: post-transfer time;
    /// before: sonde's read callback), and the phases still add up to total.
    @Test func sendEndsWhenTheRequestBodyWasSent() throws {
        let target = try TargetProcess.get()
        let body = Harness.temporaryDirectory() + "/body.bin"
        FileManager.default.createFile(atPath: body, contents: Data(repeating: 0x61, count: 4 << 20))
        let run = try Self.transactions(["--count", "2", "--data-file", body, target.http + "/echo"])
        for transaction in run.transactions {
            let phases = try #require(transaction["phases"] as? [String: Any])
            let send = try #require(phases["send"] as? Double)
            let total = try #require(phases["total"] as? Double)
            #expect(send >= 0)
            let sum = ["dns", "connect", "tls", "send", "wait", "receive"].compactMap { phases[$0] as? Double }.reduce(0, +)
            #expect(abs(sum - total) < 0.01, "\(phases)")
            #expect(transaction["countOfRequestBodyBytesSent"] as? Int == 4 << 20)
            let requestEnd = try #require(Self.micros(transaction["requestEndDate"]))
            let responseStart = try #require(Self.micros(transaction["responseStartDate"]))
            #expect(requestEnd <= responseStart)
        }
        #expect(try Harness.validate([run.folder + "/report.json"]).status == 0)
    }

    /// A report timestamp ("2026-11-23T22:26:19.123456Z") as µs since the epoch, for ordering.
    static func micros(_ value: Any?) -> Int64? {
        guard let text = value as? String, text.count >= 27 else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let whole = String(text.prefix(19)) + "Z"
        guard let date = formatter.date(from: whole), let fraction = Int64(text.dropFirst(20).prefix(6)) else { return nil }
        return Int64(date.timeIntervalSince1970) * 1_000_000 + fraction
    }
}
