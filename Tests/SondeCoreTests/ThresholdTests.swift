import Testing
@testable import SondeCore

@Suite struct ThresholdTests {
    static func summary() -> ProbeSummary {
        var builder = ProbeSummaryBuilder()
        for (index, wait) in [10.0, 20, 30, 40, 250].enumerated() {
            let t = TransactionMetrics(request: RequestRecord(method: "GET", url: "http://h/", headers: []),
                                       response: ResponseRecord(statusCode: 200, headers: []), isReusedConnection: index > 0,
                                       phases: Phases(dns: index == 0 ? 1 : nil, send: 0.1, wait: wait, receive: 1, total: wait + 1.1))
            builder.add(ProbeTask(url: "http://h/", iteration: index, taskInterval: TaskInterval(start: .now(), durationMs: 1),
                                  redirectCount: 0, error: index == 4 ? TaskError(code: .httpStatus, message: "x") : nil,
                                  transactionMetrics: [t]))
        }
        return builder.result
    }

    @Test(arguments: [
        ("wait.max<200ms", false), ("wait.max<=250ms", true), ("wait.max<0.3s", true), ("wait.max<250000us", false),
        ("wait.p50>=30ms", true), ("wait.min==10ms", true), ("warm.wait.min==20ms", true), ("cold.wait.max<11ms", true),
        ("errors.rate<20%", false), ("errors.rate<=0.2", true), ("errors.count==1", true), ("errors.count!=1", false),
        ("reuse.rate>=80%", true), ("tasks.count>4", true), ("dns.count==1", true), ("WAIT.P50 >= 30 ms", true),
    ])
    func evaluates(expression: String, passes: Bool) throws {
        let threshold = try Threshold(parsing: expression)
        let result = threshold.evaluate(Self.summary())
        #expect(result.passed == passes, "\(result.message)")
        #expect(result.observed != nil)
        #expect(result.expression == expression)
    }

    @Test func boundsAreConvertedToCanonicalUnits() throws {
        #expect(try Threshold(parsing: "wait.p95<2s").bound == 2000)
        #expect(try Threshold(parsing: "wait.p95<1m").bound == 60_000)
        #expect(try Threshold(parsing: "wait.p95<500us").bound == 0.5)
        #expect(try Threshold(parsing: "wait.p95<1h").bound == 3_600_000)
        // An exponent is part of the number, not of the unit; a negative absolute change keeps its sign.
        #expect(try Threshold(parsing: "wait.p95<2e3ms").bound == 2000)
        #expect(try Threshold(parsing: "wait.p95<1e-3s").bound == 1)
        #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: "total.p95<1e20ms") }
        #expect(try Threshold(parsing: "total.p95.delta<-5ms").bound == -5)
        // A bare number is refused for a duration: it meant ms here once and means seconds elsewhere.
        #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: "wait.p95<200") }
        #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: "wait.p95.delta<5") }
        #expect(try Threshold(parsing: "errors.rate<1%").bound == 0.01)
    }

    @Test func deltasCompareWithTheBaseline() throws {
        let current = Self.summary()
        var builder = ProbeSummaryBuilder()
        let t = TransactionMetrics(request: RequestRecord(method: "GET", url: "http://h/", headers: []),
                                   response: ResponseRecord(statusCode: 200, headers: []),
                                   phases: Phases(send: 0.1, wait: 20, receive: 1, total: 21.1))
        builder.add(ProbeTask(url: "http://h/", iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: 1),
                              redirectCount: 0, error: nil, transactionMetrics: [t]))
        let baseline = builder.result
        // wait.max is 250 now and 20 in the baseline: +230 ms, +1150%.
        let relative = try Threshold(parsing: "wait.max.delta<10%")
        #expect(relative.relativeChange && relative.bound == 0.1)
        let failed = relative.evaluate(current, baseline: baseline)
        #expect(!failed.passed && abs((failed.observed ?? 0) - 11.5) < 0.01, "\(failed.message)")
        let absolute = try Threshold(parsing: "wait.max.delta<=230ms").evaluate(current, baseline: baseline)
        #expect(absolute.passed && abs((absolute.observed ?? 0) - 230) < 0.5, "\(absolute.message)")
        let noBaseline = relative.evaluate(current)
        #expect(!noBaseline.passed && noBaseline.message.contains("--baseline"))
        #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: "errors.rate.delta<1%") }
        #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: "wait.count.delta<1") }
        let comparison = BaselineComparison(current: current, baseline: baseline,
                                            baselineRun: RunInfo(id: "old", command: "probe", arguments: [], startedAt: .now(),
                                                                 status: .passed, insecure: false, redacted: true))
        let waitP50 = try #require(comparison.rows.first { $0.phase == "wait" && $0.aggregation == "p50" })
        // Percentiles come from HdrHistograms: within 0.1%.
        #expect(abs(waitP50.baselineMs - 20) < 0.03 && abs(waitP50.currentMs - 30) < 0.03)
        #expect(abs(waitP50.changeMs - 10) < 0.05 && abs((waitP50.changeRatio ?? 0) - 0.5) < 0.005)
    }

    @Test func aMetricWithoutDataFails() throws {
        let result = try Threshold(parsing: "tls.p95<100ms").evaluate(Self.summary())
        #expect(!result.passed && result.observed == nil)
        #expect(result.message.contains("no data"))
    }

    @Test(arguments: [
        ("", 0), ("wait.p95", 0), ("wait<1", 0), ("foo.p95<1", 0), ("wait.p95.x<1", 0), ("wait.p42<1", 5),
        ("wait.p95<", 9), ("wait.p95<abc", 9), ("wait.p95<1parsec", 10), ("errors.rate<1s", 13), ("tasks.count<1%", 13),
    ])
    func rejectsMalformedExpressions(text: String, column: Int) {
        #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: text) }
        do { _ = try Threshold(parsing: text) } catch { #expect(error.column == column, "\(text): \(error.message)") }
    }
}

/// Every command decides its run's status by one rule, in the exit codes' order.
@Suite struct RunStatusRuleTests {
    @Test func timeoutThenInterruptedThenErrorThenFailedThenPassed() {
        #expect(RunStatus.of(timedOut: true, interrupted: true, error: true, failedWork: true) == .timeout)
        #expect(RunStatus.of(timedOut: true, interrupted: false, error: false, failedWork: false) == .timeout)
        #expect(RunStatus.of(interrupted: true, error: true, failedWork: true) == .interrupted)
        #expect(RunStatus.of(interrupted: true, error: false, failedWork: false) == .interrupted)
        #expect(RunStatus.of(interrupted: false, error: true, failedWork: true) == .error)
        #expect(RunStatus.of(interrupted: false, error: false, failedWork: true) == .failed)
        #expect(RunStatus.of(interrupted: false, error: false, failedWork: false) == .passed)
    }
}
