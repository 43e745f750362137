import Foundation
import Testing

/// `sonde audit` as a run (issue 30): a run folder against the nginx audit corpus with report.json
/// (`audits[]`, schema-valid), junit.xml (a case per finding) and report.html; the exit status by
/// `--fail-on`; the suite kind `audit` in `sonde run`; `sonde serve` exposing `sonde_audit_finding`
/// to a real Prometheus; `--link lte` (root) stating each request's cold and warm cost over the link.
@Suite(.serialized) struct AuditRunCLITests {
    /// The only run folder under `output`.
    static func folder(_ output: String) throws -> String {
        let name = try #require(try Harness.entries(of: output).first { !$0.hasPrefix(".") && $0.contains("-") && !$0.hasSuffix(".prom") })
        return output + "/" + name
    }

    static func audits(_ report: [String: Any]) -> [[String: Any]] { (report["audits"] as? [[String: Any]]) ?? [] }

    static func findings(_ audit: [String: Any]) -> [String: String] {
        let findings = ((audit["target"] as? [String: Any])?["findings"] as? [[String: Any]]) ?? []
        return Dictionary(findings.compactMap { finding in (finding["id"] as? String).map { ($0, finding["severity"] as? String ?? "") } },
                          uniquingKeysWith: { first, _ in first })
    }

    static func requests(_ audit: [String: Any]) -> [String: [String: Any]] {
        let requests = ((audit["target"] as? [String: Any])?["requests"] as? [[String: Any]]) ?? []
        return Dictionary(requests.compactMap { request in (request["name"] as? String).map { ($0, request) } }, uniquingKeysWith: { first, _ in first })
    }

    /// Three corpus servers in one run: the clean one passes, the SHA-1 one fails `cert.signature`
    /// (exit 1); every file of the folder shows the three audits, the JUnit with a failed case per
    /// failing finding, the HTML with a section per URL.
    @Test func anAuditRunFolderAgainstTheCorpus() throws {
        let corpus = try AuditCorpusProcess.get()
        let output = Harness.temporaryDirectory()
        let urls = [try corpus.url("http-clean"), try corpus.url("http-gzip-off"), try corpus.url("sha1")]
        let result = try Harness.sonde(["audit", "--cacert", corpus.caFile, "--output-dir", output, "--prom", output + "/audit.prom"] + urls,
                                       timeout: 120)
        #expect(result.status == 1, "sha1 fails: \(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("FAIL cert.signature") && result.stdout.contains("2/3 URLs passed the audit (fail-on fail)"),
                "\(result.stdout)")
        let folder = try Self.folder(output)
        let report = try Harness.json(try String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        #expect((report["run"] as? [String: Any])?["command"] as? String == "audit")
        #expect((report["run"] as? [String: Any])?["status"] as? String == "failed")
        let audits = Self.audits(report)
        #expect(audits.count == 3)
        #expect(audits.map { $0["passed"] as? Bool } == [true, true, false],
                "clean and gzip-off pass at fail-on fail (gzip-off is a warn), sha1 does not")
        #expect(Self.findings(audits[1])["http.compression"] == "warn")
        #expect(Self.findings(audits[2])["cert.signature"] == "fail")
        // The GET's cold cost opened a connection; its warm one reused it (nginx keeps it).
        let get = try #require(Self.requests(audits[0])["get"])
        let cold = try #require(get["cold"] as? [String: Any]), warm = try #require(get["warm"] as? [String: Any])
        #expect(cold["reused"] as? Bool == false && (cold["setupMs"] as? Double ?? 0) > 0)
        #expect(warm["reused"] as? Bool == true && (warm["setupMs"] == nil || warm["setupMs"] is NSNull), "\(warm)")
        #expect(Self.requests(audits[0])["revalidation"] != nil)
        let validation = try Harness.validate([folder + "/report.json"])
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")

        // JUnit: a case per finding, failed exactly where the severity reaches fail.
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        let caseCount = junit.components(separatedBy: #"classname="sonde.audit""#).count - 1
        let findingCount = audits.reduce(0) { $0 + Self.findings($1).count }
        let failCount = audits.reduce(0) { $0 + Self.findings($1).values.filter { $0 == "fail" }.count }
        #expect(caseCount == findingCount && failCount >= 1)
        #expect(junit.contains(#"<testsuite name="audit" tests="\#(findingCount)" failures="\#(failCount)""#), "\(junit.prefix(600))")
        #expect(junit.contains(#"name="\#(urls[2]) cert.signature" time="0"><failure message="fail: "#))
        let lint = try Harness.run("/usr/bin/env", ["python3", "-c", "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])", folder + "/junit.xml"])
        #expect(lint.status == 0, "junit.xml parses: \(lint.stderr)")

        // HTML: a section per URL with its verdict, the findings and the costs.
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        for url in urls { #expect(html.contains("<h2>Audit <code>\(url)</code></h2>")) }
        #expect(html.contains("<h3>Requests: cold and warm cost</h3>") && html.contains("reused connection"))
        // The run's own status on top, then one URL's (sha1).
        #expect(html.components(separatedBy: "<p class=\"status failed\">failed</p>").count - 1 == 2)
        #expect(html.components(separatedBy: "<p class=\"status passed\">passed</p>").count - 1 == 2)

        // The Prometheus file: a series per finding.
        let prom = try String(contentsOfFile: output + "/audit.prom", encoding: .utf8)
        #expect(prom.contains(#"sonde_audit_finding{url="\#(urls[2])",id="cert.signature",severity="fail"} 3"#), "\(prom.prefix(2000))")

        // --fail-on warn: the gzip-off server's warn fails it too; --json prints the report document.
        let warn = try Harness.sonde(["audit", "--cacert", corpus.caFile, "--output-dir", output, "--fail-on", "warn", "--json", urls[1]])
        #expect(warn.status == 1, "\(warn.stderr)")
        let document = try Harness.json(warn.stdout)
        #expect(Self.audits(document).first?["passed"] as? Bool == false && Self.audits(document).first?["failOn"] as? String == "warn")
        let onlyClean = try Harness.sonde(["audit", "--cacert", corpus.caFile, "--output-dir", output, urls[0]])
        #expect(onlyClean.status == 0, "\(onlyClean.stdout)\(onlyClean.stderr)")
        let usage = try Harness.sonde(["audit", "--only", "no.such-finding", urls[0]])
        #expect(usage.status == 64 && usage.stderr.contains("--only names no finding no.such-finding"), "\(usage.stderr)")
    }

    /// `--resolve` audits a name the system cannot resolve (under RFC 6761's .test) at a given
    /// address: every request and handshake goes there, and the certificate's SAN covers the name.
    @Test func resolveAuditsANameAtAGivenAddress() throws {
        let corpus = try AuditCorpusProcess.get()
        let clean = try #require(URLComponents(string: try corpus.url("http-clean")))
        let port = try #require(clean.port)
        var named = clean
        named.host = "api.audit.test"
        let url = try #require(named.string)
        let output = Harness.temporaryDirectory()
        let result = try Harness.sonde(["audit", "--cacert", corpus.caFile, "--resolve", "api.audit.test:\(port):127.0.0.1",
                                        "--output-dir", output, "--json", url], timeout: 60)
        #expect(result.status == 0, "\(result.stdout.suffix(2000))\(result.stderr)")
        let audit = try #require(Self.audits(try Harness.json(result.stdout)).first)
        let findings = Self.findings(audit)
        #expect(findings["cert.san"] == "pass" && !findings.values.contains("fail"), "\(findings)")
        let without = try Harness.sonde(["audit", "--cacert", corpus.caFile, "--output-dir", output, url], timeout: 60)
        #expect(without.status == 1, "without --resolve the name does not resolve: \(without.stdout.suffix(1000))")
        let bad = try Harness.sonde(["audit", "--resolve", "not-an-entry", url])
        #expect(bad.status == 64 && bad.stderr.contains("resolve"), "\(bad.stderr)")
    }

    /// A suite with two audit checks beside a probe check: each audit check is judged by its own
    /// findings (the SHA-1 server's fails, the clean one passes), and the run fails.
    @Test func auditChecksInASuite() throws {
        let corpus = try AuditCorpusProcess.get()
        let directory = Harness.temporaryDirectory()
        let suite = directory + "/suite.yaml"
        try """
        checks:
          - name: api
            kind: audit
            urls: ["\(try corpus.url("http-clean"))"]
            cacert: \(corpus.caFile)
            skip: [h3.works]
          - name: legacy
            kind: audit
            urls: ["\(try corpus.url("sha1"))"]
            cacert: \(corpus.caFile)
            only: ["cert.signature,cert.key-size"]
          - name: fetch
            kind: probe
            urls: ["\(try corpus.url("http-clean"))"]
            cacert: \(corpus.caFile)
        """.write(toFile: suite, atomically: true, encoding: .utf8)
        let output = directory + "/runs"
        let result = try Harness.sonde(["run", suite, "--output-dir", output], timeout: 120)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let folder = try Self.folder(output)
        let report = try Harness.json(try String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let checks = (report["checks"] as? [[String: Any]]) ?? []
        #expect(checks.map { "\($0["name"] ?? "") \($0["kind"] ?? "") \($0["status"] ?? "")" } == ["api audit passed", "legacy audit failed", "fetch probe passed"])
        let audits = Self.audits(report)
        #expect(audits.map { $0["check"] as? String } == ["api", "legacy"])
        #expect(Self.findings(audits[0])["h3.works"] == nil)
        #expect(Set(Self.findings(audits[1]).keys) == ["cert.signature", "cert.key-size"])
        let validation = try Harness.validate([folder + "/report.json"])
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        #expect(junit.contains(#"<testsuite name="legacy" tests="2" failures="1""#), "\(junit)")
        // --print-suite writes the same check back.
        let printed = try Harness.sonde(["audit", "--print-suite", "--only", "hsts", "--fail-on", "warn", "--budget", "5s", try corpus.url("http-clean")])
        #expect(printed.status == 0 && printed.stdout.contains("kind: audit") && printed.stdout.contains("fail-on: warn")
                && printed.stdout.contains("budget: 5s"), "\(printed.stdout)\(printed.stderr)")
    }

    /// `sonde serve` schedules an audit check; `/metrics` has a `sonde_audit_finding` series per
    /// finding, and a real Prometheus scrapes them (the exposition parses, promtool finds nothing).
    @Test func serveExposesAuditFindingsToPrometheus() throws {
        let corpus = try AuditCorpusProcess.get()
        let sha1 = try corpus.url("sha1")
        let config = """
        checks:
          - {name: legacy, kind: audit, urls: ["\(sha1)"], cacert: \(corpus.caFile), every: 2s}
        """
        let serve = try ServeCLITests.Serve(config: config)
        defer { serve.stop() }
        #expect(Harness.waitFor(seconds: 60) { serve.logText().contains("check legacy: ") }, "\(serve.logText())\(serve.errorText())")
        let metrics = try ServeCLITests.fetch("\(serve.base)/metrics").body
        let samples = ServeCLITests.samples(metrics)
        #expect(samples[#"sonde_audit_finding{check="legacy",url="\#(sha1)",id="cert.signature",severity="fail"}"#] == 3, "\(metrics.prefix(3000))")
        #expect(samples[#"sonde_audit_success{check="legacy",url="\#(sha1)"}"#] == 0)
        #expect(samples[#"sonde_check_success{check="legacy",kind="audit"}"#] == 0)
        let findingSeries = samples.keys.filter { $0.hasPrefix("sonde_audit_finding{") }
        #expect(findingSeries.count >= 10, "a series per finding: \(findingSeries.count)")
        let file = Harness.temporaryDirectory() + "/metrics.txt"
        FileManager.default.createFile(atPath: file, contents: Data(metrics.utf8))
        let lint = try Harness.run("/bin/sh", ["-c", "/usr/bin/promtool check metrics < \"$0\"", file])
        #expect(lint.status == 0 && (lint.stdout + lint.stderr).isEmpty, "promtool: \(lint.stdout)\(lint.stderr)")

        let work = Harness.temporaryDirectory()
        let (prometheus, promPort) = try ServeCLITests.startPrometheus(scraping: serve.port, in: work)
        defer { Harness.stop(prometheus, signal: SIGTERM) }
        let query = "http://127.0.0.1:\(promPort)/api/v1/query?query="
            + ("sonde_audit_finding{job=\"sonde\",check=\"legacy\",severity=\"fail\"}".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        var ids: Set<String> = []
        let scraped = Harness.waitFor(seconds: 40) {
            guard let body = try? ServeCLITests.fetch(query).body, let json = try? Harness.json(body),
                  let result = (json["data"] as? [String: Any])?["result"] as? [[String: Any]] else { return false }
            ids = Set(result.compactMap { ($0["metric"] as? [String: String])?["id"] })
            return ids.contains("cert.signature")
        }
        #expect(scraped, "Prometheus stored sonde_audit_finding{severity=\"fail\"}: \(ids)")
    }

    /// `--link lte` (50 ms down, 65 ms up: RTT 115 ms): the measured requests cross the link, so the
    /// GET's cold setup holds at least TCP's and TLS's round trips and every request waits at least
    /// one RTT; the report says which link the audit crossed.
    @Test(.enabled(if: geteuid() == 0, "needs root: --link creates a network namespace and TUN devices"))
    func anAuditOverLTEStatesTheLinksCost() throws {
        let corpus = try AuditCorpusProcess.get()
        let output = Harness.temporaryDirectory()
        let url = try corpus.url("http-clean")
        let result = try Harness.sonde(["audit", "--link", "lte", "--cacert", corpus.caFile, "--output-dir", output,
                                        "--skip", "h3.works", url], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("over the emulated link lte") && result.stdout.contains("cold: h2 new connection"), "\(result.stdout)")
        let folder = try Self.folder(output)
        let report = try Harness.json(try String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let link = try #require((report["run"] as? [String: Any])?["link"] as? [String: Any])
        #expect((link["conditions"] as? [String: Any])?["profile"] as? String == "lte")
        let audit = try #require(Self.audits(report).first)
        #expect(audit["link"] as? String == "lte")
        let rtt = 115.0
        let get = try #require(Self.requests(audit)["get"])
        let cold = try #require(get["cold"] as? [String: Any]), warm = try #require(get["warm"] as? [String: Any])
        let coldSetup = try #require(cold["setupMs"] as? Double), coldTotal = try #require(cold["totalMs"] as? Double)
        let warmTotal = try #require(warm["totalMs"] as? Double), warmWait = try #require(warm["waitMs"] as? Double)
        print("lte: cold setup \(coldSetup) ms, cold total \(coldTotal) ms, warm total \(warmTotal) ms, warm wait \(warmWait) ms")
        // TCP (1 RTT) and TLS 1.3 (1 RTT) before the request; the request itself 1 RTT more.
        #expect(coldSetup >= 2 * rtt && coldSetup < 2 * rtt + 150, "cold setup \(coldSetup) ms over a \(rtt) ms RTT")
        #expect(coldTotal >= 3 * rtt, "cold total \(coldTotal) ms")
        #expect(warm["reused"] as? Bool == true && warmWait >= rtt && warmTotal >= rtt && warmTotal < coldTotal - rtt,
                "warm \(warmTotal) ms (wait \(warmWait) ms)")
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("measured over the emulated link <code>lte</code>"))
        let validation = try Harness.validate([folder + "/report.json"])
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
    }
}
