import Testing
import SondeCore
import SondeSuite
import SondeCLI
@testable import SondeSSE

/// The `sse.*` threshold metrics `SSEKind` declares: parsed only where a kind declares them,
/// judged by sse checks alone, read from the values a check recorded.
@Suite struct StreamMetricsTests {
    static let declared = CheckKinds.sonde.declaredMetrics

    @Test func declaredMetricsParseWithTheirUnits() throws {
        let gap = try Threshold(parsing: "sse.gap.p95<250ms", declared: Self.declared)
        #expect(gap.metric.isDeclared && gap.metric.kind == .duration && gap.bound == 250)
        let burst = try Threshold(parsing: "sse.burstIndex<20%", declared: Self.declared)
        #expect(burst.metric.path == "sse.burstindex" && burst.metric.kind == .rate && burst.bound == 0.2)
        let lost = try Threshold(parsing: "sse.lostIDs.count==0", declared: Self.declared)
        #expect(lost.metric.kind == .count)
        #expect(SSEKind.judges(gap) && SSEKind.judges(burst) && SSEKind.judges(lost))
        #expect(!ProbeKind.judges(gap) && !SoakKind.judges(gap))
        #expect(!SSEKind.judges(try Threshold(parsing: "wait.p95<1s")))
    }

    @Test func unknownOrUndeclaredMetricsAreRefused() {
        let cases: [(String, DeclaredMetrics, String)] = [
            ("sse.gapp.p95<1s", Self.declared, "unknown metric 'sse.gapp.p95'"),
            ("sse.gap.p96<1s", Self.declared, "unknown aggregation 'p96'"),
            ("sse.gap.p95<1s", .listed([]), "unknown metric 'sse.gap.p95'"),
            ("sse.burstIndex<1ms", Self.declared, "not a rate"),
            ("sse.gap.p95{name=x}<1s", Self.declared, "a selector picks a probe's requests"),
            ("wiat.p95<1s", Self.declared, "unknown metric 'wiat.p95'"),
        ]
        for (text, declared, words) in cases {
            do throws(ThresholdSyntaxError) {
                _ = try Threshold(parsing: text, declared: declared)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.problem.contains(words), "\(text): \(error.problem)")
            }
        }
        // A probe check refuses an sse metric; an sse check refuses a probe metric.
        #expect(SpecRules.thresholds(["sse.gap.p95<1s"], kind: ProbeKind.self).failure != nil)
        #expect(SpecRules.thresholds(["errors.rate<1%"], kind: SSEKind.self).failure != nil)
        #expect(SpecRules.thresholds(["sse.gap.p95<1s"], kind: SSEKind.self).failure == nil)
    }

    @Test func thresholdsReadTheRecordedValues() throws {
        var total = StreamTotals(events: 12, comments: 0, reconnects: 1, firstEventMs: nil, gapsMs: nil, deliveryDelayMs: nil, burstIndex: 0.25,
                                 bursts: 1, lostIDs: 3, repeatedIDs: 0, connections: 1, maxStreamsPerConnection: 1, passed: true, failure: nil)
        var values = StreamMetrics.values(of: total)
        #expect(values["sse.events.count"] == 12 && values["sse.burstindex"] == 0.25 && values["sse.gap.p95"] == nil)
        let recorded = [DeclaredMetricValues(check: nil, metrics: values)]
        let summary = ProbeSummary()
        let lost = try Threshold(parsing: "sse.lostIDs.count==0", declared: Self.declared).evaluate(summary, declared: recorded)
        #expect(!lost.passed && lost.observed == 3)
        let burst = try Threshold(parsing: "sse.burstIndex<=25%", declared: Self.declared).evaluate(summary, declared: recorded)
        #expect(burst.passed)
        let gap = try Threshold(parsing: "sse.gap.p95<1s", declared: Self.declared).evaluate(summary, declared: recorded)
        #expect(!gap.passed && gap.observed == nil && gap.message.contains("no data"))
        total.burstIndex = nil
        values = StreamMetrics.values(of: total)
        #expect(values["sse.burstindex"] == nil)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
