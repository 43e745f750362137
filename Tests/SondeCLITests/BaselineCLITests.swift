import Foundation
import Testing

/// `--baseline previous`, a baseline of other checks or URLs refused (`--baseline-any` to compare
/// anyway), and `sonde history --fail-on regressed`, end to end against the embedded target.
@Suite struct BaselineCLITests {
    /// The run folders directly in `output` (not the history, not `latest`), oldest first by name.
    static func runFolders(_ output: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: output)
            .filter { $0.contains("-probe-") || $0.contains("-run-") }.sorted()
    }

    static func report(_ folder: String) throws -> [String: Any] {
        try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
    }

    static func runID(_ folder: String) throws -> String? {
        (try report(folder)["run"] as? [String: Any])?["id"] as? String
    }

    static func baselineRunID(_ folder: String) throws -> String? {
        (try report(folder)["baseline"] as? [String: Any])?["baselineRunID"] as? String
    }

    /// `sonde probe --count 2 URL --output-dir OUTPUT` with `extra`.
    static func probe(_ url: String, _ output: String, _ extra: [String] = []) throws -> Harness.Result {
        try Harness.sonde(["probe", "--count", "2", url, "--output-dir", output] + extra)
    }

    /// The newest finished run of the same URL is found in the output directory; another URL's
    /// run is not taken, and a first run has nothing to compare with and passes.
    @Test func previousComesFromTheOutputDirectory() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        let (a, b) = (target.http + "/bytes/100", target.http + "/bytes/200")
        let first = try Self.probe(a, output, ["--baseline", "previous"])
        #expect(first.status == 0, "a first run has no previous run, and passes: \(first.stderr)")
        #expect(first.stderr.contains("no earlier finished run"), "\(first.stderr)")
        let other = try Self.probe(b, output)
        #expect(other.status == 0, "\(other.stderr)")
        let second = try Self.probe(a + "?token=ROTATES", output, ["--baseline", "previous"])
        #expect(second.status == 0, "\(second.stderr)")
        let folders = try Self.runFolders(output)
        #expect(folders.count == 3)
        var byURL: [String: [String]] = [:]
        for folder in folders {
            let probes = try Self.report(output + "/" + folder)["probes"] as? [[String: Any]] ?? []
            let url = (probes.first?["url"] as? String ?? "").components(separatedBy: "?")[0]
            byURL[url, default: []].append(folder)
        }
        // In start order: two runs in the same second have ids that sort by their random suffix.
        let started = try Dictionary(uniqueKeysWithValues: folders.map { folder in
            (folder, (try Self.report(output + "/" + folder)["run"] as? [String: Any])?["startedAt"] as? String ?? "")
        })
        let runsOfA = try #require(byURL[a]).sorted { (started[$0] ?? "", $0) < (started[$1] ?? "", $1) }
        #expect(runsOfA.count == 2)
        #expect(try Self.baselineRunID(output + "/" + runsOfA[1]) == runsOfA[0], "the run of the same URL, not the newer one of \(b)")
        #expect(second.stderr.contains("compared with \(runsOfA[0])"), "\(second.stderr)")
        // `sonde report` of the older run: its previous run would be older still, and there is none.
        let older = try Harness.sonde(["report", output + "/" + runsOfA[0], "--baseline", "previous", "--output-dir", output])
        #expect(older.status == 0 && older.stderr.contains("no earlier finished run"), "\(older.stdout) \(older.stderr)")
    }

    /// A run folder of another URL is refused in one sentence, with nothing written; `--baseline-any` compares anyway.
    @Test func aBaselineOfAnotherURLIsRefused() throws {
        let target = try TargetProcess.get()
        let output = Harness.temporaryDirectory()
        #expect(try Self.probe(target.http + "/bytes/100", output).status == 0)
        let baseline = output + "/" + (try #require(try Self.runFolders(output).first))
        let refused = try Self.probe(target.http + "/bytes/5000", output, ["--baseline", baseline])
        #expect(refused.status == 64, "a baseline of another URL: \(refused.status) \(refused.stderr)")
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1 && refused.stderr.contains("measured other checks or URLs") && refused.stderr.contains("--baseline-any")
                && refused.stderr.contains("/bytes/5000"), "\(refused.stderr)")
        #expect(try Self.runFolders(output).count == 1, "nothing ran, no run folder")
        let anyway = try Self.probe(target.http + "/bytes/5000", output, ["--baseline", baseline, "--baseline-any"])
        #expect(anyway.status == 0, "\(anyway.stderr)")
        let compared = try #require(try Self.runFolders(output).first { output + "/" + $0 != baseline })
        #expect(try Self.baselineRunID(output + "/" + compared) == (baseline as NSString).lastPathComponent)
        // A suite of other checks against a probe run: refused as well.
        let suite = Harness.temporaryDirectory() + "/suite.yaml"
        try "checks:\n  - {name: api, kind: probe, urls: [\"\(target.http)/bytes/100\"], count: 1}\n".write(toFile: suite, atomically: true, encoding: .utf8)
        let run = try Harness.sonde(["run", suite, "--output-dir", output, "--baseline", baseline])
        #expect(run.status == 64 && run.stderr.contains("it has check probe") && run.stderr.contains("it lacks check api"), "\(run.stderr)")
    }

    /// With --history, `previous` is the newest run of the same check recorded there: its folder
    /// when it is still there, else the history's own figures; a history not made yet is no error.
    @Test func previousComesFromTheHistory() throws {
        let target = try TargetProcess.get()
        let cache = Harness.temporaryDirectory()
        let database = cache + "/history.sqlite"
        let url = target.http + "/bytes/300"
        // Each pipeline starts with an empty workspace: only the history is kept between them.
        var ids: [String] = []
        for round in 0..<3 {
            let workspace = Harness.temporaryDirectory()
            let result = try Self.probe(url, workspace, ["--baseline", "previous", "--history", database])
            #expect(result.status == 0, "round \(round): \(result.stderr)")
            let folder = workspace + "/" + (try #require(try Self.runFolders(workspace).first))
            let compared = try Self.baselineRunID(folder)
            if round == 0 {
                #expect(compared == nil && result.stderr.contains("no earlier finished run"), "\(result.stderr)")
            } else {
                #expect(compared == ids.last, "round \(round) compared with \(compared ?? "none"), not \(ids.last ?? "")")
                let rows = (try Self.report(folder)["baseline"] as? [String: Any])?["rows"] as? [[String: Any]] ?? []
                #expect(rows.contains { $0["phase"] as? String == "total" }, "the comparison has the phases: \(rows.count) rows")
            }
            ids.append(try #require(try Self.runID(folder)))
            if round == 1 { try FileManager.default.removeItem(atPath: workspace) }  // round 2 reads round 1 from the history alone
        }
        // Another URL with the same history has no previous run.
        let other = try Self.probe(target.http + "/bytes/301", Harness.temporaryDirectory(), ["--baseline", "previous", "--history", database])
        #expect(other.status == 0 && other.stderr.contains("no earlier finished run"), "\(other.stderr)")
    }

    /// `sonde history --fail-on regressed` exits 99 when the newest run of a check regressed (and
    /// prints the trends first); 0 before the regression; without the option, 0 as before.
    @Test func historyFailsOnARegression() throws {
        let target = try TargetProcess.get()
        let work = Harness.temporaryDirectory()
        let database = work + "/history.sqlite"
        func run(delay: Int) throws {
            let suite = work + "/suite.yaml"
            try "checks:\n  - {name: api, kind: probe, urls: [\"\(target.http)/delay/\(delay)\"], count: 2}\n"
                .write(toFile: suite, atomically: true, encoding: .utf8)
            let result = try Harness.sonde(["run", suite, "--output-dir", work, "--history", database])
            #expect(result.status == 0, "\(result.stderr)")
        }
        for _ in 0..<3 { try run(delay: 5) }
        let steady = try Harness.sonde(["history", "--history", database, "--fail-on", "regressed"])
        #expect(steady.status == 0, "no regression yet: \(steady.stdout) \(steady.stderr)")
        try run(delay: 300)
        let regressed = try Harness.sonde(["history", "--history", database, "--fail-on", "regressed"])
        #expect(regressed.status == 99, "\(regressed.status): \(regressed.stderr)")
        #expect(regressed.stdout.contains("REGRESSED") && regressed.stderr.contains("api"), "\(regressed.stdout) \(regressed.stderr)")
        let json = try Harness.sonde(["history", "--history", database, "--fail-on", "regressed", "--json"])
        #expect(json.status == 99 && (try? Harness.json(json.stdout)) != nil, "the JSON is printed whole: \(json.stderr)")
        let plain = try Harness.sonde(["history", "--history", database])
        #expect(plain.status == 0 && plain.stdout.contains("REGRESSED"), "without --fail-on: \(plain.status)")
        let bad = try Harness.sonde(["history", "--history", database, "--fail-on", "slower"])
        #expect(bad.status == 64, "\(bad.stderr)")
    }
}
