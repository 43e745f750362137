import Testing
@testable import SondeCore

@Suite struct SoakReportBuilderTests {
    let start = Timestamp(microsecondsSince1970: 1_800_000_000_000_000)
    var config: SoakConfig {
        SoakConfig(durationS: 10, connections: 2, rampS: 0, pingIntervalS: 1, pongTimeoutS: 1, messageRate: 1, messageSize: 64,
                   subprotocols: [], headers: [], backoff: BackoffPolicy(initialMs: 100, maxMs: 1000, multiplier: 2, jitter: .full),
                   stableAfterS: 5, maxAttempts: 3, connectTimeoutS: 2, insecure: false)
    }

    func attempt(_ connection: Int, _ number: Int, opened: Bool, cause: DisconnectCause?, at second: Int64,
                 closeCode: Int? = nil, backoff: Double? = nil, recover: Double? = nil) -> SoakAttempt {
        var a = SoakAttempt(connection: connection, attempt: number, startedAt: start.adding(microseconds: second * 1_000_000),
                            backoffMs: backoff, backoffFailure: backoff == nil ? nil : number - 1)
        if opened { a.openedAt = a.startedAt.adding(microseconds: 1000) }
        a.cause = cause
        if cause != nil { a.closedAt = a.startedAt.adding(microseconds: 500_000) }
        a.closeCode = closeCode
        a.timeToRecoverMs = recover
        a.pings.sent = 3
        a.pings.answered = 3
        a.messages.sent = 10
        a.messages.received = 9
        a.messages.lost = cause == .runEnded ? 0 : 1
        return a
    }

    @Test func aggregatesAttemptsTheLastVersionWinning() {
        var builder = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        // Connection 0: opened, then journalled again when a close frame ended it; reconnected.
        builder.add(attempt(0, 1, opened: true, cause: nil, at: 0))
        builder.add(attempt(0, 1, opened: true, cause: .closeFrame, at: 0, closeCode: 4001))
        builder.add(attempt(0, 2, opened: true, cause: .runEnded, at: 2, closeCode: 1000, backoff: 80, recover: 120))
        // Connection 1: a handshake failure, then up until the end.
        builder.add(attempt(1, 1, opened: false, cause: .handshakeFailure, at: 0))
        builder.add(attempt(1, 2, opened: true, cause: .runEnded, at: 1, closeCode: 1000, backoff: 60, recover: 200))
        builder.add(SoakSamples(pings: [[0, 1, 500_000, 900], [1, 2, 1_500_000, 1100], [9, 1, 10, 5]], missed: [[0, 1, 700_000]],
                                echoes: [2000, 3000]))
        let report = builder.result(finishedAt: start.adding(microseconds: 10_000_000))

        #expect(report.attempts.count == 4)
        // Connection 1's late start is no reconnect; connection 0's recovery is one.
        #expect(report.reconnects.count == 1)
        #expect(report.reconnects.byCause == ["closeFrame": 1])
        #expect(report.reconnects.attempts == 2 && report.reconnects.failedAttempts == ["handshakeFailure": 1])
        #expect(report.disconnects.byCause == ["closeFrame": 1, "runEnded": 2])
        #expect(report.disconnects.byCloseCode == ["4001": 1])  // the run's own 1000s are not disconnects
        #expect(report.reconnects.timeToRecoverMs?.count == 1)
        #expect(report.pings.sent == 12 && report.pings.rttMs?.count == 3)
        #expect(report.messages.sent == 40 && report.messages.lost == 2 && report.messages.rttMs?.count == 2)
        #expect(report.upAtEnd == 2 && report.gaveUp == 0 && report.passed)
        #expect(report.backoffSchedule.map(\.failure) == [1])
        #expect(report.backoffSchedule.first?.count == 2 && report.backoffSchedule.first?.policyMaxMs == 100)
        // Timeline: the connections below the limit, with their disconnect marks (not the run's end).
        #expect(report.timeline.map(\.connection) == [0, 1, 9])
        #expect(report.timeline[0].disconnects.map(\.cause) == ["closeFrame"])
        #expect(report.timeline[0].missedAtMs == [700])
    }

    /// The server's own messages are summed, their rate is per second of open connection (an
    /// attempt that never opened, or one still open in a killed run, adds no time), and they
    /// never fail a soak.
    @Test func messagesFromTheServerAreSummedWithARatePerOpenConnection() {
        var builder = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        var first = attempt(0, 1, opened: true, cause: .eof, at: 0)  // open 0.499 s
        first.messages.fromServer.count = 2
        first.messages.fromServer.bytes = 30
        var second = attempt(0, 2, opened: true, cause: nil, at: 1)  // open until the end, at 10 s
        second.messages.fromServer.count = 17
        second.messages.fromServer.bytes = 170
        builder.add(first)
        builder.add(second)
        builder.add(attempt(1, 1, opened: false, cause: .handshakeFailure, at: 0))
        let report = builder.result(finishedAt: start.adding(microseconds: 10_000_000))
        #expect(report.messages.fromServer.count == 19 && report.messages.fromServer.bytes == 200)
        let rate = report.messages.fromServer.ratePerSecond ?? -1
        #expect(abs(rate - 19 / (0.499 + 8.999)) < 1e-9, "\(rate)")
        #expect(report.problems.allSatisfy { !$0.contains("corrupted") })
        // A killed run: the open attempt has no end, so only the ended one gives the rate.
        let killed = builder.result(finishedAt: nil)
        #expect(killed.messages.fromServer.count == 19)
        #expect(killed.messages.fromServer.ratePerSecond.map { abs($0 - 2 / 0.499) < 1e-9 } == true)
    }

    @Test func givingUpNeverOpeningAndCorruptionFailTheSoak() {
        var builder = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        var last = attempt(0, 3, opened: false, cause: .handshakeFailure, at: 3)
        last.gaveUp = true
        builder.add(last)
        var corrupt = attempt(1, 1, opened: true, cause: .runEnded, at: 0)
        corrupt.messages.corrupted = 2
        builder.add(corrupt)
        let report = builder.result(finishedAt: start)
        #expect(!report.passed && report.gaveUp == 1)
        #expect(report.problems.count == 3, "\(report.problems)")
    }

    /// One outage of connection 0 (issue 27 #13): up, dropped (eof), four refused attempts, then
    /// up again until the end. That is one reconnect (one recovery), six attempts of which five
    /// came after the first and four failed; the refused attempts are failed attempts, never
    /// disconnects, and the timeline marks one disconnect (with its recovery) and four failures.
    @Test func oneOutageWithFourRefusedAttemptsIsOneReconnect() throws {
        var builder = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        builder.add(attempt(0, 1, opened: true, cause: .eof, at: 0))
        for number in 2...5 {
            var refused = attempt(0, number, opened: false, cause: .handshakeFailure, at: Int64(number - 1), backoff: 100)
            refused.error = TaskError(code: .connectionRefused, message: "refused")
            builder.add(refused)
        }
        builder.add(attempt(0, 6, opened: true, cause: .runEnded, at: 5, closeCode: 1000, backoff: 100, recover: 4600))
        // Connection 1 failed its first handshake, then opened: a late start, not a recovery.
        var late = attempt(1, 1, opened: false, cause: .handshakeFailure, at: 0)
        late.error = TaskError(code: .connectTimeout, message: "timed out")
        builder.add(late)
        builder.add(attempt(1, 2, opened: true, cause: .runEnded, at: 1, closeCode: 1000, backoff: 60))
        let report = builder.result(finishedAt: start.adding(microseconds: 10_000_000))

        #expect(report.reconnects.count == 1)
        #expect(report.reconnects.byCause == ["eof": 1])
        #expect(report.reconnects.attempts == 6, "attempts after a connection's first: 5 + 1")
        #expect(report.reconnects.failedAttempts == ["connectionRefused": 4, "connectTimeout": 1])
        #expect(report.reconnects.timeToRecoverMs?.count == 1 && report.reconnects.timeToRecoverMs?.max == 4600)
        #expect(report.disconnects.byCause == ["eof": 1, "runEnded": 2], "a refused attempt is no disconnect")
        let line = try #require(report.timeline.first { $0.connection == 0 })
        #expect(line.disconnects.count == 1 && line.disconnects.first?.cause == "eof")
        #expect(line.disconnects.first?.recoveredAtMs == 5001, "reopened 5.001 s after the start")
        #expect(line.failedAttemptsAtMs == [1500, 2500, 3500, 4500])
        #expect(report.passed)
        // The threshold judges recoveries.
        #expect(try Threshold(parsing: "ws.reconnects.count==1").evaluate(ProbeSummary(), soaks: [report]).passed)
        #expect(report.verdict == .recovered(disconnects: 1))
    }

    /// "recovered" is said only after a disconnect: a soak without one held, one that ended in an
    /// outage says so, an idle-timeout discovery finished.
    @Test func theVerdictSaysRecoveredOnlyAfterADisconnect() {
        var held = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        held.add(attempt(0, 1, opened: true, cause: .runEnded, at: 0, closeCode: 1000))
        held.add(attempt(1, 1, opened: true, cause: .runEnded, at: 0, closeCode: 1000))
        let end = start.adding(microseconds: 10_000_000)
        #expect(held.result(finishedAt: end).verdict == .held)
        #expect(held.result(finishedAt: nil).verdict == .interrupted)

        var down = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        down.add(attempt(0, 1, opened: true, cause: .eof, at: 0))
        down.add(attempt(0, 2, opened: true, cause: .tcpReset, at: 1, backoff: 10, recover: 500))
        down.add(attempt(0, 3, opened: false, cause: nil, at: 2, backoff: 10))
        down.add(attempt(1, 1, opened: true, cause: .runEnded, at: 0, closeCode: 1000))
        #expect(down.result(finishedAt: end).verdict == .downAtEnd(disconnects: 2, recovered: 1))

        var discovery = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        discovery.add(attempt(0, 1, opened: true, cause: .probeFinished, at: 0, closeCode: 1000))
        discovery.add(attempt(1, 1, opened: true, cause: .eof, at: 0))
        discovery.set(idleTimeout: IdleTimeoutFindings(maxIdleS: 2, longestSurvivedS: 1, shortestCutS: 1.5, cutBy: "eof", probes: []))
        let found = discovery.result(finishedAt: end)
        #expect(found.verdict == .discoveryFinished)
        #expect(found.disconnects.byCloseCode.isEmpty, "a probe's own 1000 is no disconnect code")
    }

    @Test func thinningKeepsSpikes() {
        let points = (0..<1000).map { [Double($0), $0 == 567 ? 99 : 1] }
        let thinned = SoakReportBuilder.thinned(points, to: 100)
        #expect(thinned.count == 100)
        #expect(thinned.contains { $0[1] == 99 })
    }

    @Test func soakThresholdsParseAndJudge() throws {
        var builder = SoakReportBuilder(url: "ws://x/", config: config, startedAt: start)
        builder.add(attempt(0, 1, opened: true, cause: .eof, at: 0))
        builder.add(attempt(0, 2, opened: true, cause: .runEnded, at: 1, backoff: 50, recover: 80))
        builder.add(SoakSamples(pings: [[0, 1, 1, 2000], [0, 2, 2, 4000]]))
        let soak = builder.result(finishedAt: start)
        func judge(_ text: String) throws -> ThresholdResult {
            try Threshold(parsing: text).evaluate(ProbeSummary(), soaks: [soak])
        }
        #expect(try judge("ws.ping.p50<3ms").passed)
        #expect(try !judge("ws.ping.max<3ms").passed)
        #expect(try judge("ws.reconnects.count==1").passed)
        #expect(try judge("ws.lost.count==1").passed)
        #expect(try judge("ws.lost.rate<=5%").passed)
        #expect(try !judge("ws.recover.p99<50ms").passed)
        #expect(try judge("ws.gaveup.count==0").passed)
        // No soak in the run: a soak gate cannot pass.
        #expect(try !Threshold(parsing: "ws.ping.p50<3ms").evaluate(ProbeSummary()).passed)
        #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: "ws.pong.p50<3ms") }
        #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: "ws.ping.p42<3ms") }
    }
}
