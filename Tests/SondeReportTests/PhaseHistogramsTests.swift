import Foundation
import Testing
@testable import SondeCore
@testable import SondeReport

/// `PhaseHistograms`: values fall in the bucket whose bound is the first at or above them (Prometheus's
/// `le`), buckets are cumulative with `+Inf` equal to `_count`, cold and warm apart, phases that did not
/// happen absent, transactions without a response left out, labels escaped.
@Suite struct PhaseHistogramsTests {
    static func task(_ url: String, _ transactions: [(warm: Bool, phases: Phases, answered: Bool)]) -> ProbeTask {
        ProbeTask(url: url, iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: 1), redirectCount: 0, error: nil,
                  transactionMetrics: transactions.map { t in
                      TransactionMetrics(request: RequestRecord(method: "GET", url: url, headers: []),
                                         response: t.answered ? ResponseRecord(statusCode: 200, headers: []) : nil,
                                         isReusedConnection: t.warm, phases: t.phases)
                  })
    }

    @Test func bucketsAreCumulativeAndSplitColdFromWarm() {
        var histograms = PhaseHistograms()
        let url = "http://h/\"x\"\n"
        // Cold totals 1 ms (exactly a bound), 3 ms, 40 s (beyond the last bound); a warm one 0.1 ms; one unanswered.
        histograms.add(Self.task(url, [(false, Phases(dns: 0.2, connect: 0.3, total: 1), true),
                                       (false, Phases(connect: 1, total: 3), true),
                                       (false, Phases(total: 40_000), true),
                                       (true, Phases(total: 0.1), true),
                                       (false, Phases(total: 7), false)]))
        let text = histograms.families.text
        let escaped = #"url="http://h/\"x\"\n""#
        let cold = escaped + #",phase="total",connection="cold""#
        func value(_ series: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        #expect(text.contains("# TYPE sonde_http_phase_duration_seconds histogram"))
        #expect(value("sonde_http_phase_duration_seconds_bucket{\(cold),le=\"0.0005\"}") == 0)
        #expect(value("sonde_http_phase_duration_seconds_bucket{\(cold),le=\"0.001\"}") == 1, "1 ms counts in le=0.001")
        #expect(value("sonde_http_phase_duration_seconds_bucket{\(cold),le=\"0.005\"}") == 2)
        #expect(value("sonde_http_phase_duration_seconds_bucket{\(cold),le=\"30\"}") == 2)
        #expect(value("sonde_http_phase_duration_seconds_bucket{\(cold),le=\"+Inf\"}") == 3)
        #expect(value("sonde_http_phase_duration_seconds_count{\(cold)}") == 3, "the unanswered transaction is left out")
        #expect(abs((value("sonde_http_phase_duration_seconds_sum{\(cold)}") ?? 0) - 40.004) < 1e-9)
        let warm = escaped + #",phase="total",connection="warm""#
        #expect(value("sonde_http_phase_duration_seconds_bucket{\(warm),le=\"0.00025\"}") == 1)
        #expect(value("sonde_http_phase_duration_seconds_count{\(escaped),phase=\"dns\",connection=\"cold\"}") == 1)
        #expect(!text.contains(#"phase="dns",connection="warm""#), "a warm transaction has no dns phase")
        #expect(!text.contains(#"phase="tls""#), "no TLS happened")
        // Every series: 17 buckets (16 bounds and +Inf), never decreasing.
        var perSeries: [String: [Double]] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("sonde_http_phase_duration_seconds_bucket{") {
            let key = String(line[..<(line.range(of: ",le=")?.lowerBound ?? line.endIndex)])
            perSeries[key, default: []].append(Double(line.split(separator: " ").last ?? "") ?? -1)
        }
        #expect(!perSeries.isEmpty && perSeries.values.allSatisfy { $0.count == 17 && zip($0, $0.dropFirst()).allSatisfy { $0 <= $1 } })
    }

    @Test func noTransactionsNoFamily() {
        #expect(PhaseHistograms().families.text.isEmpty)
    }
}
