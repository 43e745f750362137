import Foundation
import Testing

/// Issue 41: every line sonde prints reaches a pipe when it happens (a CI job's log), and long
/// work prints a plain status line at least every 10 s off a terminal (`--progress`). Each run is
/// read through pipes by `Fixtures/pipe_lines.py`, which stamps every line with the moment it came.
@Suite(.serialized) struct StreamingOutputCLITests {
    struct Line {
        var at: Double
        var stream: String
        var text: String
    }

    struct Piped {
        var status: Int
        var seconds: Double
        var lines: [Line]
        var stdout: [Line] { lines.filter { $0.stream == "out" } }
        var stderr: [Line] { lines.filter { $0.stream == "err" } }
        var shown: String { lines.map { String(format: "%7.3f %@ %@", $0.at, $0.stream, $0.text) }.joined(separator: "\n") }
    }

    /// Runs `command` (sonde unless told) with stdout and stderr on pipes; its lines as they came.
    static func piped(_ arguments: [String], timeout: Double, command: [String] = [Harness.sonde]) throws -> Piped {
        let result = try Harness.run("/usr/bin/env", ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/pipe_lines.py", String(timeout)]
                                     + command + arguments, timeout: timeout + 30)
        let document = try Harness.json(result.stdout)
        let lines = (document["lines"] as? [[Any]] ?? []).compactMap { entry -> Line? in
            guard entry.count == 3, let at = entry[0] as? Double, let stream = entry[1] as? String, let text = entry[2] as? String else { return nil }
            return Line(at: at, stream: stream, text: text)
        }
        return Piped(status: document["status"] as? Int ?? -1, seconds: document["seconds"] as? Double ?? 0, lines: lines)
    }

    /// 8 requests of 300 ms each: each task's line comes as its task ends, not all at the exit
    /// (sonde 3fec89d printed all 8 within 60 ms at the end: stdout was block-buffered).
    @Test func probeLinesReachAPipeAsTheyHappen() throws {
        let target = try TargetProcess.get()
        let run = try Self.piped(["probe", "--count", "8", "--output-dir", Harness.temporaryDirectory(), target.http + "/delay/300"], timeout: 60)
        #expect(run.status == 0, "\(run.shown)")
        // A task line ("GET URL  200 · http/1.1 · …"), not the end summary's row of that request.
        let tasks = run.stdout.filter { $0.text.hasPrefix("GET ") && $0.text.contains(" · ") }
        #expect(tasks.count == 8, "\(run.shown)")
        guard let first = tasks.first, let last = tasks.last else { return }
        // 7 more requests of 300 ms after the first line: about 2.1 s between the first and the last.
        #expect(last.at - first.at >= 1.5, "the task lines came within \(last.at - first.at) s:\n\(run.shown)")
        for (earlier, later) in zip(tasks, tasks.dropFirst()) {
            #expect(later.at - earlier.at >= 0.15, "two task lines \(later.at - earlier.at) s apart:\n\(run.shown)")
        }
        #expect(run.seconds - first.at >= 1.5, "the first task line came \(run.seconds - first.at) s before the exit:\n\(run.shown)")
        #expect(run.stdout.last?.text.hasPrefix("report: ") == true, "\(run.shown)")
    }

    /// Done-when of issue 41: a 30 s soak read through a pipe shows a line at least every 10 s,
    /// from its first line (at once) to its end, with the status lines' elapsed time, connections
    /// and ping p50 on stdout.
    @Test func aSoakThroughAPipeShowsALineAtLeastEveryTenSeconds() throws {
        let target = try TargetProcess.get()
        let run = try Self.piped(["soak", target.ws + "/ws/echo", "--duration", "30s", "--connections", "2", "--ping-interval", "1s",
                                  "--output-dir", Harness.temporaryDirectory()], timeout: 90)
        #expect(run.status == 0, "\(run.shown)")
        let stdout = run.stdout
        guard let first = stdout.first else {
            Issue.record("nothing on stdout:\n\(run.shown)")
            return
        }
        #expect(first.text.hasPrefix("soak ws://") && first.at < 5, "the soak's first line came at \(first.at) s:\n\(run.shown)")
        var previous = 0.0
        for line in stdout {
            #expect(line.at - previous <= 10, "\(line.at - previous) s without a line before '\(line.text)':\n\(run.shown)")
            previous = line.at
        }
        #expect(run.seconds - previous <= 10, "\(run.shown)")
        let status = stdout.filter { $0.text.hasPrefix("[") && $0.text.contains("/30 s] soak ws://") }
        #expect(status.count >= 4, "\(run.shown)")
        #expect(status.allSatisfy { $0.text.contains("up 2/2") && $0.text.contains("ping p50 ") }, "\(run.shown)")
        #expect(status.allSatisfy { $0.at < run.seconds - 1 }, "status lines while the soak works, not at its end:\n\(run.shown)")
        #expect(!run.stderr.contains { $0.text.contains("soak ws://") }, "status lines go to stdout:\n\(run.shown)")
    }

    /// A probe over an emulated link (500 ms each way: 2 s a cold task, 1 s a warm one, about
    /// 9 s for 8) streams like any other: the link's line at once, each task's line as it ends,
    /// and a status line while the tasks work.
    @Test(.enabled(if: geteuid() == 0, "needs root: --link creates a network namespace and TUN devices"))
    func aProbeOverALinkStreamsItsTasksAndStatus() throws {
        let target = try TargetProcess.get()
        let run = try Self.piped(["probe", "--link", "delay-down=500ms,delay-up=500ms", "--count", "8",
                                  "--output-dir", Harness.temporaryDirectory(), target.http + "/bytes/10"], timeout: 90)
        #expect(run.status == 0, "\(run.shown)")
        let link = try #require(run.stdout.first { $0.text.hasPrefix("link ") }, "\(run.shown)")
        #expect(link.at < 3, "\(run.shown)")
        // A task line ("GET URL  200 · http/1.1 · …"), not the end summary's row of that request.
        let tasks = run.stdout.filter { $0.text.hasPrefix("GET ") && $0.text.contains(" · ") }
        #expect(tasks.count == 8, "\(run.shown)")
        #expect((tasks.last?.at ?? 0) - (tasks.first?.at ?? 0) >= 5, "\(run.shown)")
        let status = run.stdout.filter { $0.text.hasPrefix("[5 s] probe: ") && $0.text.contains("/8 tasks · 0 failed · p50 ") }
        #expect(status.count == 1, "\(run.shown)")
        if let line = status.first, let last = tasks.last { #expect(line.at < last.at, "\(run.shown)") }
    }

    /// `resume` printed nothing during a 6 s reference download: now it says what it does at once,
    /// and the download's status (bytes of the length) comes while it stalls.
    @Test func resumeSaysWhatItDoesDuringTheReferenceDownload() throws {
        let target = try TargetProcess.get()
        let run = try Self.piped(["resume", target.http + "/bytes/200000?stallAfter=100000&stallMs=6500", "--trials", "1",
                                  "--interrupts-per-trial", "0", "--output-dir", Harness.temporaryDirectory()], timeout: 90)
        #expect(run.status == 0, "\(run.shown)")
        let stdout = run.stdout
        let start = try #require(stdout.first { $0.text.hasPrefix("resume http://") && $0.text.contains("reference download, then 1 trial") },
                                 "\(run.shown)")
        #expect(start.at < 4, "\(run.shown)")
        let reference = try #require(stdout.first { $0.text.hasPrefix("reference: 200000 bytes") }, "\(run.shown)")
        let during = stdout.filter { $0.text.contains("] resume http://") && $0.text.contains("reference download ")
            && $0.text.contains(" of 195.3 KiB") && $0.at < reference.at }
        #expect(!during.isEmpty, "no status line during the reference download:\n\(run.shown)")
        #expect(reference.at - start.at >= 6, "\(run.shown)")
    }

    /// `--progress`: with `--json` the status lines go to stderr and stdout holds the document
    /// alone; `off` prints none; an unknown mode is a usage error.
    @Test func progressLinesGoWhereTheyAreToldAndNowhereWhenOff() throws {
        let target = try TargetProcess.get()
        let slow = target.http + "/delay/5600"
        let json = try Self.piped(["probe", "--json", "--output-dir", Harness.temporaryDirectory(), slow], timeout: 60)
        #expect(json.status == 0, "\(json.shown)")
        let status = json.stderr.filter { $0.text.hasPrefix("[5 s] probe: 0/1 tasks · 0 failed") }
        #expect(status.count == 1 && (status.first?.at ?? 0) < json.seconds - 0.3, "\(json.shown)")
        // stdout holds the report document alone (it parses whole), no status line.
        let document = json.stdout.map(\.text).joined(separator: "\n")
        #expect(document.hasPrefix("{\"schemaVersion\":1,") && (try? Harness.json(document)) != nil, "\(json.shown)")

        let off = try Self.piped(["probe", "--progress", "off", "--output-dir", Harness.temporaryDirectory(), slow], timeout: 60)
        #expect(off.status == 0, "\(off.shown)")
        #expect(!off.lines.contains { $0.text.contains("probe: 0/1 tasks") }, "\(off.shown)")
        #expect(off.stdout.contains { $0.text.hasPrefix("GET ") }, "\(off.shown)")

        let unknown = try Harness.sonde(["probe", "--progress", "loud", "--output-dir", Harness.temporaryDirectory(), slow])
        #expect(unknown.status == 64 && unknown.stderr.contains("--progress"), "\(unknown.stderr)")
    }

    /// On a terminal (a pty from `script`) the view is as before: the soak's status redrawn in
    /// place on stderr, no plain lines; `--progress plain` prints plain lines there too.
    @Test func theTerminalViewIsUnchangedAndPlainIsOnRequest() throws {
        let target = try TargetProcess.get()
        func onTerminal(_ arguments: [String]) throws -> Harness.Result {
            let line = ([Harness.sonde] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            return try Harness.run("/usr/bin/script", ["-qfec", line, "/dev/null"], timeout: 60)
        }
        let soak = ["soak", target.ws + "/ws/echo", "--duration", "6s", "--ping-interval", "1s", "--output-dir", Harness.temporaryDirectory()]
        let terminal = try onTerminal(soak)
        #expect(terminal.status == 0, "\(terminal.stdout)")
        #expect(terminal.stdout.contains("\r\u{1B}[K[") && terminal.stdout.contains(" s/6 s] up 1/1"), "\(terminal.stdout.debugDescription)")
        #expect(!terminal.stdout.contains("/6 s] soak ws://"), "\(terminal.stdout.debugDescription)")
        let plain = try onTerminal(soak + ["--progress", "plain"])
        #expect(plain.status == 0, "\(plain.stdout)")
        #expect(plain.stdout.contains("[5 s/6 s] soak ws://"), "\(plain.stdout.debugDescription)")
        #expect(!plain.stdout.contains("\r\u{1B}[K["), "\(plain.stdout.debugDescription)")
    }
}
