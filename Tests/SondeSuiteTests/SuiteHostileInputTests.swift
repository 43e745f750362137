import Foundation
import SondeCLI
import Testing
@testable import SondeSuite

/// What a hostile review of suites found, each kept from coming back: request smuggling through
/// CR LF, files that block, secrets in messages, a file that costs minutes to refuse.
@Suite struct SuiteHostileInputTests {
    static let probe = "checks:\n  - {name: a, kind: probe, urls: [\"http://127.0.0.1:9/\"], "

    /// "\r\n" is one Character: a check that looks for "\r" or "\n" lets it through. Headers,
    /// methods, URLs and subprotocols with CR LF are refused.
    @Test func crlfIsRefusedEverywhereItWouldSplitARequest() {
        let environment = ["HV": "v\r\nEvil: 1", "METHOD": "GET\r\nX", "SUB": "x\r\ny"]
        let header = SuiteText.problems(Self.probe + "headers: [\"X-B: ${HV}\"]}\n", environment: environment)
        #expect(header.first?.key == "headers", "\(header)")
        let method = SuiteText.problems(Self.probe + "request: \"${METHOD}\"}\n", environment: environment)
        #expect(method.first?.key == "request", "\(method)")
        let url = SuiteText.problems("checks:\n  - {name: a, kind: probe, urls: [\"http://127.0.0.1:9/${HV}\"]}\n", environment: environment)
        #expect(url.first?.key == "urls", "\(url)")
        let sub = SuiteText.problems("checks:\n  - {name: s, kind: soak, url: \"ws://127.0.0.1:9/\", subprotocols: [\"${SUB}\"]}\n", environment: environment)
        #expect(sub.first?.key == "subprotocols", "\(sub)")
        // And no message shows the value itself.
        for problem in header + method + url + sub { #expect(!problem.description.contains("Evil"), "\(problem)") }
    }

    /// A FIFO or a device as a file would block the run or never end: only regular files are taken.
    @Test func onlyRegularFilesAreRead() throws {
        let folder = SuiteText.temporaryDirectory()
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for (key, kind) in [("cacert", "probe"), ("data-file", "probe"), ("pinned-pubkey", "probe")] {
            let problems = SuiteText.problems("checks:\n  - {name: a, kind: \(kind), urls: [\"http://127.0.0.1:9/\"], \(key): \(fifo)}\n")
            #expect(problems.first?.key == key && problems.first?.message.contains("not a regular file") == true, "\(key): \(problems)")
        }
        let zero = SuiteText.problems("checks:\n  - {name: r, kind: resume, url: \"http://127.0.0.1:9/\", upload: /dev/zero}\n")
        #expect(zero.first?.key == "upload" && zero.first?.message.contains("not a regular file") == true, "\(zero)")
        // The suite file itself: a FIFO is refused without waiting for a writer.
        let started = Date()
        #expect(throws: SuiteLoader.Failure.self) { try SuiteLoader.load(path: fifo, kinds: .sonde) }
        #expect(Date().timeIntervalSince(started) < 2)
    }

    /// Values from the environment appear in no message, whole or in part.
    @Test func noMessageShowsAValueFromTheEnvironment() {
        let secret = "S3CR3T_VAL"
        let environment = ["TOKEN": secret]
        for entry in ["kinds: \"abort,${TOKEN}\"", "interrupt-at: [\"50%,${TOKEN}\"]", "cacert: /x/${TOKEN}",
                      "thresholds: [\"wait.p95<${TOKEN}\"]", "url: \"ws://${TOKEN} x/\""] {
            let kind = entry.hasPrefix("url") ? "soak" : "resume"
            let url = entry.hasPrefix("url") ? "" : "url: \"http://127.0.0.1:9/\", "
            let problems = SuiteText.problems("checks:\n  - {name: a, kind: \(kind), \(url)\(entry)}\n", environment: environment)
            #expect(!problems.isEmpty, "\(entry)")
            for problem in problems { #expect(!problem.description.contains(secret), "\(entry): \(problem)") }
        }
    }

    /// Problems are de-duplicated in linear time and at most 100 are said.
    @Test func manyProblemsAreCheapAndCapped() {
        var text = "checks:\n  - name: a\n    kind: probe\n    urls: [\"http://127.0.0.1:9/\"]\n"
        for index in 0..<20_000 { text += "    unknown\(index): 1\n" }
        let started = Date()
        let problems = SuiteText.problems(text)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(problems.count == 101 && problems.last?.message == "and 19900 more problems", "\(problems.count) \(problems.last?.message ?? "")")
    }
}
