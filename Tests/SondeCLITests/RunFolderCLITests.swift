import Foundation
import Testing

/// What a script needs without scraping the terminal: `--run-dir` (exactly there, never into a
/// link or a folder that holds files), `<output-dir>/latest` (replaced atomically, never
/// followed), `runDir` in `--json`, and `sonde report RUN --threshold …` leaving RUN as it is.
@Suite struct RunFolderCLITests {
    /// Every file under `folder` with its bytes (to tell that nothing changed).
    static func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            var isDirectory: ObjCBool = false
            let path = folder + "/" + name
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return files
    }

    static func runFolders(_ output: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.contains("-probe-") || $0.contains("-report-") }.sorted()
    }

    /// `--run-dir` writes there (its parents made), `--json` names it, an empty folder is taken;
    /// a folder with files, a file and a link (to an empty folder) are refused in one sentence, untouched.
    @Test func runDirIsExactlyWhereTheRunGoes() throws {
        let target = try TargetProcess.get()
        let work = Harness.temporaryDirectory()
        let url = target.http + "/bytes/100"
        let made = work + "/ci/run 1"
        let result = try Harness.sonde(["probe", "--count", "2", url, "--run-dir", made, "--json", "--output-dir", work + "/Reports"])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try Harness.json(result.stdout)
        #expect(document["runDir"] as? String == made, "runDir: \(document["runDir"] ?? "none")")
        #expect(FileManager.default.fileExists(atPath: made + "/report.json") && FileManager.default.fileExists(atPath: made + "/junit.xml"))
        let id = try #require((document["run"] as? [String: Any])?["id"] as? String)
        #expect(id.contains("-probe-"), "the run keeps its own id: \(id)")
        let onDisk = try Harness.json(String(contentsOfFile: made + "/report.json", encoding: .utf8))
        #expect(onDisk["runDir"] == nil, "report.json itself does not hold the path")
        #expect(!FileManager.default.fileExists(atPath: work + "/Reports/latest"), "a run elsewhere leaves latest alone")
        let validated = try Harness.validate([made + "/report.json"])
        #expect(validated.status == 0, "\(validated.stdout) \(validated.stderr)")
        // The --json document with runDir validates too.
        FileManager.default.createFile(atPath: work + "/printed.json", contents: Data(result.stdout.utf8))
        #expect(try Harness.validate([work + "/printed.json"]).status == 0)

        let empty = work + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(try Harness.sonde(["probe", "--count", "1", url, "--run-dir", empty]).status == 0)
        #expect(FileManager.default.fileExists(atPath: empty + "/report.html"))

        let before = try Self.snapshot(made)
        let nonEmpty = try Harness.sonde(["probe", "--count", "1", url, "--run-dir", made])
        #expect(nonEmpty.status == 64 && nonEmpty.stderr.split(separator: "\n").count == 1 && nonEmpty.stderr.contains("already holds"),
                "\(nonEmpty.stderr)")
        #expect(try Self.snapshot(made) == before, "the folder with files is untouched")

        let victim = work + "/victim"
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work + "/link", withDestinationPath: victim)
        let linked = try Harness.sonde(["probe", "--count", "1", url, "--run-dir", work + "/link"])
        #expect(linked.status == 64 && linked.stderr.contains("symbolic link"), "\(linked.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: victim).isEmpty, "nothing written through the link")

        FileManager.default.createFile(atPath: work + "/file", contents: Data("x".utf8))
        let file = try Harness.sonde(["probe", "--count", "1", url, "--run-dir", work + "/file"])
        #expect(file.status == 64 && file.stderr.contains("is a file"), "\(file.stderr)")
    }

    /// `latest` is a relative link to the last finished run, replaced (never followed) by the
    /// next; a `latest` that is not a link is left alone with a warning.
    @Test func latestLinksTheLastFinishedRun() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let url = target.http + "/bytes/100"
        var previous: String?
        for _ in 0..<2 {
            #expect(try Harness.sonde(["probe", "--count", "1", url, "--output-dir", output]).status == 0)
            let link = try FileManager.default.destinationOfSymbolicLink(atPath: output + "/latest")
            #expect(link != previous && link.contains("-probe-") && !link.contains("/"), "a relative link to the run's folder: \(link)")
            let latest = try Harness.json(String(contentsOfFile: output + "/latest/report.json", encoding: .utf8))
            #expect((latest["run"] as? [String: Any])?["id"] as? String == link)
            previous = link
        }
        let folders = try Self.runFolders(output)
        #expect(folders.count == 2 && folders.contains(previous ?? ""), "two runs, the link names one: \(folders)")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: output)).contains { $0.hasPrefix(".latest") }, "no temporary link left")

        // A link someone pointed elsewhere is replaced, and what it pointed at is not written.
        let elsewhere = Harness.temporaryDirectory()
        try FileManager.default.removeItem(atPath: output + "/latest")
        try FileManager.default.createSymbolicLink(atPath: output + "/latest", withDestinationPath: elsewhere)
        #expect(try Harness.sonde(["probe", "--count", "1", url, "--output-dir", output]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: output + "/latest").contains("-probe-"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

        // A real folder named latest stays as it is.
        try FileManager.default.removeItem(atPath: output + "/latest")
        try FileManager.default.createDirectory(atPath: output + "/latest", withIntermediateDirectories: false)
        let kept = try Harness.sonde(["probe", "--count", "1", url, "--output-dir", output])
        #expect(kept.status == 0 && kept.stderr.contains("not a symbolic link"), "\(kept.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output + "/latest").isEmpty)
    }

    /// `sonde report RUN --threshold …` changes none of RUN's files: printed only without
    /// --output-dir/--run-dir, else written as a new run whose own journal gives the same verdict again.
    @Test func judgingARunAgainLeavesItAsItIs() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        #expect(try Harness.sonde(["probe", "--count", "3", target.http + "/bytes/100", "--output-dir", output]).status == 0)
        let run = output + "/" + (try #require(try Self.runFolders(output).first))
        let before = try Self.snapshot(run)

        let printed = try Harness.sonde(["report", run, "--threshold", "total.p95<1us"])
        #expect(printed.status == 99, "the verdict: \(printed.status) \(printed.stderr)")
        #expect(printed.stdout.contains("total.p95<1us") && printed.stdout.contains("nothing written"), "\(printed.stdout)")
        #expect(try Self.snapshot(run) == before, "RUN's files are as they were")
        #expect(try Self.runFolders(output).count == 1, "no new folder without --output-dir")

        let json = try Harness.sonde(["report", run, "--threshold", "total.p95<10s", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let document = try Harness.json(json.stdout)
        #expect(document["runDir"] == nil, "nothing kept, no runDir")
        #expect(((document["thresholds"] as? [[String: Any]])?.first?["passed"] as? Bool) == true)

        let elsewhere = Harness.temporaryDirectory()
        let written = try Harness.sonde(["report", run, "--threshold", "total.p95<1us", "--output-dir", elsewhere, "--json"])
        #expect(written.status == 99, "\(written.stderr)")
        let newRun = try #require(try Harness.json(written.stdout)["runDir"] as? String)
        #expect(newRun.hasPrefix(elsewhere) && FileManager.default.fileExists(atPath: newRun + "/junit.xml"))
        #expect(try Self.snapshot(run) == before)
        let junit = try String(contentsOfFile: newRun + "/junit.xml", encoding: .utf8)
        #expect(junit.contains("total.p95&lt;1us") || junit.contains("total.p95<1us"), "the new verdict in the new JUnit")
        let report = try Harness.json(String(contentsOfFile: newRun + "/report.json", encoding: .utf8))
        let runInfo = try #require(report["run"] as? [String: Any])
        #expect(runInfo["status"] as? String == "failed")
        #expect((runInfo["warnings"] as? [String] ?? []).contains { $0.contains((run as NSString).lastPathComponent) }, "names the run it judged")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: elsewhere + "/latest") == (newRun as NSString).lastPathComponent)
        // Rebuilt from its own journal, the new run keeps its verdict.
        let rebuilt = try Harness.sonde(["report", newRun])
        #expect(rebuilt.status == 99 && rebuilt.stdout.contains("total.p95<1us"), "\(rebuilt.stdout) \(rebuilt.stderr)")
        #expect(try Harness.validate([newRun + "/report.json"]).status == 0)

        let runDir = Harness.temporaryDirectory() + "/judged"
        let exact = try Harness.sonde(["report", run, "--threshold", "total.p95<10s", "--run-dir", runDir])
        #expect(exact.status == 0 && FileManager.default.fileExists(atPath: runDir + "/report.html"), "\(exact.stderr)")
        #expect(try Self.snapshot(run) == before)
    }
}
