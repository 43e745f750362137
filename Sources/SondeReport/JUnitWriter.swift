import SondeCore

/// Streams `junit.xml` (the JUnit XML dialect Jenkins, GitLab and GitHub test reporters read):
/// one `<testsuite>` for the thresholds (a test case per expression), one for the requests (a test
/// case per request name, `summary.byRequest`: failed when any of its tasks failed, its figures in
/// `system-out`) and one for the probe tasks (a test case per task, failed when the task failed,
/// with the error code as the failure type).
///
/// The opening tags carry counts, so `ReportFiles` writes the test cases first (spilled to a
/// file) and puts `head` before them at the end. Every string goes through `xmlEscape`.
///
/// A run of checks (`sonde run`) is laid out differently: the run's own thresholds in a suite of
/// their own, then one `<testsuite name="<check>">` per check holding its thresholds, soak,
/// resume verdicts and trials, and task cases (`checksHead`, `suite`, the tasks, `suiteTail`).
public enum JUnitWriter {
    /// The opening of one `<testsuite>` and its cases other than tasks, with the suite's counts
    /// (task cases included: they follow the text).
    struct Suite {
        let text: String
        let tests: Int
        let failures: Int
        let errors: Int
    }

    /// A check's suite (or, named `sonde <command>`, the entries recorded outside checks): its
    /// threshold cases, soak cases, verdicts and trials; an `<error>` case when `error` stopped it;
    /// `tasks` task cases (`failedTasks` of them failed) follow.
    static func suite(name: String, timestamp: Timestamp, thresholds: [ThresholdResult], soaks: [SoakReport],
                      resume: ResumeResults, requests: [ProbeSummary.RequestFigures] = [],
                      error: TaskError?, tasks: Int, failedTasks: Int, link: LinkUse? = nil, sectionCases: [JUnitSectionCase] = []) -> Suite {
        let failures = thresholds.filter { !$0.passed }.count + soaks.filter { !$0.passed }.count
            + sectionCases.filter { $0.failure != nil }.count
            + resume.trials.filter { !$0.intact }.count + resume.verdicts.filter { !$0.resumable }.count + failedTasks
            + requests.filter { $0.errors > 0 }.count
        let tests = thresholds.count + soaks.count + resume.trials.count + resume.verdicts.count + tasks + (error == nil ? 0 : 1)
            + requests.count + sectionCases.count
        let errors = error == nil ? 0 : 1
        var text = suiteOpen(name: name, tests: tests, failures: failures, errors: errors, timestamp: timestamp) + linkProperties(link)
        if let error {
            text += #"    <testcase classname="sonde.check" name="\#(xmlEscape(name))" time="0">"#
                + #"<error message="\#(xmlEscape(error.message))" type="\#(xmlEscape(error.code.rawValue))"></error></testcase>"# + "\n"
        }
        text += thresholdCases(thresholds)
        text += requestCases(requests)
        for soak in soaks { text += soakCase(soak) }
        for verdict in resume.verdicts { text += verdictCase(verdict) }
        for trial in resume.trials { text += trialCase(trial) }
        text += cases(sectionCases)
        return Suite(text: text, tests: tests, failures: failures, errors: errors)
    }

    /// The document's opening for a run of checks: `<testsuites>` with the totals of `suites` and of
    /// the run's own thresholds, then those thresholds' suite (closed).
    static func checksHead(run: RunInfo, thresholds: [ThresholdResult], suites: [Suite]) -> [UInt8] {
        let failedThresholds = thresholds.filter { !$0.passed }.count
        let seconds = run.finishedAt.map { Double($0.microsecondsSince1970 - run.startedAt.microsecondsSince1970) / 1e6 } ?? 0
        var head = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        head += #"<testsuites name="\#(xmlEscape("sonde \(run.command) \(run.id)"))" "#
            + #"tests="\#(thresholds.count + suites.reduce(0) { $0 + $1.tests })" "#
            + #"failures="\#(failedThresholds + suites.reduce(0) { $0 + $1.failures })" "#
            + #"errors="\#(suites.reduce(0) { $0 + $1.errors })" time="\#(Self.seconds(seconds))">"# + "\n"
        head += suiteOpen(name: "thresholds", tests: thresholds.count, failures: failedThresholds, errors: 0, timestamp: run.startedAt)
        head += thresholdCases(thresholds) + "  </testsuite>\n"
        return Array(head.utf8)
    }

    static let suiteTail = Array("  </testsuite>\n".utf8)
    static let documentTail = Array("</testsuites>\n".utf8)

    /// `<properties>` naming the emulated link a suite's figures crossed (`link`, `link.conditions`,
    /// the counters' drops), empty without one. JUnit wants properties first in their suite.
    static func linkProperties(_ link: LinkUse?) -> String {
        guard let link else { return "" }
        var properties = [("link", link.conditions.profile), ("link.conditions", link.conditions.summary), ("link.spec", link.conditions.spec)]
        if let dropped = link.dropped { properties.append(("link.dropped", "\(dropped)")) }
        return "    <properties>" + properties.map { #"<property name="\#($0.0)" value="\#(xmlEscape($0.1))"/>"# }.joined() + "</properties>\n"
    }

    private static func suiteOpen(name: String, tests: Int, failures: Int, errors: Int, timestamp: Timestamp) -> String {
        #"  <testsuite name="\#(xmlEscape(name))" tests="\#(tests)" failures="\#(failures)" errors="\#(errors)" "#
            + #"timestamp="\#(xmlEscape(timestamp.description))">"# + "\n"
    }

    /// The report sections' test cases (`JUnitSectionCase`), failed when they carry a failure.
    static func cases(_ sectionCases: [JUnitSectionCase]) -> String {
        sectionCases.map { item in
            let time = item.seconds.map(Self.seconds) ?? "0"
            var text = #"    <testcase classname="\#(xmlEscape(item.classname))" name="\#(xmlEscape(item.name))" time="\#(time)">"#
            if let failure = item.failure {
                text += #"<failure message="\#(xmlEscape(failure))" type="\#(xmlEscape(item.failureType ?? item.classname))">"#
                    + xmlEscape(item.failureDetail ?? failure) + "</failure>"
            }
            if let output = item.output { text += "<system-out>\(xmlEscape(output))</system-out>" }
            return text + "</testcase>\n"
        }.joined()
    }

    /// A test case per threshold expression, failed when it did not hold.
    private static func thresholdCases(_ thresholds: [ThresholdResult]) -> String {
        var cases = ""
        for result in thresholds {
            cases += #"    <testcase classname="sonde.thresholds" name="\#(xmlEscape(result.expression))" time="0">"#
            if !result.passed {
                cases += #"<failure message="\#(xmlEscape(result.message))" type="threshold">\#(xmlEscape(result.message))</failure>"#
            } else {
                cases += "<system-out>\(xmlEscape(result.message))</system-out>"
            }
            cases += "</testcase>\n"
        }
        return cases
    }

    /// A test case per request name: failed when any of its tasks failed (the failure says how
    /// many, and their codes), its figures in `system-out`; `time` is its tasks' span in seconds.
    static func requestCases(_ requests: [ProbeSummary.RequestFigures]) -> String {
        var cases = ""
        for request in requests {
            let span = Double(request.lastEnd.microsecondsSince1970 &- request.firstStart.microsecondsSince1970) / 1e6
            cases += #"    <testcase classname="sonde.request" name="\#(xmlEscape(request.name))" time="\#(seconds(span))">"#
            let figures = xmlEscape(RequestFiguresText.sentence(request))
            if request.errors > 0 {
                let message = "\(request.errors) of \(request.count) tasks failed: \(RequestFiguresText.errorCodes(request))"
                cases += #"<failure message="\#(xmlEscape(message))" type="request">\#(figures)</failure>"#
            }
            cases += "<system-out>\(figures)</system-out></testcase>\n"
        }
        return cases
    }

    public static func head(run: RunInfo, summary: ProbeSummary, thresholds: [ThresholdResult], soaks: [SoakReport] = [],
                            resume: ResumeResults = ResumeResults(),
                            sections: [(section: String, cases: [JUnitSectionCase])] = []) -> [UInt8] {
        let sectionTests = sections.reduce(0) { $0 + $1.cases.count }
        let sectionFailures = sections.reduce(0) { $0 + $1.cases.filter { $0.failure != nil }.count }
        let requests = summary.byRequest, failedRequests = requests.filter { $0.errors > 0 }.count
        let failedThresholds = thresholds.filter { !$0.passed }.count
        let failedSoaks = soaks.filter { !$0.passed }.count
        let resumeCases = resume.trials.count + resume.verdicts.count
        let failedResume = resume.trials.filter { !$0.intact }.count + resume.verdicts.filter { !$0.resumable }.count
        let seconds = run.finishedAt.map { Double($0.microsecondsSince1970 - run.startedAt.microsecondsSince1970) / 1e6 } ?? 0
        var head = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        head += #"<testsuites name="\#(xmlEscape("sonde \(run.command) \(run.id)"))" tests="\#(summary.tasks + thresholds.count + soaks.count + resumeCases + requests.count + sectionTests)" "#
            + #"failures="\#(summary.failedTasks + failedThresholds + failedSoaks + failedResume + failedRequests + sectionFailures)" errors="0" time="\#(Self.seconds(seconds))">"# + "\n"
        head += suiteOpen(name: "thresholds", tests: thresholds.count, failures: failedThresholds, errors: 0, timestamp: run.startedAt)
        head += thresholdCases(thresholds) + "  </testsuite>\n"
        if !requests.isEmpty {
            head += suiteOpen(name: "requests", tests: requests.count, failures: failedRequests, errors: 0, timestamp: run.startedAt)
            head += requestCases(requests) + "  </testsuite>\n"
        }
        if !soaks.isEmpty {
            head += suiteOpen(name: "soaks", tests: soaks.count, failures: failedSoaks, errors: 0, timestamp: run.startedAt)
            for soak in soaks { head += soakCase(soak) }
            head += "  </testsuite>\n"
        }
        if !resume.isEmpty {
            head += suiteOpen(name: "resume", tests: resumeCases, failures: failedResume, errors: 0, timestamp: run.startedAt)
            for verdict in resume.verdicts { head += verdictCase(verdict) }
            for trial in resume.trials { head += trialCase(trial) }
            head += "  </testsuite>\n"
        }
        for (section, sectionCases) in sections {
            head += suiteOpen(name: section, tests: sectionCases.count, failures: sectionCases.filter { $0.failure != nil }.count, errors: 0,
                              timestamp: run.startedAt)
            head += cases(sectionCases) + "  </testsuite>\n"
        }
        head += suiteOpen(name: "sonde \(run.command)", tests: summary.tasks, failures: summary.failedTasks, errors: 0,
                          timestamp: run.startedAt) + linkProperties(run.link)
        return Array(head.utf8)
    }

    /// One task's test case.
    ///
    /// Written as bytes, not through String interpolation: this runs once per task on the
    /// recorder's thread (7,500 instructions a task as interpolation; docs/performance.md).
    public static func testCase(_ task: ProbeTask) -> [UInt8] {
        let method = task.transactionMetrics.first?.request.method ?? "GET"
        var line: [UInt8] = []
        line.reserveCapacity(112 + method.utf8.count + task.url.utf8.count)
        append(#"    <testcase classname="sonde.probe" name=""#, to: &line)
        appendXMLEscaped(method, to: &line)
        line.append(UInt8(ascii: " "))
        appendXMLEscaped(task.url, to: &line)
        append(" #", to: &line)
        appendDecimal(task.iteration + 1, to: &line)
        append(#"" time=""#, to: &line)
        appendSeconds(task.taskInterval.durationMs / 1000, to: &line)
        append(#"">"#, to: &line)
        if let error = task.error {
            let failure = #"<failure message="\#(xmlEscape(error.message))" type="\#(xmlEscape(error.code.rawValue))">"#
                + xmlEscape(Self.evidence(task)) + "</failure>"
            line.append(contentsOf: failure.utf8)
        }
        append("</testcase>\n", to: &line)
        return line
    }

    private static func append(_ text: StaticString, to line: inout [UInt8]) {
        line.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `xmlEscape(text)`'s bytes, appended; text that needs no escape is copied as it is.
    private static func appendXMLEscaped(_ text: String, to line: inout [UInt8]) {
        var text = text
        let copied = text.withUTF8 { utf8 -> Bool in
            for byte in utf8 where needsXMLEscape(byte) { return false }
            line.append(contentsOf: utf8)
            return true
        }
        if !copied { line.append(contentsOf: xmlEscape(text).utf8) }
    }

    /// The decimal digits of `value`, zero-padded on the left to at least `width`.
    private static func appendDecimal(_ value: Int, width: Int = 1, to line: inout [UInt8]) {
        if value < 0 { return line.append(contentsOf: String(value).utf8) }
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        digits = max(digits, width)
        let start = line.count
        line.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var remaining = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            line[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
    }

    /// `seconds(value)`'s bytes, appended: whole milliseconds as `s.fff` without trailing zeros
    /// (`1.0`, `0.25`, `12.345`), which is what `Double.description` prints for them.
    private static func appendSeconds(_ value: Double, to line: inout [UInt8]) {
        let millis = (max(0, value) * 1000).rounded()
        guard millis < 1e15 else { return line.append(contentsOf: Self.seconds(value).utf8) }
        let whole = Int(millis) / 1000
        var fraction = Int(millis) % 1000
        appendDecimal(whole, to: &line)
        line.append(UInt8(ascii: "."))
        guard fraction > 0 else { return line.append(UInt8(ascii: "0")) }
        var width = 3
        while fraction % 10 == 0 { fraction /= 10; width -= 1 }
        appendDecimal(fraction, width: width, to: &line)
    }

    /// A verdict's test case: failed when the URL is not resumable, with the failed checks as evidence.
    static func verdictCase(_ verdict: ResumeVerdict) -> String {
        var line = #"    <testcase classname="sonde.resume.verdict" name="\#(xmlEscape(verdict.url))" time="0">"#
        let evidence = verdict.checks.map { "\($0.passed ? "ok" : $0.required ? "FAILED" : "no") \($0.name): \($0.evidence)" }
            .joined(separator: "\n")
        if !verdict.resumable {
            line += #"<failure message="\#(xmlEscape("not resumable: " + verdict.urlSession))" type="notResumable">"#
                + xmlEscape(evidence) + "</failure>"
        } else {
            line += "<system-out>\(xmlEscape(evidence))</system-out>"
        }
        return line + "</testcase>\n"
    }

    /// A trial's test case: failed unless the final file verified.
    static func trialCase(_ trial: ResumeTrial) -> String {
        let name = "\(trial.direction) trial \(trial.trial) \(trial.url)"
        var line = #"    <testcase classname="sonde.resume.trial" name="\#(xmlEscape(name))" time="\#(Self.seconds(trial.durationMs / 1000))">"#
        let evidence = trial.interruptions.map { "\($0.kind.rawValue) at \($0.atByte) → \($0.answeredWith ?? "-")" }.joined(separator: "; ")
            + "; \(trial.bytesWasted) bytes wasted; sha256 \(trial.sha256 ?? "none") expected \(trial.expectedSha256 ?? "unknown")"
        if !trial.intact {
            let message = trial.error?.message ?? "the file did not verify"
            line += #"<failure message="\#(xmlEscape(message))" type="\#(xmlEscape(trial.error?.code.rawValue ?? "corruptTransfer"))">"#
                + xmlEscape(evidence) + "</failure>"
        } else {
            line += "<system-out>\(xmlEscape(evidence))</system-out>"
        }
        return line + "</testcase>\n"
    }

    /// One soak's test case: failed when the soak did (a connection gave up, never opened, or an
    /// echo was corrupted), with its counts as evidence.
    static func soakCase(_ soak: SoakReport) -> String {
        let seconds = soak.finishedAt.map { Double($0.microsecondsSince1970 - soak.startedAt.microsecondsSince1970) / 1e6 } ?? 0
        let evidence = "\(soak.connections) connections, \(soak.attempts.count) attempts, \(soak.reconnects.count) reconnects; "
            + "pings \(soak.pings.answered)/\(soak.pings.sent) answered, \(soak.pings.missed) missed; "
            + "messages \(soak.messages.sent) sent, \(soak.messages.received) received, \(soak.messages.lost) lost, "
            + "\(soak.messages.corrupted) corrupted; up at end \(soak.upAtEnd)"
        var line = #"    <testcase classname="sonde.soak" name="\#(xmlEscape("soak \(soak.url)"))" time="\#(Self.seconds(seconds))">"#
        if soak.passed {
            line += "<system-out>\(xmlEscape(evidence))</system-out>"
        } else {
            let message = soak.problems.joined(separator: "; ")
            line += #"<failure message="\#(xmlEscape(message))" type="soak">\#(xmlEscape(evidence))</failure>"#
        }
        return line + "</testcase>\n"
    }

    public static let tail = Array("  </testsuite>\n</testsuites>\n".utf8)

    /// The hops of a failed task, one line each: what a CI log reader needs to see.
    static func evidence(_ task: ProbeTask) -> String {
        task.transactionMetrics.map { t in
            let status = t.response.map { String($0.statusCode) } ?? "no response"
            let total = t.phases.total.map { "\($0) ms" } ?? "-"
            return "\(t.request.method) \(t.request.url) → \(status), \(t.networkProtocolName ?? "-"), total \(total)"
        }.joined(separator: "\n")
    }

    static func seconds(_ value: Double) -> String {
        let millis = (max(0, value) * 1000).rounded()
        return String(millis / 1000)
    }
}
