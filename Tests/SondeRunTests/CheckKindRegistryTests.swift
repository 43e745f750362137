import Foundation
import SondeCore
import SondeReport
import SondeLink
// Not @testable: a kind in another module sees SondeRun's public interface only, as this file does.
import SondeRun
import SondeSuite
import Testing

/// A kind declared outside SondeRun and registered in a `CheckKinds` of its own: suites read its
/// checks, refuse its wrong keys and thresholds, print them back, and a run drives its runner with
/// the report naming its kind. What a module such as SondeSSE does.
@Suite struct CheckKindRegistryTests {
    /// `kind: echo`: one URL, an optional count; its runner ends with an error when `count` is 2.
    enum EchoKind: RunnableKind {
        typealias Spec = EchoSpec
        static let name = "echo"
        static func runner(for spec: EchoSpec, settings: RunSettings) throws(SpecProblem) -> any CheckRunner {
            EchoRunner(url: spec.url, broken: spec.count == 2)
        }
        static func judges(_ threshold: Threshold) -> Bool { false }
        static let metricsHint = "an echo check has no threshold metrics"
    }

    struct EchoSpec: CheckSpec {
        typealias Kind = EchoKind
        var url: String
        var count: Int?
        var thresholds: [String]?
        static let countKey = SpecKey("count", .integer, bound: .integer(1...9), summary: "Echoes", help: "Echoes.")

        static var unfilled: EchoSpec { EchoSpec(url: "") }
        mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
            v.visitRequired(.url, &url)
            v.visit(Self.countKey, &count)
            v.visit(.thresholds, &thresholds)
        }
        func problems() -> [SpecProblem] {
            var problems = boundProblems
            if !url.hasPrefix("echo://") { problems.append(SpecProblem(key: "url", "needs echo://")) }
            if case .failure(let problem) = SpecRules.thresholds(thresholds, kind: EchoKind.self) { problems.append(problem) }
            return problems
        }
        func resolvingPaths(against folder: String) -> EchoSpec { self }
        var urls: [String] { [url] }
        var linkProfile: LinkProfile? { nil }
    }

    struct EchoRunner: CheckRunner {
        let url: String
        let broken: Bool
        var kind: any CheckKind.Type { EchoKind.self }
        var insecure: Bool { false }
        var targets: (urls: [String], resolve: [String]) { ([url], []) }
        var endpoints: [(address: String, port: Int)] { [] }
        func run(in lifecycle: RunLifecycle, _ context: CheckContext) async -> CheckOutcome {
            CheckOutcome(error: broken ? TaskError(code: .localIOError, message: "echo \(context.name ?? "") broke") : nil)
        }
        func render(_ finished: RunOutcome, _ renderer: TerminalRenderer) {}
    }

    static let kinds = CheckKinds(running: [ProbeKind.self, EchoKind.self])

    static func parse(_ text: String) -> Result<SuiteLoader.Loaded, SuiteLoader.Failure> {
        Result { () throws(SuiteLoader.Failure) in try SuiteLoader.parse(text, file: "suite.yaml", folder: "/", kinds: kinds, environment: [:]) }
    }

    @Test func aSuiteReadsAndPrintsARegisteredKind() throws {
        let loaded = try Self.parse("""
        defaults: {count: 3}
        checks:
          - {name: a, kind: echo, url: "echo://x"}
          - {name: b, kind: probe, urls: ["http://127.0.0.1:9/"]}
        """).get()
        let echo = try #require(loaded.suite.checks.first?.spec as? EchoSpec)
        #expect(echo == EchoSpec(url: "echo://x", count: 3))
        #expect(loaded.suite.checks[0].spec.kind.name == "echo")
        #expect(loaded.suite.checks[1].spec is ProbeSpec)
        // Printed back, it reads back the same.
        #expect(try Self.parse(SuiteLoader.suiteYAML(loaded.suite)).get().suite == loaded.suite)
        #expect(SuiteLoader.entryYAML(name: "a", spec: echo) == "- name: a\n  kind: echo\n  url: echo://x\n  count: 3\n")
        #expect(SuiteSchema.branch(EchoKind.self, in: Self.kinds)["required"] as? [String] == ["name", "kind", "url"])
        #expect(Self.kinds.defaultsKeys.contains("count") && Self.kinds.valueTypes["count"] == .integer)
    }

    @Test func aSuiteRefusesWhatTheKindRefuses() {
        let cases = [
            "checks:\n  - {name: a, kind: echo, url: \"echo://x\", urls: [y]}\n": "unknown key for a echo check (allowed: name, kind, url, count, thresholds)",
            "checks:\n  - {name: a, kind: echo, url: \"echo://x\", count: 10}\n": "count: must be between 1 and 9",
            "checks:\n  - {name: a, kind: echo, url: \"http://x\"}\n": "url: needs echo://",
            "checks:\n  - {name: a, kind: echo, url: \"echo://x\", thresholds: [\"errors.rate<1%\"]}\n": "an echo check has no threshold metrics",
            "checks:\n  - {name: a, kind: sse, url: \"echo://x\"}\n": "unknown kind 'sse' (allowed: probe, echo)",
        ]
        for (text, words) in cases {
            guard case .failure(let failure) = Self.parse(text) else { Issue.record("accepted: \(text)"); continue }
            #expect(failure.description.contains(words), "\(failure)")
        }
    }

    @Test func aRunDrivesTheKindsRunnerAndTheReportNamesItsKind() async throws {
        let directory = NSTemporaryDirectory() + "sonde-kinds-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = RunSettings()
        settings.outputDirectory = directory
        let loaded = try Self.parse("""
        checks:
          - {name: fine, kind: echo, url: "echo://x"}
          - {name: broken, kind: echo, url: "echo://y", count: 2}
        """).get()
        let planned = try loaded.suite.checks.map { check throws(SpecProblem) in try PlannedCheck(check, settings: settings) }
        let ended = await CheckDriver(command: "run", arguments: [], settings: settings, quiet: true).runReporting(planned)
        let checks = try #require(ended.finished?.checks)
        #expect(checks.map(\.kind) == ["echo", "echo"])
        #expect(checks.map(\.status) == [.passed, .error])
        #expect(checks.map(\.error?.message) == [nil, "echo broken broke"])
        #expect(ended.status == .failure)
    }
}
