import Foundation
import SondeHistory
import Testing

/// `--history DB` on the run commands and `sonde history` end to end, against the embedded target:
/// runs recorded and listed, a suite's checks apart, the index page, secrets kept out of the
/// database, and a writer killed with SIGKILL leaving a database that opens.
@Suite struct HistoryCLITests {
    static func history(_ arguments: [String]) throws -> [String: Any] {
        let result = try Harness.sonde(["history", "--json"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try Harness.json(result.stdout)
    }

    static func runs(_ document: [String: Any]) -> [[String: Any]] { document["runs"] as? [[String: Any]] ?? [] }

    /// `sonde probe --count 2 URL … --history DATABASE`, `times` times, each expected to pass quietly.
    static func recordProbes(_ times: Int, url: String, output: String, database: String, extra: [String] = []) throws {
        for _ in 0..<times {
            let result = try Harness.sonde(["probe", "--count", "2"] + extra + [url, "--output-dir", output, "--history", database])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderrBesidesLibcurl.isEmpty, "nothing said about the history: \(result.stderr)")
        }
    }

    /// Two probes recorded; `sonde history` finds them under --output-dir without --history.
    @Test func twoProbesAreBothInTheHistory() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let database = output + "/history.sqlite"
        let url = target.http + "/bytes/100?token=SECRETQUERY"
        try Self.recordProbes(2, url: url, output: output, database: database, extra: ["-H", "Authorization: Bearer SECRETHEADER"])
        let folders = try Harness.entries(of: output).filter { !$0.hasPrefix("history.sqlite") }.sorted()
        #expect(folders.count == 2)
        let document = try Self.history(["--output-dir", output])
        let runs = Self.runs(document)
        #expect(runs.compactMap { $0["runId"] as? String }.sorted() == folders, "both runs")
        let starts = runs.compactMap { $0["startedAt"] as? String }
        #expect(starts.count == 2 && starts == starts.sorted(), "oldest first")
        #expect(runs.allSatisfy { $0["check"] as? String == "probe \(target.http)/bytes/100" })
        #expect(runs.allSatisfy { (($0["figures"] as? [String: Any])?["totalP95"] as? Double ?? 0) > 0 })
        let checks = document["checks"] as? [[String: Any]] ?? []
        #expect(checks.count == 1 && checks.first?["runs"] as? Int == 2)
        // What report.json redacted never reaches the database.
        for file in try Harness.entries(of: output).filter({ $0.hasPrefix("history.sqlite") }) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: output + "/" + file))
            #expect(bytes.range(of: Data("SECRETHEADER".utf8)) == nil && bytes.range(of: Data("SECRETQUERY".utf8)) == nil, "\(file) holds a secret")
        }
        // The terminal's table.
        let terminal = try Harness.sonde(["history", "--history", database, "--since", "1d"])
        #expect(terminal.status == 0 && terminal.stdout.contains("2 runs") && terminal.stdout.contains("total p95"), "\(terminal.stdout)")
    }

    /// A suite run with two checks is two rows; --check keeps one; the page links to the run and has no script.
    @Test func aSuiteRunRecordsEachCheckAndThePageLinksToIt() throws {
        let target = try TargetProcess.get()
        let suite = Harness.temporaryDirectory() + "/suite.yaml"
        try """
        checks:
          - {name: small, kind: probe, urls: ["\(target.http)/bytes/64"], count: 2, thresholds: ["total.p95<10s"]}
          - {name: large, kind: probe, urls: ["\(target.http)/bytes/4096"], count: 2, thresholds: ["total.p95<1us"]}
        """.write(toFile: suite, atomically: true, encoding: .utf8)
        let output = Harness.temporaryDirectory()
        let database = output + "/h/history.sqlite"
        let run = try Harness.sonde(["run", suite, "--output-dir", output, "--history", database], timeout: 60)
        #expect(run.status == 99, "a failing threshold exits 99 with or without a history: \(run.stderr)")
        let document = try Self.history(["--history", database])
        #expect(Self.runs(document).compactMap { $0["check"] as? String }.sorted() == ["large", "small"])
        #expect(Self.runs(document).first { $0["check"] as? String == "large" }?["thresholdsFailed"] as? Int == 1)
        let only = try Self.history(["--history", database, "--check", "small"])
        #expect(Self.runs(only).count == 1 && (only["checks"] as? [[String: Any]])?.count == 1)

        let page = output + "/index.html"
        let html = try Harness.sonde(["history", "--history", database, "--html", page])
        #expect(html.status == 0, "\(html.stderr)")
        let text = try String(contentsOfFile: page, encoding: .utf8)
        let runID = try #require(try Harness.entries(of: output).first { $0.contains("-run-") })
        #expect(!text.lowercased().contains("<script"))
        #expect(text.contains("Content-Security-Policy"))
        #expect(text.contains("href=\"\(runID)/report.html\""), "a link relative to the page")
        #expect(text.contains(">small ") && text.contains(">large "))
    }

    /// A history that cannot be written is said on stderr; the run and its exit status stand.
    @Test func aHistoryThatCannotBeWrittenKeepsTheRun() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let notDatabase = output + "/notes.txt"
        try "not a database".write(toFile: notDatabase, atomically: true, encoding: .utf8)
        let result = try Harness.sonde(["probe", target.http + "/bytes/10", "--output-dir", output, "--history", notDatabase])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("not added to the history") && result.stderr.contains("is not a SQLite database"), "\(result.stderr)")
        #expect(result.stdout.contains("report: "), "the run's report was written")
        #expect(try String(contentsOfFile: notDatabase, encoding: .utf8) == "not a database")
        let read = try Harness.sonde(["history", "--history", notDatabase])
        #expect(read.status == 64 && read.stderr.contains("is not a SQLite database"), "\(read.stderr)")
        let absent = try Harness.sonde(["history", "--output-dir", output + "/nothing-here"])
        #expect(absent.status == 64 && absent.stderr.contains("does not exist"), "\(absent.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output + "/nothing-here"), "reading creates nothing")
        let since = try Harness.sonde(["history", "--output-dir", output, "--since", "soon"])
        #expect(since.status == 64, "\(since.stderr)")
    }

    /// A history that cannot be written is still read: an immutable file (`chattr +i`: what a
    /// 0444 file is to anyone but root, whom mode bits do not stop) and a read-only bind mount of
    /// its folder (no `-shm` can be made there), each with the run recorded before.
    @Test func aHistoryThatCannotBeWrittenIsStillRead() throws {
        let target = try TargetProcess.get()
        // A folder name SQLite's URI form must escape (the immutable open names the file so).
        let output = Harness.temporaryDirectory() + "/odd?name#50%"
        let database = output + "/history.sqlite"
        try Self.recordProbes(1, url: target.http + "/bytes/10", output: output, database: database)

        let immutable = try Harness.run("/usr/bin/chattr", ["+i", database])
        try #require(immutable.status == 0, "chattr +i: \(immutable.stderr)")
        defer { _ = try? Harness.run("/usr/bin/chattr", ["-i", database]) }
        let fromImmutable = try Harness.sonde(["history", "--json", "--history", database])
        #expect(fromImmutable.status == 0, "\(fromImmutable.stderr)")
        #expect(Self.runs((try? Harness.json(fromImmutable.stdout)) ?? [:]).count == 1)
        _ = try Harness.run("/usr/bin/chattr", ["-i", database])

        // A mount namespace of its own where the run folder is read-only: nothing outside changes.
        let script = "mount --bind \"$1\" \"$1\" && mount -o remount,ro,bind \"$1\" && touch \"$1/probe\" 2>/dev/null && exit 3; "
            + "exec \"$0\" history --json --history \"$1/history.sqlite\""
        // As the writer left it (its -wal and -shm beside it), then closed cleanly (none: SQLite cannot make them there).
        for companions in [true, false] {
            if !companions {
                do { _ = try HistoryStore.open(path: database, create: false) }
                #expect(!FileManager.default.fileExists(atPath: database + "-shm"), "a clean close removes the -shm")
            }
            let fromReadOnly = try Harness.run("/usr/bin/unshare", ["-m", "/bin/sh", "-c", script, Harness.sonde, output])
            #expect(fromReadOnly.status == 0, "companions \(companions): \(fromReadOnly.status) \(fromReadOnly.stderr)")
            #expect(Self.runs((try? Harness.json(fromReadOnly.stdout)) ?? [:]).count == 1, "companions \(companions)")
        }
        #expect(!FileManager.default.fileExists(atPath: output + "/probe"))
    }

    /// A database whose header is sound and whose pages are not (SQLITE_CORRUPT) is said to be
    /// damaged, not "not a SQLite database".
    @Test func aDamagedHistoryIsSaidToBeDamaged() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let database = output + "/history.sqlite"
        try Self.recordProbes(1, url: target.http + "/bytes/10", output: output, database: database)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: database))
        try #require(bytes.count > 4096 && bytes.prefix(16) == Data("SQLite format 3\0".utf8))
        // The 100-byte file header kept; every page after it garbage.
        for index in 100..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 131 &+ 7) }
        try bytes.write(to: URL(fileURLWithPath: database))
        let read = try Harness.sonde(["history", "--history", database])
        #expect(read.status == 64, "\(read.stderr)")
        #expect(read.stderr.contains("is damaged") && !read.stderr.contains("not a SQLite database"), "\(read.stderr)")
    }

    /// Writers killed with SIGKILL at moments spread over their run (the history write included)
    /// leave a database that opens, passes SQLite's integrity check and takes the next run.
    @Test func aWriterKilledWithSIGKILLLeavesADatabaseThatOpens() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let database = output + "/history.sqlite"
        // A first run makes the database, and tells how long a run takes.
        let started = Date()
        let first = try Harness.sonde(["probe", "--count", "20", target.http + "/bytes/1000", "--output-dir", output, "--history", database])
        #expect(first.status == 0, "\(first.stderr)")
        let runSeconds = max(0.05, Date().timeIntervalSince(started))
        var killed = 0
        for attempt in 0..<12 {
            let log = output + "/log-\(attempt)"
            let pid = try Harness.spawn(Harness.sonde, ["probe", "--count", "20", target.http + "/bytes/1000", "--output-dir", output,
                                                        "--history", database], stdout: log, stderr: log)
            // From half the run's time to a little past it: the last part is the reports and the history write.
            usleep(useconds_t(runSeconds * (0.5 + Double(attempt) / 16) * 1_000_000))
            if kill(pid, SIGKILL) == 0 { killed += 1 }
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        #expect(killed > 0, "no writer was still running when killed")
        let store = try HistoryStore.open(path: database, create: false)
        #expect(try store.integrityProblems().isEmpty)
        let before = try store.runs().count
        #expect(before >= 1 && before <= 13)
        let last = try Harness.sonde(["probe", target.http + "/bytes/10", "--output-dir", output, "--history", database])
        #expect(last.status == 0 && last.stderrBesidesLibcurl.isEmpty, "\(last.stderr)")
        #expect(try store.runs().count == before + 1, "the next run is recorded")
    }

    /// `--baseline history:CHECK:median:N` compares a run with the median of the check's newest runs.
    @Test func aRunComparesWithTheMedianOfItsHistory() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let database = output + "/history.sqlite"
        let url = target.http + "/bytes/200"
        try Self.recordProbes(3, url: url, output: output, database: database)
        let spec = "history:probe \(url):median:3"
        let compared = try Harness.sonde(["probe", "--count", "2", url, "--output-dir", output, "--history", database, "--json",
                                          "--baseline", spec, "--threshold", "total.p95.delta<100000%"])
        #expect(compared.status == 0, "\(compared.stderr)")
        let baseline = try Harness.json(compared.stdout)["baseline"] as? [String: Any]
        #expect(baseline?["baselineRunID"] as? String == spec)
        #expect(((baseline?["rows"] as? [[String: Any]]) ?? []).contains { $0["phase"] as? String == "total" })
        let malformed = try Harness.sonde(["probe", url, "--output-dir", output, "--baseline", "history:x:mean:3"])
        #expect(malformed.status == 64 && malformed.stderr.contains("history:CHECK:median:N"), "\(malformed.stderr)")
        let unknown = try Harness.sonde(["probe", url, "--output-dir", output, "--history", database, "--baseline", "history:nope:median:3"])
        #expect(unknown.status == 64 && unknown.stderr.contains("has no run of the check"), "\(unknown.stderr)")
    }
}
