import Foundation
import SondeCore
import Testing
@testable import SondeReport

@Suite struct HTMLEscapingTests {
    @Test func escapesMarkupQuotesAndControls() {
        #expect(htmlEscape(#"<script>alert("x")</script>&'"#) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;")
        #expect(htmlEscape("a\u{0}b\u{1B}") == "a&#0;b&#27;")
    }

    @Test func theHTMLReportEscapesEveryServerAndUserString() {
        let payload = #"<img src=x onerror=alert(1)>"#
        let transaction = TransactionMetrics(
            request: RequestRecord(method: "GET", url: "http://h/\(payload)", headers: []),
            response: ResponseRecord(statusCode: 200, headers: [HeaderField(name: "X", value: payload)]),
            fetchStartDate: .now(), networkProtocolName: "h2", connectionID: 1, http3Fallback: HTTP3Fallback(reason: "QUIC \(payload)"),
            peerCertificates: [PeerCertificate(subject: "CN=\(payload)", issuer: "CN=\(payload)")],
            phases: Phases(dns: 1, connect: 1, send: 1, wait: 1, receive: 1, total: 5))
        let task = ProbeTask(url: "http://h/\(payload)", iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: 5),
                             redirectCount: 0, error: TaskError(code: .httpStatus, message: payload),
                             transactionMetrics: [transaction])
        var builder = ProbeSummaryBuilder()
        builder.add(task)
        let run = RunInfo(id: "r<1>", command: "probe", arguments: [payload], startedAt: .now(), status: .failed,
                          insecure: true, redacted: true, warnings: [payload])
        let html = HTMLReportRenderer.render(tool: ToolInfo(libcurl: "7.88.1", features: []), run: run,
                                             summary: builder.result, sample: [task])
        #expect(!html.contains(payload))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("HTTP/3 fell back to TCP: QUIC &lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("--insecure"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("http://") || !html.contains("src=\"http"))
    }
}

@Suite struct TerminalRendererTests {
    @Test func barIsProportionalAndExactlyAsWideAsAsked() {
        let renderer = TerminalRenderer(useColor: false)
        let bar = renderer.bar(Phases(dns: 1, connect: 1, tls: 2, send: 0, wait: 4, receive: 0, total: 8))
        #expect(bar.count == renderer.barWidth)
        #expect(bar.filter { $0 == "w" }.count == 24)
        #expect(bar.filter { $0 == "t" }.count == 12)
    }

    /// A race QUIC lost: the reason once, under the transaction that opened the connection
    /// (sanitised like all outside text), and "fell back" beside the protocol of every transaction on it.
    @Test func anHTTP3FallbackIsToldWhereTheRaceRan() {
        let fallback = HTTP3Fallback(reason: "QUIC connect to h port 1 failed: \u{1B}[2Jx")
        let transactions = [false, true].map { reused in
            TransactionMetrics(request: RequestRecord(method: "GET", url: "https://h/", headers: []),
                               response: ResponseRecord(statusCode: 200, headers: []), networkProtocolName: "h2",
                               isReusedConnection: reused, connectionID: 1, http3Fallback: fallback,
                               phases: Phases(send: 1, wait: 2, receive: 3, total: 6))
        }
        let renderer = TerminalRenderer(useColor: false)
        let opener = renderer.render(transaction: transactions[0], hop: nil)
        #expect(opener[0].contains("h2 (fell back from h3)"))
        #expect(opener[1] == "    ↩ HTTP/3 fell back to TCP: QUIC connect to h port 1 failed: \\x1B[2Jx")
        let reused = renderer.render(transaction: transactions[1], hop: nil)
        #expect(reused[0].contains("h2 (fell back from h3)"))
        #expect(!reused.joined().contains("↩"))
        // HAR: the reason and libcurl's queue (-1 without it).
        var output = JSONOutput()
        HARWriter.writeEntry(transactions[0], task: ProbeTask(url: "https://h/", iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: 6),
                                                              redirectCount: 0, error: nil, transactionMetrics: [transactions[0]]), to: &output)
        let entry = (try? JSONSerialization.jsonObject(with: Data(output.bytes))) as? [String: Any]
        #expect(entry?["_http3Fallback"] as? String == fallback.reason)
        #expect(entry?["_libcurlQueue"] as? Double == -1)
    }

    @Test func summaryShowsColdAndWarm() {
        var builder = ProbeSummaryBuilder()
        for reused in [false, true] {
            let t = TransactionMetrics(request: RequestRecord(method: "GET", url: "u", headers: []),
                                       response: ResponseRecord(statusCode: 200, headers: []), isReusedConnection: reused,
                                       phases: Phases(send: 1, wait: 2, receive: 3, total: 6))
            builder.add(ProbeTask(url: "u", iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: 6),
                                  redirectCount: 0, error: nil, transactionMetrics: [t]))
        }
        let text = TerminalRenderer(useColor: false).render(summary: builder.result)
        #expect(text.contains("cold: n") && text.contains("warm: n"))
        #expect(text.contains("tasks 2, transactions 2, reused 1"))
    }
}

@Suite struct TerminalTextTests {
    @Test func controlAndBidiCharactersBecomeVisibleEscapes() {
        #expect(TerminalText.sanitized("\u{1B}]0;pwned\u{7}") == "\\x1B]0;pwned\\x07")
        #expect(TerminalText.sanitized("a\u{9B}2Jb\u{7F}") == "a\\x9B2Jb\\x7F")
        #expect(TerminalText.sanitized("\u{202E}gnp.exe \u{2066}x") == "\\u{202E}gnp.exe \\u{2066}x")
        #expect(TerminalText.sanitized("one\ntwo\r") == "one\\x0Atwo\\x0D")
        #expect(TerminalText.sanitized("one\ntwo", keepingNewlines: true) == "one\ntwo")
    }

    @Test func printableTextPassesUnchanged() {
        for text in ["", "GET http://h/p?q=1", "tab\there", "ünïcödé ✓ → 東京", "\u{200B}zero-width"] {
            #expect(TerminalText.sanitized(text) == text)
        }
    }

    /// Every hostile string a server or a journal can hand the renderer: none of its control
    /// characters survives; the renderer's own colours are the only escape sequences left.
    @Test func theRendererPrintsNoEscapeSequenceItDidNotWrite() {
        let hostile = "\u{1B}]0;pwned\u{7}\u{1B}[2J\u{202E}x\u{9B}1m"
        let transaction = TransactionMetrics(
            request: RequestRecord(method: "GET\u{1B}[A", url: "http://h/" + hostile, headers: []),
            response: ResponseRecord(statusCode: 200, headers: []), networkProtocolName: hostile,
            negotiatedTLSProtocolVersion: hostile, phases: Phases(send: 1, wait: 2, receive: 3, total: 6))
        let task = ProbeTask(url: hostile, iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: 6),
                             redirectCount: 0, error: TaskError(code: .httpStatus, message: hostile), transactionMetrics: [transaction])
        var builder = ProbeSummaryBuilder()
        builder.add(task)
        let verdict = ResumeVerdict(url: hostile, checks: [ResumeCheck(name: hostile, passed: false, required: true, evidence: "ETag: " + hostile)],
                                    urlSession: hostile)
        for useColor in [false, true] {
            let renderer = TerminalRenderer(useColor: useColor)
            let text = [renderer.render(task: task), renderer.render(summary: builder.result), renderer.render(verdict: verdict)]
                .joined(separator: "\n")
            #expect(text.contains("\\x1B]0;pwned\\x07"), "the hostile text must be shown, escaped")
            // Strip the renderer's own SGR colour codes; nothing else may begin an escape sequence.
            let withoutColours = text.replacing(#/\x{1B}\[[0-9;]*m/#, with: "")
            #expect(!withoutColours.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) },
                    "useColor \(useColor)")
            #expect(!withoutColours.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) })
        }
    }
}

@Suite struct ReportJSONWriterTests {
    @Test func streamsTheJournalIntoADecodableReport() throws {
        let directory = NSTemporaryDirectory() + "sonde-report-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = try RunFolder(outputDirectory: directory, runID: "run")
        let run = RunInfo(id: "run", command: "probe", arguments: [], startedAt: .now(), status: .error, insecure: false, redacted: true)
        let recorder = try RunRecorder(folder: folder, tool: ToolInfo(libcurl: "x", features: []), run: run)
        for index in 0..<500 {
            let t = TransactionMetrics(request: RequestRecord(method: "GET", url: "http://h/\(index)", headers: []),
                                       response: ResponseRecord(statusCode: 200, headers: []),
                                       phases: Phases(send: 1, wait: 1, receive: 1, total: 3))
            try recorder.record(ProbeTask(url: "http://h/\(index)", iteration: 0,
                                          taskInterval: TaskInterval(start: .now(), durationMs: 3), redirectCount: 0,
                                          error: nil, transactionMetrics: [t]))
        }
        let outcome = try recorder.finish(status: .passed)
        let data = try Data(contentsOf: URL(fileURLWithPath: folder.reportJSONPath))
        #expect(data.starts(with: Data(#"{"schemaVersion":1,"#.utf8)))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") || $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty, "spill files left behind: \(leftovers)")
        let document = try JSONDecoder().decode(ReportDocument.self, from: data)
        #expect(document.probes.count == 500)
        #expect(document.probes.last?.url == "http://h/499")
        #expect(document.run.status == .passed)
        #expect(document.summary?.tasks == 500)
        #expect(outcome.sample.count == TaskSampler.limit)
        #expect(FileManager.default.fileExists(atPath: folder.reportHTMLPath))
    }

    /// A run recording live copies report.json's tasks from its journal lines at the end (in 1 MiB
    /// reads, so lines straddle them): its files are the bytes `ReportFiles.render` makes from the
    /// same journal, with failures, redirects, escapes and multi-byte text among the tasks; and a
    /// journal with another line between the task lines is rendered from the journal instead.
    @Test(arguments: [false, true]) func liveFilesAreWhatTheJournalRebuilds(foreignLine: Bool) throws {
        let directory = NSTemporaryDirectory() + "sonde-live-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = try RunFolder(outputDirectory: directory, runID: "run")
        let run = RunInfo(id: "run", command: "probe", arguments: [], startedAt: .now(), status: .error, insecure: false, redacted: true)
        let recorder = try RunRecorder(folder: folder, tool: ToolInfo(libcurl: "x", features: []), run: run)
        let start = Timestamp.now()
        for index in 0..<1_500 {
            let headers = (0..<(index % 9)).map { HeaderField(name: "X-\($0)", value: String(repeating: "é\"\\\u{1}", count: index % 97)) }
            let hops = index % 10 == 3 ? 2 : 1
            let transactions = (0..<hops).map { hop in
                TransactionMetrics(request: RequestRecord(method: index % 5 == 0 ? "POST" : "GET", url: "http://h/\(index % 7)?h=\(hop)", headers: headers),
                                   response: index % 17 == 0 ? nil : ResponseRecord(statusCode: hop + 1 < hops ? 302 : 200, headers: headers),
                                   networkProtocolName: index % 2 == 0 ? "h2" : "http/1.1", isReusedConnection: index % 3 != 0,
                                   phases: Phases(send: 0.001, wait: Double(index % 50) + 0.25, receive: 0.125, total: Double(index % 50) + 0.376))
            }
            let error = index % 17 == 0 ? TaskError(code: .connectionRefused, message: "refused <\(index)>") : nil
            try recorder.record(ProbeTask(url: "http://h/\(index % 7)?h=0", iteration: index,
                                          taskInterval: TaskInterval(start: start.adding(microseconds: Int64(index) * 1000), durationMs: 3),
                                          redirectCount: hops - 1, error: error, transactionMetrics: transactions))
            if foreignLine && index == 700 {
                try recorder.record(attempt: SoakAttempt(connection: 0, attempt: 1, startedAt: start, backoffMs: nil, backoffFailure: nil))
            }
        }
        try recorder.finish(status: .failed, prometheusPath: directory + "/live.prom")
        let copy = try RunFolder(outputDirectory: directory, runID: "copy")
        try FileManager.default.copyItem(atPath: folder.journalPath, toPath: copy.journalPath)
        try ReportFiles.render(folder: copy, prometheusPath: directory + "/copy.prom")
        for (live, rebuilt) in [(folder.reportJSONPath, copy.reportJSONPath), (folder.reportHARPath, copy.reportHARPath),
                                (folder.junitPath, copy.junitPath), (folder.reportHTMLPath, copy.reportHTMLPath),
                                (directory + "/live.prom", directory + "/copy.prom")] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: live))
            let again = try Data(contentsOf: URL(fileURLWithPath: rebuilt))
            #expect(bytes.count > 1000 && bytes == again, "\(live)")
        }
        let document = try JSONDecoder().decode(ReportDocument.self, from: Data(contentsOf: URL(fileURLWithPath: folder.reportJSONPath)))
        #expect(document.probes.count == 1_500 && document.probes[1_499].iteration == 1_499)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") || $0.hasSuffix(".partial") }.isEmpty)
    }

    @Test func anAbandonedAtomicFileLeavesNothingBehind() throws {
        let path = NSTemporaryDirectory() + "sonde-atomic-\(UUID().uuidString)"
        do {
            let file = try AtomicFile(path: path)
            try file.write(Array("half".utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
        try writeFileAtomically(Array("whole".utf8), to: path)
        defer { unlink(path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "whole")
        #expect(throws: TaskError.self) { try writeFileAtomically([1], to: "/nonexistent-dir/x") }
    }

    @Test func aTruncatedJournalLineIsSkipped() throws {
        let path = NSTemporaryDirectory() + "sonde-cut-\(UUID().uuidString).jsonl"
        defer { unlink(path) }
        try Data("{\"type\":\"run\"}\n{\"type\":\"probe\",\"probe\":{\"url\":\"a\"}}\n{\"type\":\"probe\",\"pro".utf8)
            .write(to: URL(fileURLWithPath: path))
        var lines = 0
        try JournalReader.forEachLine(path: path) { _ in lines += 1 }
        #expect(lines == 3)
    }
}

/// Runs blocking test code on its own thread, so it never holds one of Swift's (two, here)
/// cooperative threads that other suites' in-process servers need.
func onOwnThread(_ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        Thread {
            do { try body(); continuation.resume() } catch { continuation.resume(throwing: error) }
        }.start()
    }
}

/// A flag one thread sets and others read.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

@Suite struct RecorderThreadTests {
    /// A recorder writing into a fresh temporary folder (the caller removes `directory`).
    static func makeRecorder() throws -> (directory: String, folder: RunFolder, recorder: RunRecorder) {
        let directory = NSTemporaryDirectory() + "sonde-recorder-\(UUID().uuidString)"
        let folder = try RunFolder(outputDirectory: directory, runID: "run")
        let run = RunInfo(id: "run", command: "probe", arguments: [], startedAt: .now(), status: .error, insecure: false, redacted: true)
        return (directory, folder, try RunRecorder(folder: folder, tool: ToolInfo(libcurl: "x", features: []), run: run))
    }

    @Test func recordsEveryTaskInOrderThroughASmallQueue() async throws { try await onOwnThread {
        let (directory, folder, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A capacity of 3 makes the producer wait for the recorder many times over.
        let thread = RecorderThread(recorder: recorder, capacity: 3)
        for index in 0..<2_000 {
            try thread.submit(ProbeTask(url: "http://h/\(index)", iteration: index, taskInterval: TaskInterval(start: .now(), durationMs: 1),
                                        redirectCount: 0, error: nil, transactionMetrics: []))
        }
        try thread.finish()
        #expect(!thread.hasFailed)
        try recorder.finish(status: .passed)
        let document = try JSONDecoder().decode(ReportDocument.self, from: Data(contentsOf: URL(fileURLWithPath: folder.reportJSONPath)))
        #expect(document.probes.map(\.iteration) == Array(0..<2_000))
        #expect(document.summary?.tasks == 2_000)
    } }

    /// Tasks handed to the recorder while two spinners hold both cores. Each passes a queue of 3, so
    /// each costs a hand-over between threads at the scheduler's pace: 20,000 took 20.9 s on a
    /// loaded machine and 30 s with a release build beside the tests; 2,000 still tell a raised
    /// recorder (seconds) from a starved one (done only when the spinners stop, at 30 s).
    static let busyTasks = 2_000

    /// At SCHED_IDLE the recorder gets almost no CPU while normal threads keep both cores busy; it is
    /// raised when the engine waits on a full queue, so recording still ends in seconds, not minutes.
    @Test(.enabled(if: BackgroundPriority.isAvailable, "needs CAP_SYS_NICE or RLIMIT_NICE to leave SCHED_IDLE"))
    func aBackgroundRecorderIsRaisedWhenTheEngineWaitsOnIt() async throws { try await onOwnThread {
        let (directory, folder, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let thread = RecorderThread(recorder: recorder, capacity: 3)
        let started = Date()
        while !thread.runsInBackground && Date().timeIntervalSince(started) < 5 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(thread.runsInBackground, "the recorder never lowered itself to SCHED_IDLE")
        // Two normal-priority spinners hold both cores (bounded: they stop after 30 s at most).
        let stop = ManagedAtomicFlag()
        let spinners = (0..<2).map { _ in
            let spinner = Thread {
                let end = Date().addingTimeInterval(30)
                var x = 0
                while !stop.isSet && Date() < end { for i in 0..<10_000 { x &+= i } }
                _ = x
            }
            spinner.start()
            return spinner
        }
        defer { stop.set() }
        _ = spinners
        let begin = Date()
        for index in 0..<Self.busyTasks {
            try thread.submit(ProbeTask(url: "http://h/\(index)", iteration: index, taskInterval: TaskInterval(start: .now(), durationMs: 1),
                                        redirectCount: 0, error: nil, transactionMetrics: []))
        }
        try thread.finish()
        let elapsed = Date().timeIntervalSince(begin)
        stop.set()
        #expect(thread.timesRaised > 0)
        // A starved recorder would finish only when the spinners stop (30 s).
        #expect(elapsed < 15, "recording \(Self.busyTasks) tasks on a busy machine took \(elapsed) s")
        try recorder.finish(status: .passed)
        let document = try JSONDecoder().decode(ReportDocument.self, from: Data(contentsOf: URL(fileURLWithPath: folder.reportJSONPath)))
        #expect(document.probes.count == Self.busyTasks)
    } }

    /// The thread carries its name in /proc (what `top -H`, `perf` and `make bench`'s CPU account
    /// read): Foundation's `Thread.name` set before `start()` does not reach Linux's comm.
    @Test func theRecorderThreadIsNamedInProc() async throws { try await onOwnThread {
        let (directory, _, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let thread = RecorderThread(recorder: recorder)
        func names() -> [String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        let deadline = Date().addingTimeInterval(5)
        while !names().contains("sonde-recorder") && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(names().contains("sonde-recorder"))
        try thread.finish()
        try recorder.finish(status: .passed)
    } }

    @Test func aSlowTrickleStillReachesTheJournal() async throws { try await onOwnThread {
        let (directory, folder, recorder) = try Self.makeRecorder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let thread = RecorderThread(recorder: recorder)
        try thread.submit(ProbeTask(url: "http://h/slow", iteration: 0, taskInterval: TaskInterval(start: .now(), durationMs: 1),
                                    redirectCount: 0, error: nil, transactionMetrics: []))
        // One task, far below the wake-up batch, and nothing after it: the idle recorder must still
        // pick it up and flush the journal within its documented bounds (poll 0.1 s + flush 1 s).
        var seen = false
        let deadline = Date().addingTimeInterval(5)
        while !seen && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            let text = (try? String(contentsOfFile: folder.journalPath, encoding: .utf8)) ?? ""
            seen = text.contains("http://h/slow")
        }
        #expect(seen)
        try thread.finish()
        try recorder.finish(status: .passed)
    } }
}

@Suite struct CIFormatTests {
    @Test func prometheusLabelValuesAreEscaped() {
        #expect(PrometheusFamilies.escapeLabel("a\"b\\c\nd\r\ne") == "a\\\"b\\\\c\\nd\r\\ne")
    }

    @Test func xmlEscapingLeavesNothingAParserWouldReject() throws {
        let hostile = "<a href='x'>&amp;\u{1B}[31m\u{0}\t\n\"]]>"
        let escaped = xmlEscape(hostile)
        #expect(!escaped.contains("<") && !escaped.contains(">") && !escaped.contains("'") && !escaped.contains("\""))
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 })
        #expect(escaped.contains("\\u001b") && escaped.contains("&#9;"))
    }

    @Test func harTimingsFollowHARSemantics() {
        let fresh = HARWriter.Timings(Phases(dns: 1, connect: 2, tls: 3, send: 0.5, wait: 4, receive: 5, total: 15.5), queue: 0)
        #expect(fresh.connect == 5 && fresh.ssl == 3 && fresh.dns == 1 && fresh.blocked == 0)
        #expect(fresh.time == 15.5)
        let reused = HARWriter.Timings(Phases(send: 0.5, wait: 4, receive: 5, total: 9.5), queue: nil)
        #expect(reused.dns == -1 && reused.connect == -1 && reused.ssl == -1 && reused.blocked == -1)
        #expect(reused.time == 9.5)
        // A hop that waited in the queue: HAR's blocked, counted in the entry's time.
        let queued = HARWriter.Timings(Phases(send: 0.5, wait: 4, receive: 5, total: 9.5), queue: 2.25)
        #expect(queued.blocked == 2.25 && queued.time == 11.75)
        let plain = HARWriter.Timings(Phases(dns: 1, connect: 2, send: 0.5, wait: 4, receive: 5, total: 12.5), queue: 0)
        #expect(plain.connect == 2 && plain.ssl == -1)
        // Microsecond timings whose double sum is inexact (it comes to 751.1189999999999): the time is the exact sum.
        let inexact = HARWriter.Timings(Phases(dns: 49.21, connect: 255.778, send: 14.863, wait: 204.373, receive: 226.895, total: 751.119), queue: 0)
        let parts: [Double] = [49.21, 255.778, 14.863, 204.373, 226.895]
        #expect(parts.reduce(0, +) != 751.119)
        #expect(inexact.time == 751.119)
    }
}

/// `JUnitWriter.testCase` writes bytes directly; it must write what the String-built version
/// (kept here as the reference) wrote, for every kind of text and duration.
@Suite struct JUnitTestCaseTests {
    static func reference(_ task: ProbeTask) -> String {
        let method = task.transactionMetrics.first?.request.method ?? "GET"
        let name = "\(method) \(task.url) #\(task.iteration + 1)"
        var line = #"    <testcase classname="sonde.probe" name="\#(xmlEscape(name))" time="\#(JUnitWriter.seconds(task.taskInterval.durationMs / 1000))">"#
        if let error = task.error {
            line += #"<failure message="\#(xmlEscape(error.message))" type="\#(xmlEscape(error.code.rawValue))">"#
            line += xmlEscape(JUnitWriter.evidence(task)) + "</failure>"
        }
        return line + "</testcase>\n"
    }

    @Test func bytesAreWhatTheStringVersionWrote() {
        let urls = ["http://h/", "https://example.org/a?b=c&d=<e>", "http://h/\"quoted\" 'single'", "http://h/\u{1B}[31mred",
                    "http://h/\u{FFFE}\u{FFFF}", "http://h/ünïcødé/😀", "http://h/tab\there\nnew\rline", "http://h/\u{7F}", ""]
        let methods = ["GET", "POST", "WEIRD<&>", ""]
        var durations: [Double] = [0, 0.0004, 0.4, 0.5, 1, 999.5, 1000, 1234.5678, 60_000, 86_400_000.25, -5, 1e20, 10_000_000_000_000]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 { durations.append(Double.random(in: 0..<1e7, using: &generator)) }
        var compared = 0
        for (index, duration) in durations.enumerated() {
            let url = urls[index % urls.count]
            let method = methods[index % methods.count]
            let transaction = TransactionMetrics(request: RequestRecord(method: method, url: url, headers: []),
                                                 response: index % 3 == 0 ? nil : ResponseRecord(statusCode: 503, headers: []),
                                                 phases: Phases(send: 1, wait: 1, receive: 1, total: 3))
            let error = index % 2 == 0 ? nil : TaskError(code: .httpStatus, message: "the server answered <503> & \"left\"")
            let task = ProbeTask(url: url, iteration: index * 37, taskInterval: TaskInterval(start: .now(), durationMs: duration),
                                 redirectCount: 0, error: error, transactionMetrics: index % 5 == 0 ? [] : [transaction])
            let written = String(decoding: JUnitWriter.testCase(task), as: UTF8.self)
            #expect(written == Self.reference(task), "duration \(duration), url \(url.debugDescription)")
            compared += 1
        }
        #expect(compared == durations.count)
    }
}

@Suite struct RunFolderAndReaderTests {
    @Test func aTakenRunFolderNameGetsANewSuffixAndIsNeverFollowed() throws {
        let directory = NSTemporaryDirectory() + "sonde-runfolder-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/decoy", withIntermediateDirectories: true)
        #expect(symlink(directory + "/decoy", directory + "/20261123T000000Z-probe-abcd") == 0)
        let folder = try RunFolder(outputDirectory: directory, runID: "20261123T000000Z-probe-abcd")
        #expect(folder.runID != "20261123T000000Z-probe-abcd" && folder.runID.hasPrefix("20261123T000000Z-probe-"))
        _ = try Journal(path: folder.journalPath)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/decoy").isEmpty)
        #expect(throws: TaskError.self) { _ = try RunFolder(outputDirectory: folder.journalPath, runID: "x") }
    }

    @Test func theReaderSkipsOversizedLinesAndKeepsTheRest() throws {
        let path = NSTemporaryDirectory() + "sonde-long-\(UUID().uuidString).jsonl"
        defer { unlink(path) }
        var data = Data("{\"a\":1}\n".utf8)
        data.append(Data(repeating: UInt8(ascii: "x"), count: 3 << 20))
        data.append(Data("\n{\"b\":2}\n".utf8))
        data.append(Data(repeating: UInt8(ascii: "y"), count: 2 << 20))
        try data.write(to: URL(fileURLWithPath: path))
        var lines: [String] = []
        var oversized = 0
        try JournalReader.forEachLine(path: path, maxLineBytes: 1 << 20, onOversized: { oversized += 1 }) { lines.append(String(decoding: $0, as: UTF8.self)) }
        #expect(lines == ["{\"a\":1}", "{\"b\":2}"])
        #expect(oversized == 2)
    }
}

/// The terminal's lines for an emulated link.
@Suite struct LinkTerminalTests {
    /// A link's counters list its connections, those with drops first, at most eight.
    @Test func linkCountersListConnectionsWithDropsFirst() {
        var use = LinkUse(conditions: LinkConditions(profile: "lte", spec: "lte"), seed: 1, down: LinkCounters(), up: LinkCounters())
        var lossy = LinkCounters()
        lossy.packetsIn = 40
        lossy.droppedByLoss = 3
        use.connections = (0..<10).map { LinkConnectionCounters(protocolName: "tcp", localPort: 40_000 + $0, remoteAddress: "127.0.0.1", remotePort: 8080) }
        use.connections?[7].down = lossy
        let lines = TerminalRenderer(useColor: false).render(linkCounters: use).split(separator: "\n").map(String.init)
        #expect(lines.count == 1 + 8 + 1, "\(lines)")
        #expect(lines[1].contains("tcp :40007 → 127.0.0.1:8080") && lines[1].contains("3 dropped (loss 3)"), "\(lines)")
        #expect(lines.last?.contains("2 more connections") == true)
        use.connections = [LinkConnectionCounters(protocolName: "udp", localPort: 5353, remoteAddress: "127.0.0.1", remotePort: 53)]
        #expect(!TerminalRenderer(useColor: false).render(linkCounters: use).contains("\n"), "one connection: the totals say it all")
    }
}
