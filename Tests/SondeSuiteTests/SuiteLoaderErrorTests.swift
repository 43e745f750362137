import Foundation
import SondeCLI
@testable import SondeSuite
import Testing

/// Every kind of problem a suite file can have, each at its exact line and column.
@Suite struct SuiteLoaderErrorTests {
    /// The one problem of `text`, checked to be at `line`:`column` about `key`, containing `words`.
    @discardableResult
    func expectOne(_ text: String, line: Int, column: Int, key: String?, _ words: String,
                   environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) -> SuiteLoader.Problem? {
        let problems = SuiteText.problems(text, environment: environment)
        #expect(problems.count == 1, "\(problems)", sourceLocation: sourceLocation)
        guard let problem = problems.first else { return nil }
        #expect(problem.line == line && problem.column == column, "at \(problem.line):\(problem.column): \(problem)", sourceLocation: sourceLocation)
        #expect(problem.key == key, "\(problem)", sourceLocation: sourceLocation)
        #expect(problem.message.contains(words), "\(problem.message)", sourceLocation: sourceLocation)
        return problem
    }

    @Test func unknownTopLevelKey() {
        let problem = expectOne("""
        parallel: 1
        bogus: 1
        checks:
          - {name: api, kind: probe, urls: ["http://127.0.0.1:9/"]}
        """, line: 2, column: 1, key: "bogus", "unknown key (allowed: parallel, links, defaults, checks)")
        #expect(problem?.description == "suite.yaml:2:1: bogus: unknown key (allowed: parallel, links, defaults, checks)")
    }

    @Test func unknownCheckKeyListsTheKindsKeys() {
        let problem = expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            duraton: 5s
        """, line: 5, column: 5, key: "duraton", "unknown key for a probe check (allowed: name, kind, urls, count, parallel, http1.1")
        #expect(problem?.message.hasSuffix("expect-status, client, graphql-query, graphql-variables, graphql-operation, link, thresholds)") == true, "\(problem?.message ?? "")")
    }

    @Test func unknownDefaultsKeyAndNameInDefaults() {
        expectOne("""
        defaults:
          timeout: 5s
          colour: red
        checks:
          - {name: api, kind: probe, urls: ["http://127.0.0.1:9/"]}
        """, line: 3, column: 3, key: "colour", "unknown key: no kind of check takes it (allowed in defaults: urls, count,")
        expectOne("""
        defaults:
          kind: probe
        checks:
          - {name: api, kind: probe, urls: ["http://127.0.0.1:9/"]}
        """, line: 2, column: 3, key: "kind", "belongs in each check, not in defaults")
    }

    @Test func wrongTypesNameTheKeyAndTheExpectedType() {
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            count: 5x
        """, line: 5, column: 12, key: "count", "expected a whole number (got '5x')")
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: {a: 1}
        """, line: 4, column: 11, key: "urls", "expected a list of URLs, each a URL or {name: NAME, url: URL} (got a mapping)")
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            headers: ["X-A: 1", [nested]]
        """, line: 5, column: 25, key: "headers", "expected text in each item (got a list)")
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            insecure: maybe
        """, line: 5, column: 15, key: "insecure", "expected true or false (got 'maybe')")
        expectOne("""
        checks:
          - name: sock
            kind: soak
            url: ws://127.0.0.1:9/
            message-size: [1]
        """, line: 5, column: 19, key: "message-size", "expected a number of bytes, or with a unit")
    }

    @Test func badUnit() {
        expectOne("""
        checks:
          - name: sock
            kind: soak
            url: ws://127.0.0.1:9/
            duration: 10 parsecs
        """, line: 5, column: 15, key: "duration", "'10 parsecs' is not a number with a unit: 500ms, 5s, 2m, 1h")
    }

    @Test func duplicateNameAtTheSecond() {
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
        """, line: 5, column: 11, key: "name", "'api' is already the name of another check (line 2)")
    }

    @Test func badNameAndMissingName() {
        expectOne("""
        checks:
          - name: API!
            kind: probe
            urls: ["http://127.0.0.1:9/"]
        """, line: 2, column: 11, key: "name", "'API!' is not a valid check name: use 1 to 64 of a-z, 0-9, _ and -")
        expectOne("""
        checks:
          - kind: probe
            urls: ["http://127.0.0.1:9/"]
        """, line: 2, column: 5, key: "name", "missing: every check needs a name")
    }

    @Test func unknownKind() {
        let problem = expectOne("""
        checks:
          - name: api
            kind: ping
            urls: ["http://127.0.0.1:9/"]
        """, line: 3, column: 11, key: "kind", "unknown kind 'ping' (allowed: probe, soak, resume, audit, sse)")
        #expect(problem?.description == "suite.yaml:3:11: kind: unknown kind 'ping' (allowed: probe, soak, resume, audit, sse)")
    }

    @Test func malformedThresholdAtItsItem() {
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            thresholds: ["wait.p95<200ms", "wiat.p95<1s"]
        """, line: 5, column: 36, key: "thresholds", "invalid threshold 'wiat.p95<1s': unknown metric 'wiat.p95'")
    }

    @Test func unsetVariableAtItsScalar() {
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls:
              - "${BASE}/a"
              - "${NOPE}/b"
        """, line: 6, column: 9, key: "urls", "${NOPE} is not set in the environment", environment: ["BASE": "http://127.0.0.1:9"])
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/${1X}"]
        """, line: 4, column: 12, key: "urls", "'${1X}' does not name an environment variable")
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/${X"]
        """, line: 4, column: 12, key: "urls", "'${' is not closed by '}'")
    }

    @Test func aliasBombIsRefusedWhereItCrossesTheBound() {
        let bomb = """
        a: &a [x, x, x, x, x, x, x, x, x, x]
        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
        c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
        d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
        e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
        f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
        checks: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
        """
        let started = Date()
        let problems = SuiteText.problems(bomb)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(problems.count == 1)
        let problem = problems.first
        #expect(problem?.message.contains("stands for more than 100000 further YAML nodes once its aliases (*name) are expanded: refused (an alias bomb)") == true)
        // The alias that crossed the bound: e's eighth *d (d stands for 11,111 nodes, so adds 11,110;
        // b, c and d's aliases added 12,300 before e).
        #expect(problem?.line == 5 && problem?.column == 36, "\(String(describing: problem))")
        let line = bomb.split(separator: "\n")[4]
        #expect(Array(line)[35] == "*")
    }

    @Test func nestingTooDeepIsRefused() {
        let deep = "checks: " + String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        let problems = SuiteText.problems(deep)
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("deeper than 64 levels") == true)
        #expect(problems.first?.line == 1 && problems.first?.column == 8 + 64, "the 64th [ of line 1: \(problems)")
    }

    @Test func syntaxErrorWithItsPosition() {
        let problem = expectOne("""
        checks:
          - name: api
            kind: [probe
            urls: ["http://127.0.0.1:9/"]
        """, line: 4, column: 9, key: nil, "not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 3, column 11)")
        #expect(problem?.description.hasPrefix("suite.yaml:4:9: not valid YAML:") == true)
        expectOne("""
        checks:
          - name: api
           kind: probe
        """, line: 3, column: 4, key: nil, "not valid YAML: did not find expected '-' indicator (while parsing a block collection at line 2, column 3)")
    }

    @Test func emptyOrMissingChecks() {
        expectOne("checks: []\n", line: 1, column: 9, key: "checks", "needs at least one check")
        expectOne("parallel: 2\n", line: 1, column: 1, key: "checks", "missing: a suite needs checks:")
        expectOne("", line: 1, column: 1, key: nil, "the suite is empty")
        expectOne("checks: all\n", line: 1, column: 9, key: "checks", "expected a list of checks (got 'all')")
        expectOne("- a\n- b\n", line: 1, column: 1, key: nil, "a suite is a mapping with checks:")
    }

    @Test func tooManyChecks() {
        let checks = (0...Suite.maxChecks).map { "  - {name: c\($0), kind: probe, urls: [\"http://127.0.0.1:9/\"]}" }
        let problems = SuiteText.problems("checks:\n" + checks.joined(separator: "\n"))
        #expect(problems.count == 1)
        #expect(problems.first?.line == Suite.maxChecks + 2 && problems.first?.column == 5)
        #expect(problems.first?.message == "a suite declares at most 1000 checks (this list has 1001)")
    }

    @Test func parallelOutOfRangeOrNotANumber() {
        let check = "\nchecks:\n  - {name: api, kind: probe, urls: [\"http://127.0.0.1:9/\"]}\n"
        expectOne("parallel: 17" + check, line: 1, column: 11, key: "parallel", "must be between 1 and 16 (got 17)")
        expectOne("parallel: 0" + check, line: 1, column: 11, key: "parallel", "must be between 1 and 16 (got 0)")
        expectOne("parallel: two" + check, line: 1, column: 11, key: "parallel", "expected a whole number from 1 to 16 (got 'two')")
        expectOne("parallel: 99999999999999999999999" + check, line: 1, column: 11, key: "parallel", "expected a whole number")
    }

    @Test func specProblemsAtTheirKey() {
        let problem = expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            count: 0
        """, line: 5, column: 12, key: "count", "must be between 1 and 10000000 (got 0)")
        #expect(problem?.description == "suite.yaml:5:12: count: must be between 1 and 10000000 (got 0)")
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/", "ftp://127.0.0.1/"]
        """, line: 4, column: 35, key: "urls", "'ftp://127.0.0.1/': ftp:// is not supported here, only http:// and https://")
        // Issue 41: a URL without a scheme is refused with the URL meant, at the URL itself.
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/", "api.example.com/v1/health"]
        """, line: 4, column: 35, key: "urls", "'api.example.com/v1/health' is not a URL (it has no scheme): did you mean https://api.example.com/v1/health?")
        expectOne("""
        checks:
          - {name: ws, kind: soak, url: "https://127.0.0.1:9/ws"}
        """, line: 2, column: 33, key: "url", "did you mean wss://127.0.0.1:9/ws?")
        expectOne("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            http2: true
            http3: true
        """, line: 6, column: 12, key: "http3", "choose one of http1.1, http2, http2-prior-knowledge, http3, http3-only")
        expectOne("""
        checks:
          - name: api
            kind: probe
            count: 2
        """, line: 2, column: 5, key: "urls", "missing: a probe check needs urls (a list of text items")
    }

    @Test func aDefaultsProblemIsSaidOnceAtTheDefault() {
        expectOne("""
        defaults:
          timeout: 5 parsecs
        checks:
          - {name: a, kind: probe, urls: ["http://127.0.0.1:9/"]}
          - {name: b, kind: probe, urls: ["http://127.0.0.1:9/"]}
        """, line: 2, column: 12, key: "timeout", "'5 parsecs' is not a number with a unit")
        expectOne("""
        defaults:
          count: 0
        checks:
          - {name: a, kind: probe, urls: ["http://127.0.0.1:9/"]}
          - {name: b, kind: probe, urls: ["http://127.0.0.1:9/"]}
          - {name: c, kind: soak, url: "ws://127.0.0.1:9/"}
        """, line: 2, column: 10, key: "count", "must be between 1 and 10000000 (got 0)")
    }

    @Test func everyProblemOfTheFileInItsOrder() {
        let problems = SuiteText.problems("""
        parallel: 40
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            count: many
            timeout: 3 fortnights
            colour: blue
          - name: sock
            kind: soak
            url: ws://127.0.0.1:9/
            ping-interval: [1]
          - name: api
            kind: teleport
        """)
        #expect(problems.map { "\($0.line):\($0.column):\($0.key ?? "-")" }
            == ["1:11:parallel", "6:12:count", "7:14:timeout", "8:5:colour", "12:20:ping-interval", "13:11:name", "14:11:kind"],
                "\(SuiteLoader.Failure(problems: problems))")
    }

    @Test func valuesFromTheEnvironmentNeverAppearInMessages() {
        let environment = ["COUNT": "sk-live-count", "AUTH": "Authorization Bearer sk-live-header"]
        let problems = SuiteText.problems("""
        checks:
          - name: api
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            count: ${COUNT}
          - name: api2
            kind: probe
            urls: ["http://127.0.0.1:9/"]
            headers: ["${AUTH}"]
        """, environment: environment)
        #expect(problems.count == 2, "\(problems)")
        let text = SuiteLoader.Failure(problems: problems).description
        #expect(!text.contains("sk-live"), "\(text)")
        #expect(text.contains("count: expected a whole number (got '${COUNT}')"), "\(text)")
        #expect(text.contains("headers: '${AUTH}' is not of the form 'Name: value'"), "\(text)")
    }

    @Test func unreadableFileIsAProblemOfTheWholeFile() {
        do throws(SuiteLoader.Failure) {
            _ = try SuiteLoader.load(path: "/nonexistent/suite.yaml", kinds: .sonde, environment: [:])
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.description == "/nonexistent/suite.yaml: cannot read the suite file: no such file, or not readable")
            #expect(error.problems.first?.line == 0)
        }
    }
}
