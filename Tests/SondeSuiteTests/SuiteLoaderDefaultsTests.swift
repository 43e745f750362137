import Foundation
import SondeCLI
@testable import SondeSuite
import Testing

/// Defaults inheritance, `${NAME}` expansion, relative paths, and what a loaded suite remembers
/// of the values that came from the environment.
@Suite struct SuiteLoaderDefaultsTests {
    func spec(_ loaded: SuiteLoader.Loaded, _ name: String) -> (any CheckSpec)? {
        loaded.suite.checks.first { $0.name == name }?.spec
    }

    @Test func aDefaultAppliesOnlyToKindsThatHaveItAndThresholdsAddUp() throws {
        let folder = SuiteText.temporaryDirectory()
        let ca = SuiteText.write("not really a CA\n", to: folder + "/ca.pem")
        let loaded = try SuiteText.load("""
        parallel: 3
        defaults:
          count: 3
          duration: 5s
          timeout: 10s
          cacert: ca.pem
          thresholds: ["errors.rate<1%"]
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/a"]
            timeout: 2s
            thresholds: ["wait.p95<200ms"]
          - name: sock
            kind: soak
            url: ws://127.0.0.1:9/
          - name: blob
            kind: resume
            url: http://127.0.0.1:9/blob
            thresholds: []
        """, folder: folder).get()
        #expect(loaded.suite.parallel == 3)
        #expect(loaded.suite.checks.map(\.name) == ["api", "sock", "blob"])
        guard let probe = spec(loaded, "api") as? ProbeSpec, let soak = spec(loaded, "sock") as? SoakSpec,
              let resume = spec(loaded, "blob") as? ResumeSpec else {
            Issue.record("kinds: \(loaded.suite.checks)")
            return
        }
        #expect(probe.count == 3)
        #expect(probe.timeout == DurationValue(seconds: 2), "the check's own value wins")
        #expect(probe.thresholds == ["errors.rate<1%", "wait.p95<200ms"], "the defaults' thresholds, then the check's")
        #expect(probe.cacert == ca)
        #expect(soak.duration == DurationValue(seconds: 5))
        #expect(soak.thresholds == nil, "errors.rate judges probes: a soak does not take it from the defaults")
        #expect(soak.cacert == ca)
        #expect(resume.thresholds == [], "a resume check has no threshold metrics: none is inherited")
        #expect(resume.cacert == ca)
        #expect(resume.trials == nil)
        #expect(loaded.written.isEmpty)
    }

    /// A default threshold applies to the checks whose kind it judges; in a check of another kind it is an error.
    @Test func aThresholdJudgesOnlyItsKind() throws {
        let loaded = try SuiteText.load("""
        defaults:
          thresholds: ["errors.rate<1%", "ws.ping.p95<100ms"]
        checks:
          - {name: api, kind: probe, urls: ["http://127.0.0.1:9/"]}
          - {name: sock, kind: soak, url: "ws://127.0.0.1:9/"}
        """, folder: "/tmp").get()
        #expect(loaded.suite.checks.map(\.spec.thresholds) == [["errors.rate<1%"], ["ws.ping.p95<100ms"]])
        let wrong = SuiteText.load("""
        checks:
          - {name: sock, kind: soak, url: "ws://127.0.0.1:9/", thresholds: ["wait.p95<1s"]}
        """, folder: "/tmp")
        guard case .failure(let failure) = wrong else {
            Issue.record("a probe metric on a soak check was accepted")
            return
        }
        #expect(failure.problems.first?.key == "thresholds" && failure.problems.first?.message.contains("ws.*") == true, "\(failure)")
        #expect(failure.problems.first?.line == 2, "\(failure)")
    }

    @Test func expandsVariablesAndDollarDollar() throws {
        let environment = ["BASE": "http://127.0.0.1:9", "TOKEN": "sk-secret", "N": "4"]
        let loaded = try SuiteText.load("""
        defaults:
          headers: ["Authorization: Bearer ${TOKEN}"]
        checks:
          - name: api
            kind: probe
            urls: ["${BASE}/a", "${BASE}/price?tag=$$5&raw=$5"]
            count: ${N}
            data: "cost: $$${N} $"
            thresholds: ["total.p95<1s"]
        """, environment: environment).get()
        guard let probe = spec(loaded, "api") as? ProbeSpec else { Issue.record("\(loaded)"); return }
        #expect(probe.urls == ["http://127.0.0.1:9/a", "http://127.0.0.1:9/price?tag=$5&raw=$5"])
        #expect(probe.count == 4, "a plain ${N} reads as the number it stands for")
        #expect(probe.data == "cost: $4 $")
        #expect(probe.headers == ["Authorization: Bearer sk-secret"])
        #expect(loaded.keysFromEnvironment(check: "api") == ["urls", "count", "headers", "data"])
        #expect(loaded.unexpandedText(check: "api", key: "headers") == .list(["Authorization: Bearer ${TOKEN}"]))
        #expect(loaded.unexpandedText(check: "api", key: "count") == .scalar("${N}"))
        #expect(loaded.unexpandedText(check: "api", key: "thresholds") == nil)

        // Printed, the suite keeps ${NAME}: no secret in it, and it loads back to the same suite.
        let printed = loaded.suiteYAML()
        #expect(!printed.contains("sk-secret"), "\(printed)")
        #expect(printed.contains("${TOKEN}") && printed.contains("count: ${N}"), "\(printed)")
        let again = try SuiteText.load(printed, environment: environment).get()
        #expect(again.suite == loaded.suite, "\(printed)")
        #expect(again.written == loaded.written)
        let entry = try #require(loaded.entryYAML(check: "api"))
        #expect(entry.hasPrefix("- name: api\n  kind: probe\n  urls: [\"${BASE}/a\""), "\(entry)")
        #expect(loaded.entryYAML(check: "nope") == nil)
        // Without the variables it does not load: nothing runs with an empty token.
        let unset = SuiteText.problems(printed)
        #expect(unset.count == 5 && unset.allSatisfy { $0.message.hasSuffix("is not set in the environment") }, "\(unset)")
    }

    @Test func expandsOnlyTheDocumentedForm() {
        #expect(SuiteEnvironment.expand("$HOME ${A}$$ $", environment: ["A": "x", "HOME": "/h"]).map(\.text) == .success("$HOME x$ $"))
        #expect(SuiteEnvironment.expand("${A}", environment: ["A": ""]).map(\.text) == .success(""))
        #expect(SuiteEnvironment.expand("plain", environment: [:]) == .success(.init(text: "plain", referencesEnvironment: false)))
        #expect(SuiteEnvironment.expand("$${A}", environment: [:]).map(\.text) == .success("${A}"), "$$ then literal {A}")
        for bad in ["${}", "${A-b}", "${ A}", "${A", "${9}"] {
            #expect((try? SuiteEnvironment.expand(bad, environment: ["A": "x"]).get()) == nil, "\(bad)")
        }
    }

    @Test func relativePathsResolveAgainstTheSuitesFolder() throws {
        let folder = SuiteText.temporaryDirectory()
        SuiteText.write("body", to: folder + "/body.json")
        SuiteText.write("ca", to: folder + "/ca.pem")
        let path = SuiteText.write("""
        checks:
          - name: api
            kind: probe
            urls: ["https://127.0.0.1:9/"]
            data-file: body.json
            cacert: \(folder)/ca.pem
            pinned-pubkey: "sha256//AAAA"
          - name: up
            kind: resume
            url: http://127.0.0.1:9/files
            upload: body.json
        """, to: folder + "/suite.yaml")
        let loaded = try { () throws(SuiteLoader.Failure) in try SuiteLoader.load(path: path, kinds: .sonde, environment: [:]) }()
        guard let probe = spec(loaded, "api") as? ProbeSpec, let resume = spec(loaded, "up") as? ResumeSpec else {
            Issue.record("\(loaded)")
            return
        }
        #expect(probe.dataFile == folder + "/body.json")
        #expect(probe.cacert == folder + "/ca.pem")
        #expect(probe.pinnedPubkey == "sha256//AAAA")
        #expect(resume.upload == folder + "/body.json")
        #expect(loaded.file == path)

        // A missing file is reported at the key that names it, with the resolved path.
        let problems = SuiteText.problems("""
        checks:
          - name: api
            kind: probe
            urls: ["https://127.0.0.1:9/"]
            cacert: missing.pem
        """, folder: folder)
        #expect(problems.map(\.description) == ["suite.yaml:5:13: cacert: \(folder)/missing.pem: no such file, or not readable"])
    }

    @Test func aDefaultsValueOnlyOneKindUsesIsNotAnErrorForOthers() throws {
        let loaded = try SuiteText.load("""
        defaults:
          ping-interval: 1s
          trials: 3
        checks:
          - {name: api, kind: probe, urls: ["http://127.0.0.1:9/"]}
        """).get()
        guard let probe = spec(loaded, "api") as? ProbeSpec else { Issue.record("\(loaded)"); return }
        #expect(probe == ProbeSpec(urls: ["http://127.0.0.1:9/"]))
    }
}
