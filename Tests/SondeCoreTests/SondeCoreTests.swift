import Foundation
import Testing
@testable import SondeCore

@Suite struct TimestampTests {
    @Test func formatsWithMicroseconds() {
        let t = Timestamp(microsecondsSince1970: 1_795_300_000_123_456)
        #expect(t.description == "2026-11-21T22:26:40.123456Z")
        #expect(Timestamp(iso8601: t.description) == t)
        #expect(t.compactUTC == "20261121T222640Z")
    }

    @Test func rejectsMalformedText() {
        #expect(Timestamp(iso8601: "2026-11-21 21:06:40") == nil)
        #expect(Timestamp(iso8601: "") == nil)
        #expect(Timestamp(iso8601: "2026-11-21T21:06:40.12x456Z") == nil)
    }

    @Test func calendarFieldsOutOfRangeAreRejected() {
        #expect(Timestamp(utcYear: 2026, month: 11, day: 21, hour: 22, minute: 26, second: 40)?.description
            == "2026-11-21T22:26:40.000000Z")
        #expect(Timestamp(utcYear: 2026, month: 13, day: 1, hour: 0, minute: 0, second: 0) == nil)
        #expect(Timestamp(utcYear: 2026, month: 1, day: 40, hour: 0, minute: 0, second: 0) == nil)
        #expect(Timestamp(utcYear: 2023, month: 2, day: 29, hour: 0, minute: 0, second: 0) == nil)
        #expect(Timestamp(utcYear: 2026, month: 4, day: 31, hour: 0, minute: 0, second: 0) == nil)
        #expect(Timestamp(utcYear: 2024, month: 2, day: 29, hour: 0, minute: 0, second: 0) != nil)
        #expect(Timestamp(iso8601: "2026-11-21T25:00:00Z") == nil)
        #expect(Timestamp(utcYear: 12026, month: 1, day: 1, hour: 0, minute: 0, second: 0) == nil)
    }

    @Test func decodingAGarbageDateThrows() {
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode([Timestamp].self, from: Data(#"["yesterday"]"#.utf8)) }
    }
}

@Suite struct RedactorTests {
    let redactor = Redactor(extraNames: ["x-tenant"])

    @Test func redactsSecretHeaders() {
        let headers = redactor.redact(headers: [
            HeaderField(name: "Authorization", value: "Bearer abc"), HeaderField(name: "Cookie", value: "a=b"),
            HeaderField(name: "Set-Cookie", value: "s=1"), HeaderField(name: "X-Api-Key", value: "k"),
            HeaderField(name: "X-Tenant", value: "t"), HeaderField(name: "Accept", value: "*/*"),
        ])
        #expect(headers.map(\.value) == ["REDACTED", "REDACTED", "REDACTED", "REDACTED", "REDACTED", "*/*"])
    }

    @Test func redactsSecretQueryParametersAndPasswords() {
        #expect(redactor.redact(url: "https://h/p?token=abc&x=1&api_key=k&sig=s#frag")
            == "https://h/p?token=REDACTED&x=1&api_key=REDACTED&sig=REDACTED#frag")
        #expect(redactor.redact(url: "https://user:pw@h/p") == "https://user:REDACTED@h/p")
        // OpenTelemetry's url.full: neither the user name nor the password, redaction on or off.
        #expect(Redactor.withoutCredentials(url: "https://user:pw@h/p?token=t") == "https://REDACTED:REDACTED@h/p?token=t")
        #expect(Redactor.withoutCredentials(url: "https://user:REDACTED@h/p") == "https://REDACTED:REDACTED@h/p")
        #expect(Redactor.withoutCredentials(url: "https://tok@h/") == "https://REDACTED@h/")
        #expect(Redactor.withoutCredentials(url: "https://h/p?next=a@b") == "https://h/p?next=a@b")
        #expect(redactor.redact(url: "https://h/p?access%5Ftoken=abc") == "https://h/p?access%5Ftoken=REDACTED")
        #expect(redactor.redact(url: "not a url ?password=x") == "not a url ?password=REDACTED")
        #expect(redactor.redact(url: "https://h/p?keyboard=1") == "https://h/p?keyboard=1")
    }

    /// Headers that carry URLs: a redirect to `/ok?token=…` or `http://u:…@…`, an OAuth redirect's
    /// fragment, Refresh, Link and Content-Location; the rest of each value stays as it was.
    @Test func redactsTheURLsThatResponseHeadersCarry() {
        let headers = redactor.redact(headers: [
            HeaderField(name: "Location", value: "/ok?token=SECRET1&page=2"),
            HeaderField(name: "location", value: "http://u:SECRET2@127.0.0.1:8080/p"),
            HeaderField(name: "Location", value: "https://app.example/cb#access_token=SECRET3&state=xyz"),
            HeaderField(name: "Content-Location", value: "/doc?a=1;sig=SECRET4"),
            HeaderField(name: "Refresh", value: "5; url=/next?session=SECRET5"),
            HeaderField(name: "Link", value: "<https://h/p?access_token=SECRET6>; rel=\"next\", </plain>; rel=\"prev\""),
            HeaderField(name: "Referer", value: "https://h/?apikey=SECRET7"),
            HeaderField(name: "Location", value: "/plain/path?page=3"),
            HeaderField(name: "X-Note", value: "see /ok?token=kept-not-a-url-header"),
            // What a hostile-input review found getting through.
            HeaderField(name: "Location", value: "http://ghp_SECRET8@host/ok"),
            HeaderField(name: "Location", value: "//alice:SECRET9@host/ok"),
            HeaderField(name: "Location", value: "/ok?next=/cb?access_token=SECRET10&x=1"),
            HeaderField(name: "Location", value: "/ok?token=abc;SECRET11&x=1"),
            HeaderField(name: "Link", value: "https://a/?x=1,https://b/?token=SECRET12"),
        ])
        #expect(headers.map(\.value) == [
            "/ok?token=REDACTED&page=2",
            "http://u:REDACTED@127.0.0.1:8080/p",
            "https://app.example/cb#access_token=REDACTED&state=xyz",
            "/doc?a=1;sig=REDACTED",
            "5; url=/next?session=REDACTED",
            "<https://h/p?access_token=REDACTED>; rel=\"next\", </plain>; rel=\"prev\"",
            "https://h/?apikey=REDACTED",
            "/plain/path?page=3",
            "see /ok?token=kept-not-a-url-header",
            "http://REDACTED@host/ok",
            "//alice:REDACTED@host/ok",
            "/ok?next=/cb?access_token=REDACTED&x=1",
            "/ok?token=REDACTED&x=1",
            "https://a/?x=1,https://b/?token=REDACTED",
        ])
        #expect(Redactor.disabled.redact(headers: [HeaderField(name: "Location", value: "/?token=t")])[0].value == "/?token=t")
    }

    @Test func theMemoAnswersAsTheRedactorDoes() {
        // More distinct names than the memo keeps, each seen twice, secrets and URL headers among them.
        let names = (0..<100).map { "X-Field-\($0)" } + ["Authorization", "x-TENANT", "Set-Cookie", "X-Auth-Token", "Accept"]
        let headers = (names + names.reversed()).map { HeaderField(name: $0, value: "v-" + $0) }
            + [HeaderField(name: "Location", value: "/?token=t"), HeaderField(name: "Link", value: "</a?sig=s>")]
        for base in [redactor, Redactor.disabled] {
            var memo = HeaderRedactionMemo(redactor: base)
            for _ in 0..<2 {
                #expect(memo.redact(headers) == base.redact(headers: headers))
            }
        }
        var memo = HeaderRedactionMemo(redactor: redactor)
        #expect(memo.redact(headers).filter { $0.value == Redactor.mask }.count == 8)
    }

    @Test func disabledPassesEverything() {
        #expect(Redactor.disabled.redact(url: "https://h/?token=abc") == "https://h/?token=abc")
        #expect(Redactor.disabled.redact(headers: [HeaderField(name: "Authorization", value: "x")])[0].value == "x")
    }

    @Test func redactsCommandLines() {
        let arguments = redactor.redact(arguments: ["probe", "-H", "Authorization: Bearer abc", "https://h/?token=t"])
        #expect(arguments == ["probe", "-H", "Authorization: REDACTED", "https://h/?token=REDACTED"])
    }
}

@Suite struct JournalTests {
    @Test func appendsLinesAndFlushesOnClose() throws {
        let path = NSTemporaryDirectory() + "sonde-journal-\(UUID().uuidString).jsonl"
        defer { unlink(path) }
        let journal = try Journal(path: path)
        for index in 0..<1000 { try journal.append(line: Array(#"{"n":\#(index)}"#.utf8)) }
        try journal.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1000)
        #expect(lines.last == #"{"n":999}"#)
    }

    @Test func unwritableLocationIsAClearError() {
        #expect(throws: TaskError.self) { _ = try Journal(path: "/nonexistent-dir/journal.jsonl") }
    }

    @Test func fullDiskIsAClearError() throws {
        // /dev/full answers every write with ENOSPC.
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let descriptor = open("/dev/full", O_WRONLY)
        defer { close(descriptor) }
        do {
            try writeAll(descriptor: descriptor, bytes: [1, 2, 3], path: "/dev/full")
            Issue.record("writing to /dev/full succeeded")
        } catch {
            #expect(error.code == .localIOError)
            #expect(error.message.contains("disk is full"))
        }
    }
}

@Suite struct SummaryTests {
    private func task(reused: Bool, total: Double, error: TaskError? = nil) -> ProbeTask {
        let transaction = TransactionMetrics(
            request: RequestRecord(method: "GET", url: "http://h/", headers: []),
            response: ResponseRecord(statusCode: 200, headers: []), networkProtocolName: "h2", isReusedConnection: reused,
            phases: Phases(dns: reused ? nil : 1, connect: reused ? nil : 2, send: 0, wait: total - 3, receive: 0, total: total))
        return ProbeTask(url: "http://h/", iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: total),
                         redirectCount: 0, error: error, transactionMetrics: [transaction])
    }

    @Test func splitsColdAndWarm() {
        var builder = ProbeSummaryBuilder()
        builder.add(task(reused: false, total: 10))
        for total in [4.0, 5.0, 6.0] { builder.add(task(reused: true, total: total)) }
        builder.add(task(reused: true, total: 5, error: TaskError(code: .httpStatus, message: "503")))
        let summary = builder.result
        #expect(summary.tasks == 5 && summary.failedTasks == 1 && summary.errorsByCode["httpStatus"] == 1)
        #expect(summary.cold["total"]?.count == 1 && summary.cold["total"]?.p50 == 10)
        #expect(summary.warm["total"]?.count == 4)
        #expect(summary.warm["dns"] == nil)
        #expect(abs((summary.warm["total"]?.max ?? 0) - 6) <= 0.01)  // HdrHistogram: 3 significant digits
        #expect(summary.protocols["h2"] == 5)
    }

    @Test func histogramKeepsMicrosecondPrecision() {
        var distribution = LatencyDistribution()
        for value in stride(from: 0.001, through: 1.0, by: 0.001) { distribution.record(milliseconds: value) }
        let summary = distribution.summary!
        #expect(summary.count == 1000)
        #expect(abs(summary.p50 - 0.5) <= 0.001)
        #expect(summary.min == 0.001)
        #expect(abs(summary.mean - 0.5005) < 1e-9, "the mean is exact, not the histogram's bucket estimate")
    }

    /// Up to 256 values no histogram is made, and the summary is the histogram's to the bit: the same
    /// values (zeros, sub-microsecond, an hour, repeats) in a distribution that makes its histogram at once.
    @Test func keptValuesSummariseAsTheHistogramDoes() {
        var generator = SystemRandomNumberGenerator()
        for precision in [LatencyDistribution.Precision.fine, .coarse] {
            for size in [1, 2, 3, 7, 10, 99, 100, 101, 255, 256] {
                var kept = LatencyDistribution(precision: precision)
                var histogram = LatencyDistribution(precision: precision, exactLimit: 0)
                for index in 0..<size {
                    let value: Double = switch index % 5 {
                    case 0: Double.random(in: 0...2, using: &generator)
                    case 1: Double.random(in: 0...5_000, using: &generator)
                    case 2: [0, 0.0004, 3_600_000, 9e9][Int.random(in: 0..<4, using: &generator)]
                    case 3: 12.345
                    default: Double.random(in: 0...200, using: &generator).rounded()
                    }
                    kept.record(milliseconds: value)
                    histogram.record(milliseconds: value)
                }
                #expect(!kept.hasHistogram && histogram.hasHistogram)
                #expect(kept.summary == histogram.summary, "\(precision) \(size)")
            }
        }
    }

    /// The 257th value moves the kept values into a histogram; adding distributions keeps or makes one.
    @Test func theHistogramIsMadePastTheLimitAndByAdding() {
        var distribution = LatencyDistribution()
        var reference = LatencyDistribution(precision: .fine, exactLimit: 0)
        for value in 1...256 {
            distribution.record(milliseconds: Double(value) / 7)
            reference.record(milliseconds: Double(value) / 7)
        }
        #expect(!distribution.hasHistogram)
        distribution.record(milliseconds: 1)
        reference.record(milliseconds: 1)
        #expect(distribution.hasHistogram && distribution.summary == reference.summary)

        var small = LatencyDistribution(), other = LatencyDistribution(), expected = LatencyDistribution(precision: .fine, exactLimit: 0)
        for value in [0.5, 1.5, 2.5] { small.record(milliseconds: value); expected.record(milliseconds: value) }
        for value in [3.5, 0.25] { other.record(milliseconds: value); expected.record(milliseconds: value) }
        small.add(other)
        #expect(!small.hasHistogram && small.summary == expected.summary && small.count == 5)
        small.add(reference)
        expected.add(reference)
        #expect(small.hasHistogram && small.summary == expected.summary)
    }

    /// The builder records each value once, cold or warm, and merges them into `all` at the end, and
    /// remembers the last default request name: the run's and each name's `all`, and the names'
    /// counts, are what recording every value into one distribution per phase and grouping the
    /// tasks by `requestName` give, past the histograms' 256 kept values, with names of their own,
    /// methods and URLs that alternate, and transactions without a response.
    @Test func allIsEveryValueOnceAndRequestsAreGroupedByName() {
        var generator = SystemRandomNumberGenerator()
        var builder = ProbeSummaryBuilder()
        var expected = [LatencyDistribution](repeating: LatencyDistribution(precision: .fine, exactLimit: 0), count: Phase.allCases.count)
        var expectedByName: [String: (count: Int, total: LatencyDistribution)] = [:]
        for index in 0..<700 {
            let reused = Bool.random(using: &generator)
            let answered = index % 13 != 5
            let method = index % 7 == 0 ? "POST" : "GET"
            let url = ["http://a/x", "http://a/x?q=\(index % 3)", "http://b/y"][(index / 50) % 3]
            let total = Double(Int.random(in: 1...4_000_000, using: &generator)) / 1000
            let phases = Phases(dns: reused ? nil : total / 8, connect: reused ? nil : total / 4, send: 0.001,
                                wait: total / 2, receive: index % 11 == 0 ? nil : total / 16, total: total)
            let transaction = TransactionMetrics(
                request: RequestRecord(method: method, url: url, headers: []),
                response: answered ? ResponseRecord(statusCode: 200, headers: []) : nil, networkProtocolName: "http/1.1",
                isReusedConnection: reused, phases: phases)
            let task = ProbeTask(url: url, iteration: index, taskInterval: TaskInterval(start: .now(), durationMs: total),
                                 redirectCount: 0, error: nil, transactionMetrics: [transaction], name: index % 9 == 0 ? "named" : nil)
            builder.add(task)
            var entry = expectedByName[task.requestName] ?? (0, LatencyDistribution(precision: .coarse, exactLimit: 0))
            entry.count += 1
            if answered {
                for (phase, position) in zip(Phase.allCases, expected.indices) {
                    if let value = phases[phase] { expected[position].record(milliseconds: value) }
                }
                entry.total.record(milliseconds: total)
            }
            expectedByName[task.requestName] = entry
        }
        let summary = builder.result
        for (phase, distribution) in zip(Phase.allCases, expected) {
            #expect(summary.all[phase.name] == distribution.summary, "\(phase)")
        }
        #expect(summary.byRequest.count == expectedByName.count)
        for figures in summary.byRequest {
            #expect(figures.count == expectedByName[figures.name]?.count, "\(figures.name)")
            #expect(figures.all["total"] == expectedByName[figures.name]?.total.summary, "\(figures.name)")
        }
    }
}

@Suite struct NamedThreadTests {
    /// The names of this process's threads as Linux tools see them (/proc/self/task/*/comm).
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test func aStartedThreadCarriesItsNameInProcBeforeItsBodyRuns() {
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let stackSize = ManagedStackSize()
        Thread.startNamed("sonde-nametest", stackSize: 1 << 20) {
            stackSize.value = Thread.current.stackSize
            running.signal()
            _ = release.wait(timeout: .now() + 10)
        }
        #expect(running.wait(timeout: .now() + 10) == .success)
        #expect(Self.threadNames().contains("sonde-nametest"))
        #expect(stackSize.value == 1 << 20)
        release.signal()
    }

    /// Many threads at once, each named by itself before it signals: none keeps its creator's
    /// name (Foundation's setter alone lost the race with pthread_create on a loaded machine).
    @Test func manyThreadsStartedAtOnceAreAllNamed() {
        let count = 32
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for index in 0..<count {
            Thread.startNamed("sonde-many-\(index)") {
                running.signal()
                _ = release.wait(timeout: .now() + 10)
            }
        }
        for _ in 0..<count { #expect(running.wait(timeout: .now() + 10) == .success) }
        let names = Set(Self.threadNames())
        let missing = (0..<count).map { "sonde-many-\($0)" }.filter { !names.contains($0) }
        #expect(missing.isEmpty, "threads without their name: \(missing)")
        for _ in 0..<count { release.signal() }
    }
}

/// A value written by one thread and read by another after a semaphore orders them.
final class ManagedStackSize: @unchecked Sendable {
    var value = 0
}
