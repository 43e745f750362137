import Testing
@testable import SondeCore

/// Thresholds with a selector (issue 41): `total.p95{name=login}<300ms` judges one request's
/// figures (`summary.byRequest`), as k6's thresholds on tags do; a bad selector is a syntax error
/// with a caret; a selector naming no request fails, never passes silently.
@Suite struct RequestSelectorTests {
    static let start = Timestamp(microsecondsSince1970: 1_800_000_000_000_000)

    /// One task of `url`, named `name` (nil: its default), `totalMs` long, failed when `failed`.
    static func task(_ url: String, name: String?, total totalMs: Double, failed: Bool = false, method: String = "GET",
                     reused: Bool = false, at offsetMs: Double = 0) -> ProbeTask {
        let t = TransactionMetrics(request: RequestRecord(method: method, url: url, headers: []),
                                   response: failed ? nil : ResponseRecord(statusCode: 200, headers: []), isReusedConnection: reused,
                                   countOfRequestHeaderBytesSent: 80, countOfRequestBodyBytesSent: 0,
                                   countOfResponseHeaderBytesReceived: 150, countOfResponseBodyBytesReceived: 1000,
                                   phases: Phases(wait: totalMs - 1, receive: 1, total: totalMs))
        return ProbeTask(url: url, iteration: 0, taskInterval: TaskInterval(start: start.adding(microseconds: Int64(offsetMs * 1000)), durationMs: totalMs),
                         redirectCount: 0, error: failed ? TaskError(code: .timedOut, message: "timed out") : nil, transactionMetrics: [t],
                         name: name ?? RequestName.defaultName(method: method, url: url))
    }

    /// `login` (4 tasks of 300 ms, one failed) and the health URL (4 of 2 ms; default name, a query).
    static func summary() -> ProbeSummary {
        var builder = ProbeSummaryBuilder()
        for index in 0..<4 {
            builder.add(task("https://api.example.com/v1/login", name: "login", total: 300, failed: index == 3, at: Double(index) * 400))
            builder.add(task("https://api.example.com/v1/health?probe=\(index)", name: nil, total: 2, reused: index > 0, at: Double(index) * 400 + 300))
        }
        return builder.result
    }

    @Test func eachNameHasItsOwnFigures() throws {
        let summary = Self.summary()
        #expect(summary.byRequest.map(\.name) == ["login", "GET https://api.example.com/v1/health"])
        let login = summary.byRequest[0], health = summary.byRequest[1]
        #expect(login.count == 4 && login.errors == 1 && login.errorsByCode == ["timedOut": 1] && login.url == "https://api.example.com/v1/login")
        #expect(health.count == 4 && health.errors == 0 && health.reusedTransactions == 3 && health.url == "https://api.example.com/v1/health")
        // Within the 1 % of the per-request tables; `all` is cold and warm together.
        #expect(abs((login.all["total"]?.p50 ?? 0) - 300) <= 3 && abs((health.all["total"]?.p95 ?? 0) - 2) <= 0.02)
        #expect(health.all["total"]?.count == 4 && health.cold["total"]?.count == 1 && health.warm["total"]?.count == 3)
        #expect(login.bytesSent == 4 * 80 && login.bytesReceived == 4 * 1150 && summary.bytesSent == 8 * 80)
        #expect(!login.hasDefaultName && health.hasDefaultName)
        // The run's span: the first task's start to the last one's end (1,500 ms), 8 requests in it.
        #expect(summary.durationMs == 1502 && abs((summary.requestsPerSecond ?? 0) - 8 / 1.502) < 1e-9)
    }

    @Test(arguments: [
        ("total.p95{name=login}<250ms", false), ("total.p95{name=login}<400ms", true), ("total.p50<250ms", true),
        ("total.p95{name:login}<400ms", true), ("total.p50 { name = login } < 400ms", true),
        ("errors.rate{name=login}<10%", false), ("errors.rate{name=login}<=25%", true), ("errors.count{name=login}==1", true),
        ("tasks.count{url=https://api.example.com/v1/health}==4", true), ("errors.rate{url=https://api.example.com/v1/health}==0", true),
        ("warm.total.max{url=https://api.example.com/v1/health}<3ms", true), ("reuse.rate{name=GET https://api.example.com/v1/health}>=75%", true),
        ("total.p95{name=login,url=https://api.example.com/v1/login}<400ms", true),
    ])
    func selectorsJudgeTheirRequests(expression: String, passes: Bool) throws {
        let result = try Threshold(parsing: expression).evaluate(Self.summary())
        #expect(result.passed == passes && result.observed != nil, "\(expression): \(result.message)")
        #expect(result.expression == expression.trimmingWhitespace())
    }

    @Test func aSelectorNamingNoRequestFailsAndSaysSo() throws {
        let missing = try Threshold(parsing: "total.p95{name=logn}<300ms").evaluate(Self.summary())
        #expect(!missing.passed && missing.observed == nil)
        #expect(missing.message.contains("no request of this run matches {name=logn}") && missing.message.contains("'login'"), "\(missing.message)")
        // Counts over no request fail too: a gate that could not be checked does not pass.
        #expect(try !Threshold(parsing: "errors.count{url=https://api.example.com/v2}==0").evaluate(Self.summary()).passed)
        #expect(try !Threshold(parsing: "errors.count{name=login}==1").evaluate(ProbeSummary()).passed)
        // Two requests of one URL (two methods): counts add up, a percentile asks for one of them.
        var builder = ProbeSummaryBuilder()
        builder.add(Self.task("https://h/x", name: nil, total: 10))
        builder.add(Self.task("https://h/x", name: nil, total: 20, method: "POST"))
        let twice = builder.result
        #expect(try Threshold(parsing: "tasks.count{url=https://h/x}==2").evaluate(twice).passed)
        let ambiguous = try Threshold(parsing: "total.p95{url=https://h/x}<1s").evaluate(twice)
        #expect(!ambiguous.passed && ambiguous.message.contains("matches 2 requests"), "\(ambiguous.message)")
        // A bare origin is its "/" path.
        builder.add(Self.task("https://h", name: nil, total: 5))
        #expect(try Threshold(parsing: "tasks.count{url=https://h/}==1").evaluate(builder.result).passed)
    }

    @Test func deltasWithASelectorCompareThatRequest() throws {
        var before = ProbeSummaryBuilder()
        before.add(Self.task("https://api.example.com/v1/login", name: "login", total: 200))
        let result = try Threshold(parsing: "total.p50.delta{name=login}<10%").evaluate(Self.summary(), baseline: before.result)
        #expect(!result.passed && abs((result.observed ?? 0) - 0.5) < 0.02, "\(result.message)")
        let notInBaseline = try Threshold(parsing: "total.p50.delta{name=GET https://api.example.com/v1/health}<10%")
            .evaluate(Self.summary(), baseline: before.result)
        #expect(!notInBaseline.passed && notInBaseline.message.contains("in the baseline"), "\(notInBaseline.message)")
    }

    @Test(arguments: [
        ("total.p95{name=login<300ms", 9, "not closed"),
        ("total.p95{}<300ms", 10, "empty selector"),
        ("total.p95{host=a}<300ms", 10, "unknown selector key 'host'"),
        ("total.p95{name}<300ms", 10, "expected key=value"),
        ("total.p95{name=}<300ms", 15, "has no value"),
        ("total.p95{name=a,}<300ms", 17, "nothing after the comma"),
        ("total.p95{name=a,name=b}<300ms", 17, "name twice"),
        ("total.p95{name=a}x<300ms", 17, "unexpected text after the selector"),
        ("errors.rate{url=https://h/x?token=1}<1%", 16, "without their query"),
        ("errors.rate{url=https://me:pw@h/x}<1%", 16, "no user info"),
        ("ws.ping.p95{name=a}<300ms", 11, "ws.* metrics"),
        ("total.p96{name=a}<300ms", 6, "unknown aggregation"),
    ])
    func aBadSelectorIsASyntaxErrorWithACaret(expression: String, column: Int, problem: String) {
        let error = #expect(throws: ThresholdSyntaxError.self) { try Threshold(parsing: expression) }
        #expect(error?.column == column && error?.problem.contains(problem) == true, "\(String(describing: error))")
        #expect(error?.message.contains("\n    " + String(repeating: " ", count: column) + "^") == true)
    }

    @Test func aSelectorsValueMayHoldTheOperatorsCharacters() throws {
        let threshold = try Threshold(parsing: "total.p95{name=a<b==c}<300ms")
        #expect(threshold.metric.selector?.pairs == [RequestSelector.Pair(key: .name, value: "a<b==c")] && threshold.bound == 300)
        #expect(threshold.metric.displayName == "total.p95{name=a<b==c}")
    }

    @Test func requestNames() {
        #expect(RequestName.defaultName(method: "GET", url: "https://h/a?token=x#f") == "GET https://h/a")
        // The first `?` or `#` Character: byte by byte for ASCII, and a `?` with a combining mark is none.
        #expect(RequestName.withoutQuery("https://h/a#f?x") == "https://h/a" && RequestName.withoutQuery("https://h/") == "https://h/")
        #expect(RequestName.withoutQuery("https://h/\u{E9}?\u{301}x?y=1") == "https://h/\u{E9}?\u{301}x")
        #expect(RequestName.withoutQuery("https://h/\u{E9}\r\n?q") == "https://h/\u{E9}\r\n")
        #expect(RequestName.problem("") != nil && RequestName.problem("a\nb") != nil && RequestName.problem(String(repeating: "x", count: 201)) != nil)
        #expect(RequestName.problem("login") == nil)
    }

    /// Names beyond `maxRequests` are counted, not kept.
    @Test func namesAreBounded() {
        var builder = ProbeSummaryBuilder()
        for index in 0..<(ProbeSummary.maxRequests + 3) { builder.add(Self.task("http://h/\(index)", name: nil, total: 1)) }
        #expect(builder.result.byRequest.count == ProbeSummary.maxRequests && builder.result.requestsOmitted == 3)
    }
}
