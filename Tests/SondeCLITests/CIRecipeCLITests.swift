import Foundation
import Testing

/// examples/ci/: sonde-ci.sh's steps run as the GitHub Actions workflow and the GitLab CI job run
/// them (docs/ci.md): `install` fetches a release tarball (this build's sonde, packed as a release
/// is) from a Python HTTP server and checks its SHA-256; `check` probes the embedded target twice
/// with the installed sonde, keeping junit.xml and the reports, the second run compared with the first.
@Suite(.serialized) struct CIRecipeCLITests {
    static let script = Harness.root + "/examples/ci/sonde-ci.sh"

    /// The script's `check` step with the options this sonde lacks taken out (`--name` and the
    /// thresholds with a `{name=…}` selector, `--summary-md`), and which were.
    static func runnableScript(into directory: String) throws -> (path: String, without: [String]) {
        let help = try Harness.sonde(["probe", "--help"]).stdout
        let hasName = help.range(of: #"--name[ <=]"#, options: .regularExpression) != nil
        let hasSummary = help.contains("--summary-md")
        var lines: [String] = []
        for line in try String(contentsOfFile: script, encoding: .utf8).components(separatedBy: "\n") {
            if !hasName, line.contains("{name=") { continue }
            if !hasSummary, line.contains("--summary-md") { continue }
            lines.append(hasName ? line : line.replacingOccurrences(of: #"--name \S+ "#, with: "", options: .regularExpression))
        }
        let path = directory + "/sonde-ci.sh"
        FileManager.default.createFile(atPath: path, contents: Data(lines.joined(separator: "\n").utf8))
        return (path, (hasName ? [] : ["--name", "selector thresholds"]) + (hasSummary ? [] : ["--summary-md"]))
    }

    /// `sh SCRIPT STEP` with `environment` (and PATH, HOME) and nothing else of the test's environment.
    static func step(_ script: String, _ step: String, _ environment: [String: String], in directory: String) throws -> Harness.Result {
        try shell(["sh", script, step], environment, in: directory)
    }

    /// `command` run from `directory` with `environment` (and PATH, HOME) and nothing else of the test's environment.
    static func shell(_ command: [String], _ environment: [String: String], in directory: String) throws -> Harness.Result {
        let assignments = environment.merging(["HOME": directory, "PATH": environment["PATH"] ?? "/usr/bin:/bin"]) { given, _ in given }
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try Harness.run("/usr/bin/env", ["-i", "-C", directory] + assignments + command, timeout: 180)
    }

    /// The GitLab job's `before_script` and `script` lines as the runner runs them (one shell,
    /// stopping at the first that fails), without the package installs a fresh image needs.
    static func gitlabJob() throws -> String {
        let read = try Harness.run("/usr/bin/python3", ["-c", """
            import sys, yaml
            job = yaml.safe_load(open(sys.argv[1]))["sonde"]
            print("\\n".join(line for line in job["before_script"] + job["script"] if not line.startswith("apt-get")))
            """, Harness.root + "/examples/ci/gitlab-ci.yml"])
        #expect(read.status == 0, "\(read.stderr)")
        return read.stdout
    }

    static func report(_ folder: String) throws -> [String: Any] {
        try Harness.json(String(contentsOfFile: folder + "/report.json", encoding: .utf8))
    }

    /// install, then check twice: the installed sonde (this build, from the tarball) probes, gates
    /// and keeps junit.xml in `$SONDE_OUT/run`; the second pipeline (the GitLab job's lines as
    /// written) has `--baseline previous` find the first in the history. A tarball whose SHA-256 is
    /// not the one given is not installed, and the job stops there.
    @Test func theRecipeInstallsProbesGatesAndCompares() throws {
        let target = try TargetProcess.get()
        let work = Harness.temporaryDirectory()
        // ci/sonde-ci.sh, where the workflow and the job expect it.
        try FileManager.default.createDirectory(atPath: work + "/ci", withIntermediateDirectories: true)
        let (script, without) = try Self.runnableScript(into: work + "/ci")
        // The recipe as written names these; this build may lack some of them (docs/ci.md).
        #expect(Set(without).isSubset(of: ["--name", "selector thresholds", "--summary-md"]), "\(without)")

        // A release tarball: bin/sonde inside a folder of the version's name, served over HTTP.
        let version = "0.0.0-ci"
        let release = work + "/release"
        let packed = work + "/pack/sonde-\(version)/bin"
        try FileManager.default.createDirectory(atPath: packed, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: release, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: URL(fileURLWithPath: Harness.sonde).resolvingSymlinksInPath().path, toPath: packed + "/sonde")
        let tarball = "sonde-\(version)-linux-x86_64.tar.gz"
        let tar = try Harness.run("/bin/tar", ["-czf", release + "/" + tarball, "-C", work + "/pack", "sonde-\(version)"])
        #expect(tar.status == 0, "\(tar.stderr)")
        let sha = try #require(try Harness.run("/usr/bin/sha256sum", [release + "/" + tarball]).stdout.split(separator: " ").first.map(String.init))
        let port = Harness.freePort()
        let server = try ServeCLITests.startPeer("/usr/bin/python3", ["-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", release],
                                                 ready: "http://127.0.0.1:\(port)/", in: work, name: "release-server")
        defer { Harness.stop(server, signal: SIGTERM) }

        let githubPath = work + "/github_path"
        FileManager.default.createFile(atPath: githubPath, contents: Data())
        let installEnvironment = ["SONDE_VERSION": version, "SONDE_RELEASE_URL": "http://127.0.0.1:\(port)", "SONDE_SHA256": sha,
                                  "SONDE_INSTALL_DIR": work + "/tools", "GITHUB_PATH": githubPath]
        let bogus = try Self.step(script, "install", installEnvironment.merging(["SONDE_SHA256": String(repeating: "0", count: 64)]) { $1 }, in: work)
        #expect(bogus.status == 1 && bogus.stderr.contains("does not have the SHA-256"), "\(bogus.status) \(bogus.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work + "/tools/sonde-\(version)"), "nothing unpacked from a tarball that fails its check")
        let install = try Self.step(script, "install", installEnvironment, in: work)
        #expect(install.status == 0, "\(install.stderr)")
        let bin = install.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(bin == work + "/tools/sonde-\(version)/sonde-\(version)/bin", "\(install.stdout)")
        #expect(try String(contentsOfFile: githubPath, encoding: .utf8) == bin + "\n", "the bin folder added to $GITHUB_PATH")

        // Two pipelines: the same history (the CI cache), a fresh output folder each.
        let checkEnvironment = ["PATH": bin + ":/usr/bin:/bin", "SONDE_LOGIN_URL": target.http + "/bytes/100",
                                "SONDE_HOME_URL": target.http + "/bytes/200", "SONDE_COUNT": "3", "SONDE_HISTORY": work + "/.sonde/history.sqlite"]
        let first = try Self.step(script, "check", checkEnvironment.merging(["SONDE_OUT": work + "/out1"]) { $1 }, in: work)
        #expect(first.status == 0, "a first pipeline has nothing to compare with, and passes: \(first.stdout) \(first.stderr)")
        // The second pipeline is the GitLab job's lines as written: install, PATH, check.
        var jobEnvironment = checkEnvironment.merging(installEnvironment) { $1 }
        jobEnvironment["PATH"] = "/usr/bin:/bin"
        jobEnvironment["GITHUB_PATH"] = nil
        let job = try Self.gitlabJob()
        let failedInstall = try Self.shell(["sh", "-e", "-c", job], jobEnvironment.merging(["SONDE_OUT": work + "/out-none",
                                                                                          "SONDE_SHA256": String(repeating: "0", count: 64)]) { $1 },
                                           in: work)
        #expect(failedInstall.status != 0 && !FileManager.default.fileExists(atPath: work + "/out-none"),
                "a failed install fails the job before the check: \(failedInstall.status) \(failedInstall.stderr)")
        let second = try Self.shell(["sh", "-e", "-c", job], jobEnvironment.merging(["SONDE_OUT": work + "/out2"]) { $1 }, in: work)
        #expect(second.status == 0, "\(second.stdout) \(second.stderr)")
        for out in ["out1", "out2"] {
            #expect(FileManager.default.fileExists(atPath: work + "/\(out)/run/junit.xml"), "\(out): junit.xml kept")
            #expect(FileManager.default.fileExists(atPath: work + "/\(out)/run/report.html"))
            if !without.contains("--summary-md") { #expect(FileManager.default.fileExists(atPath: work + "/\(out)/summary.md")) }
        }
        let firstID = (try Self.report(work + "/out1/run")["run"] as? [String: Any])?["id"] as? String
        let baseline = try Self.report(work + "/out2/run")["baseline"] as? [String: Any]
        #expect(firstID != nil && baseline?["baselineRunID"] as? String == firstID, "the second pipeline compared with the first: \(baseline ?? [:])")
        let thresholds = try Self.report(work + "/out2/run")["thresholds"] as? [[String: Any]] ?? []
        #expect(thresholds.count == (without.contains("--name") ? 2 : 3) && thresholds.allSatisfy { $0["passed"] as? Bool == true }, "\(thresholds)")

        // A failing endpoint fails the step (99: its errors fail errors.rate<1%, and a failed threshold
        // outranks a failed request), and junit.xml is kept to say so.
        let failing = try Self.step(script, "check", checkEnvironment.merging(["SONDE_OUT": work + "/out3",
                                                                              "SONDE_HOME_URL": target.http + "/status/503"]) { $1 }, in: work)
        #expect(failing.status == 99, "\(failing.status) \(failing.stderr)")
        let junit = try String(contentsOfFile: work + "/out3/run/junit.xml", encoding: .utf8)
        #expect(junit.contains("<failure"), "\(junit.prefix(800))")
    }

    /// The GitHub Actions workflow and the GitLab CI job run the script's two steps, keep the output
    /// folder whatever the verdict, hand junit.xml to GitLab, and keep the history between pipelines.
    @Test func theWorkflowAndTheJobRunTheScript() throws {
        let check = """
        import json, sys, yaml
        github = yaml.safe_load(open(sys.argv[1]))
        gitlab = yaml.safe_load(open(sys.argv[2]))
        steps = github["jobs"]["probe"]["steps"]
        job = gitlab["sonde"]
        print(json.dumps({
          "githubRuns": [s["run"] for s in steps if "run" in s],
          "githubUploadAlways": [s.get("if") for s in steps if s.get("uses", "").startswith("actions/upload-artifact")],
          "githubUploadPath": [s["with"]["path"] for s in steps if s.get("uses", "").startswith("actions/upload-artifact")],
          "githubCachePaths": [s["with"]["path"] for s in steps if s.get("uses", "").startswith("actions/cache")],
          "githubHistory": github["jobs"]["probe"]["env"]["SONDE_HISTORY"],
          "gitlabScript": job["before_script"] + job["script"],
          "gitlabArtifacts": job["artifacts"],
          "gitlabCache": job["cache"],
          "gitlabOut": job["variables"]["SONDE_OUT"],
        }))
        """
        let result = try Harness.run("/usr/bin/python3", ["-c", check, Harness.root + "/examples/ci/github-actions.yml",
                                                           Harness.root + "/examples/ci/gitlab-ci.yml"])
        #expect(result.status == 0, "\(result.stderr)")
        let facts = try Harness.json(result.stdout)
        let githubRuns = facts["githubRuns"] as? [String] ?? []
        #expect(githubRuns.count == 3 && githubRuns[0].contains("apt-get install") && githubRuns[0].contains("libre2-9")
                && Array(githubRuns.dropFirst()) == ["sh ci/sonde-ci.sh install", "sh ci/sonde-ci.sh check"], "\(facts)")
        #expect(facts["githubUploadAlways"] as? [String] == ["always()"] && facts["githubUploadPath"] as? [String] == ["sonde-out/"])
        #expect(facts["githubCachePaths"] as? [String] == [".sonde", ".sonde"] && (facts["githubHistory"] as? String)?.hasPrefix(".sonde/") == true)
        let gitlabScript = facts["gitlabScript"] as? [String] ?? []
        #expect(gitlabScript.contains { $0.contains("sh ci/sonde-ci.sh install") } && gitlabScript.last == "sh ci/sonde-ci.sh check", "\(gitlabScript)")
        let artifacts = facts["gitlabArtifacts"] as? [String: Any] ?? [:]
        #expect(artifacts["when"] as? String == "always" && artifacts["paths"] as? [String] == ["sonde-out/"])
        #expect((artifacts["reports"] as? [String: Any])?["junit"] as? String == (facts["gitlabOut"] as? String ?? "") + "/run/junit.xml")
        #expect((facts["gitlabCache"] as? [String: Any])?["when"] as? String == "always")
    }
}
