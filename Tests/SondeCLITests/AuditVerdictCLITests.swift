import Foundation
import Testing

/// `sonde audit`'s verdicts against the nginx corpus where issue 39 found false passes, each
/// checked against an independent oracle on the same server: `curl -L` (every redirect hop's
/// certificate; a weak intermediate), `openssl s_client -showcerts` (the chain as sent, each
/// certificate's key and signature), curl's own connection reuse (keep-alive behind a slow body),
/// the response's own status and header; and the HTML page measured in headless Chromium.
@Suite(.serialized) struct AuditVerdictCLITests {
    /// The run's first audit, by `sonde audit … --json`.
    static func audit(_ arguments: [String], status expected: Int32, timeout: Double = 120) throws -> (audit: [String: Any], result: Harness.Result) {
        let corpus = try AuditCorpusProcess.get()
        let result = try Harness.sonde(["audit", "--cacert", corpus.caFile, "--output-dir", Harness.temporaryDirectory(), "--json"] + arguments,
                                       timeout: timeout)
        #expect(result.status == expected, "\(arguments): exit \(result.status): \(result.stdout.suffix(3000))\(result.stderr)")
        let document = (try? Harness.json(result.stdout)) ?? [:]
        return (AuditRunCLITests.audits(document).first ?? [:], result)
    }

    /// The finding `id` of `audit` (its JSON object), empty when absent.
    static func finding(_ audit: [String: Any], _ id: String) -> [String: Any] {
        let findings = ((audit["target"] as? [String: Any])?["findings"] as? [[String: Any]]) ?? []
        return findings.first { $0["id"] as? String == id } ?? [:]
    }

    static func text(_ finding: [String: Any], _ key: String) -> String { finding[key] as? String ?? "" }

    /// Issue 39 #1: a redirect to a host the certificate does not name fails as `curl -L` fails
    /// (exit 60), whether the URL given is https (to www.) or http (through www. to a host whose
    /// certificate is fine).
    @Test func everyHTTPSHopsCertificateIsCheckedAsCurlFollowingRedirectsChecksIt() throws {
        let corpus = try AuditCorpusProcess.get()
        let wwwPort = try corpus.port("redirect-www")
        for name in ["redirect-www", "redirect-http-www"] {
            let url = try corpus.url(name)
            let resolve = corpus.resolveArguments(name)
            let curl = try Harness.run("/usr/bin/curl", ["-sS", "-L", "-o", "/dev/null", "--cacert", corpus.caFile] + resolve + [url], timeout: 30)
            #expect(curl.status == 60 && curl.stderr.contains("no alternative certificate subject name matches target host name 'www.api.audit.test'"),
                    "\(name): curl -L: \(curl.status) \(curl.stderr)")
            let (audit, _) = try Self.audit(resolve + [url], status: 1)
            let san = Self.finding(audit, "cert.san")
            #expect(Self.text(san, "severity") == "fail", "\(name): \(san)")
            #expect(Self.text(san, "observed").contains("www.api.audit.test:\(wwwPort) (redirect hop 1): www.api.audit.test is not in the subjectAltName"),
                    "\(name): \(Self.text(san, "observed"))")
            #expect(audit["passed"] as? Bool == false)
        }
    }

    /// `openssl s_client -showcerts`'s view of a server's chain: per certificate as sent, its
    /// subject, issuer, key ("rsaEncryption, 1024 (bit)") and signature ("RSA-SHA1").
    static func showcerts(port: Int) throws -> [(subject: String, issuer: String, key: String, signature: String)] {
        let result = try Harness.run("/bin/sh", ["-c", "openssl s_client -connect 127.0.0.1:\(port) -showcerts </dev/null"], timeout: 30)
        var certificates: [(subject: String, issuer: String, key: String, signature: String)] = []
        for line in result.stdout.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if let range = line.range(of: #"^\d+ s:"#, options: .regularExpression) {
                certificates.append((String(line[range.upperBound...]), "", "", ""))
            } else if line.hasPrefix("i:"), !certificates.isEmpty {
                certificates[certificates.count - 1].issuer = String(line.dropFirst(2))
            } else if line.hasPrefix("a:PKEY: "), !certificates.isEmpty {
                let parts = line.dropFirst(8).components(separatedBy: "; sigalg: ")
                certificates[certificates.count - 1].key = parts.first ?? ""
                certificates[certificates.count - 1].signature = parts.count > 1 ? parts[1] : ""
            }
        }
        return certificates
    }

    /// Issue 39 #2: every certificate of the chain is judged, and sonde reads each as OpenSSL does.
    /// curl refuses the RSA 1024 and the SHA-1 intermediates ("CA certificate key too weak", "CA
    /// signature digest algorithm too weak"): sonde fails them; the Ed25519 leaf (which curl takes)
    /// fails ATS's key rule; the chain sent as leaf, root, intermediate (as s_client shows it) and
    /// the one with a stray certificate warn `cert.chain-order`.
    @Test func everyCertificateOfTheChainIsJudgedAsCurlAndOpenSSLSeeIt() throws {
        let corpus = try AuditCorpusProcess.get()
        let cases: [(name: String, curlSays: String?, id: String, severity: String, says: String)] = [
            ("inter-rsa1024", "CA certificate key too weak", "cert.key-size", "fail", "#2 CN = sonde audit corpus intermediate rsa1024 (issuing CA): RSA 1024 bits is under 2048"),
            ("inter-sha1", "CA signature digest algorithm too weak", "cert.signature", "fail", "#2 CN = sonde audit corpus intermediate sha1 (issuing CA): sha1WithRSAEncryption"),
            ("ed25519", nil, "cert.key-size", "fail", "#1 CN = localhost (leaf): Ed25519 is neither an RSA nor an ECC key"),
            ("misordered", nil, "cert.chain-order", "warn", "sent out of order (#1, #2, #3; the path from the leaf is #1 → #3 → #2)"),
            ("extra-cert", nil, "cert.chain-order", "warn", "issues none of the others: #3 CN = sonde audit corpus stray"),
        ]
        for item in cases {
            let url = try corpus.url(item.name)
            let curl = try Harness.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "--cacert", corpus.caFile, url], timeout: 30)
            if let says = item.curlSays {
                #expect(curl.status == 60 && curl.stderr.contains(says), "\(item.name): curl \(curl.status) \(curl.stderr)")
            } else {
                #expect(curl.status == 0, "\(item.name): curl takes it: \(curl.status) \(curl.stderr)")
            }
            let (audit, _) = try Self.audit([url], status: item.severity == "fail" ? 1 : 0)
            let finding = Self.finding(audit, item.id)
            #expect(Self.text(finding, "severity") == item.severity && Self.text(finding, "observed").contains(item.says),
                    "\(item.name): \(finding)")
            #expect(!Self.text(finding, "fix").isEmpty, "\(item.name): no fix line")

            // The chain as s_client shows it, certificate by certificate, against sonde's lines.
            let shown = try Self.showcerts(port: try corpus.port(item.name))
            let keyLines = (Self.finding(audit, "cert.key-size")["evidence"] as? [String]) ?? []
            let signatureLines = (Self.finding(audit, "cert.signature")["evidence"] as? [String]) ?? []
            #expect(!shown.isEmpty && shown.count == keyLines.filter { $0.hasPrefix("#") }.count, "\(item.name): \(shown) vs \(keyLines)")
            for (index, certificate) in shown.enumerated() {
                let label = "#\(index + 1) \(certificate.subject)"
                let keyLine = keyLines.first { $0.hasPrefix(label + " (") } ?? ""
                if let bits = certificate.key.range(of: #"\d+ \(bit\)"#, options: .regularExpression).map({ certificate.key[$0].split(separator: " ")[0] }),
                   certificate.key.hasPrefix("rsaEncryption") {
                    #expect(keyLine.hasSuffix("RSA \(bits) bits"), "\(item.name) \(label): s_client \(certificate.key), sonde \(keyLine)")
                } else if certificate.key.hasPrefix("ED25519") {
                    #expect(keyLine.hasSuffix("Ed25519"), "\(item.name) \(label): s_client \(certificate.key), sonde \(keyLine)")
                }
                let signatureLine = signatureLines.first { $0.hasPrefix(label + ":") } ?? ""
                let digest = certificate.signature.replacingOccurrences(of: "RSA-", with: "")
                #expect(signatureLine.uppercased().contains(digest.replacingOccurrences(of: "-", with: "")),
                        "\(item.name) \(label): s_client \(certificate.signature), sonde \(signatureLine)")
            }
            if item.name == "misordered" {
                #expect(shown.map(\.subject) == ["CN = localhost", "CN = sonde audit corpus root", "CN = sonde audit corpus intermediate"], "\(shown)")
            }
        }
    }

    /// The same chains from a second peer, `openssl s_server` (its `-cert_chain` is sent as the
    /// file orders it): leaf, root, intermediate warns `cert.chain-order`; the RSA 1024 intermediate
    /// fails `cert.key-size`, and curl refuses it there too.
    @Test func theChainRulesHoldOnOpenSSLsOwnServer() throws {
        let corpus = try AuditCorpusProcess.get()
        let ca = corpus.directory + "/ca"
        let work = Harness.temporaryDirectory()
        let cases: [(name: String, leaf: String, chain: [String], id: String, severity: String, says: String)] = [
            ("misordered", "clean", ["root", "inter"], "cert.chain-order", "warn", "sent out of order (#1, #2, #3; the path from the leaf is #1 → #3 → #2)"),
            ("inter-rsa1024", "inter-rsa1024", ["inter1024"], "cert.key-size", "fail", "#2 CN = sonde audit corpus intermediate rsa1024 (issuing CA): RSA 1024 bits is under 2048"),
        ]
        for item in cases {
            let chainFile = work + "/\(item.name).chain.pem"
            var chain = ""
            for name in item.chain { chain += try String(contentsOfFile: ca + "/\(name).pem", encoding: .utf8) }
            try chain.write(toFile: chainFile, atomically: true, encoding: .utf8)
            let port = Harness.freePort()
            let server = try Harness.spawn("/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", ca + "/\(item.leaf).pem",
                                                                "-key", ca + "/\(item.leaf).key", "-cert_chain", chainFile, "-www", "-quiet",
                                                                "-cipher", "DEFAULT:@SECLEVEL=0"],
                                           stdout: work + "/\(item.name).out", stderr: work + "/\(item.name).err")
            defer { Harness.stop(server, signal: SIGTERM) }
            let url = "https://127.0.0.1:\(port)/"
            #expect(Harness.waitFor(seconds: 10) { (try? Self.showcerts(port: port).count) == 1 + item.chain.count }, "\(item.name): s_server did not start")
            if item.name == "inter-rsa1024" {
                let curl = try Harness.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "--cacert", corpus.caFile, url], timeout: 30)
                #expect(curl.status == 60 && curl.stderr.contains("CA certificate key too weak"), "curl: \(curl.status) \(curl.stderr)")
            }
            let (audit, _) = try Self.audit([url], status: item.severity == "fail" ? 1 : 0)
            let finding = Self.finding(audit, item.id)
            #expect(Self.text(finding, "severity") == item.severity && Self.text(finding, "observed").contains(item.says), "s_server \(item.name): \(finding)")
        }
    }

    /// Issue 39 #3: a body sent slower than sonde's 3 s cut is a `warn` of the status finding that
    /// names `--timeout`, not a keep-alive `warn`; `--timeout=10s` is `probe`'s option and with it the
    /// same server passes keep-alive, as curl sees it reuse the connection.
    @Test func aSlowBodyIsNotBlamedOnKeepAliveAndTimeoutRaisesTheCut() throws {
        let corpus = try AuditCorpusProcess.get()
        let url = try corpus.url("http-slow-body")
        let skip = ["--skip", "http.coalescing,ipv6,h3.works"]
        let started = Date()
        let (cut, _) = try Self.audit(skip + [url], status: 0)
        let status = Self.finding(cut, "http.status")
        #expect(Self.text(status, "severity") == "warn" && Self.text(status, "observed").contains("did not arrive within sonde's --timeout (3 s)"),
                "\(status)")
        let keepAlive = Self.finding(cut, "http.keep-alive")
        #expect(Self.text(keepAlive, "severity") == "info" && Self.text(keepAlive, "observed").hasPrefix("not judged"), "\(keepAlive)")
        print("slow body, default timeout: \(Date().timeIntervalSince(started)) s")

        // The same server keeps the connection: curl's second transfer makes no new connection.
        let curl = try Harness.run("/usr/bin/curl", ["-sk", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{num_connects} ", url, url], timeout: 30)
        #expect(curl.status == 0 && curl.stdout.trimmingCharacters(in: .whitespaces) == "1 0", "curl: \(curl.stdout) \(curl.stderr)")

        let (raised, _) = try Self.audit(skip + ["--timeout=10s", url], status: 0, timeout: 180)
        #expect(Self.text(Self.finding(raised, "http.status"), "severity") == "pass", "\(Self.finding(raised, "http.status"))")
        #expect(Self.text(Self.finding(raised, "http.keep-alive"), "severity") == "pass", "\(Self.finding(raised, "http.keep-alive"))")
        let cost = ((raised["target"] as? [String: Any])?["requests"] as? [[String: Any]])?.first { $0["name"] as? String == "get" }
        #expect(((cost?["warm"] as? [String: Any])?["reused"] as? Bool) == true, "\(String(describing: cost))")

        let zero = try Harness.sonde(["audit", "--timeout", "0", url])
        #expect(zero.status == 64 && zero.stderr.contains("timeout"), "\(zero.stderr)")
        let overBudget = try Harness.sonde(["audit", "--timeout", "20s", "--budget", "10s", url])
        #expect(overBudget.status == 64 && overBudget.stderr.contains("must not exceed the budget"), "\(overBudget.stderr)")
        let printed = try Harness.sonde(["audit", "--print-suite", "-m", "5s", url])
        #expect(printed.status == 0 && printed.stdout.contains("timeout: 5s"), "\(printed.stdout)\(printed.stderr)")
    }

    /// Issue 39 #4: a 500 and a 503 fail (exit 1) with the status named; HSTS max-age=300 warns
    /// (the header as curl reads it); a 400-day certificate under the private root is `info`.
    @Test func statusShortHSTSAndValidityUnderAPrivateRoot() throws {
        let corpus = try AuditCorpusProcess.get()
        for (name, code) in [("http-500", 500), ("http-503-date", 503)] {
            let url = try corpus.url(name)
            let curl = try Harness.run("/usr/bin/curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", url], timeout: 30)
            #expect(curl.stdout == "\(code)", "curl: \(curl.stdout)")
            let (audit, _) = try Self.audit([url], status: 1)
            let status = Self.finding(audit, "http.status")
            #expect(Self.text(status, "severity") == "fail" && Self.text(status, "observed").hasPrefix("\(code): a server error"), "\(name): \(status)")
        }
        let short = try corpus.url("hsts-short")
        let headers = try Harness.run("/usr/bin/curl", ["-sk", "-D", "-", "-o", "/dev/null", short], timeout: 30)
        #expect(headers.stdout.lowercased().contains("strict-transport-security: max-age=300"), "\(headers.stdout)")
        let (hsts, _) = try Self.audit([short], status: 0)
        let finding = Self.finding(hsts, "hsts")
        #expect(Self.text(finding, "severity") == "warn" && Self.text(finding, "observed").contains("300 s, under 180 days"), "\(finding)")

        let (validity, _) = try Self.audit([try corpus.url("validity-400")], status: 0)
        let days = Self.finding(validity, "cert.validity")
        #expect(Self.text(days, "severity") == "info" && Self.text(days, "observed").hasPrefix("400 days"), "\(days)")
        let (strict, _) = try Self.audit(["--fail-on", "warn", try corpus.url("validity-400")], status: 0)
        #expect(strict["passed"] as? Bool == true, "a private root's 400 days do not fail --fail-on warn")
    }

    /// Issue 39 #5: the HTML opens with a summary of every URL (at the top, each row linking to its
    /// section), warn cells coloured apart from info ones, suites in a table, a fix line per
    /// finding; the text slips are gone ("1 suites", "https throughout" after an http hop, a
    /// localhost reached over ::1 said to have no AAAA).
    @Test func theHTMLSummarisesEveryURLAtTheTopAndTheTextSaysWhatItSaw() throws {
        let corpus = try AuditCorpusProcess.get()
        let output = Harness.temporaryDirectory()
        let urls = [try corpus.url("http-clean"), try corpus.url("sha1"), try corpus.url("http-gzip-off"), try corpus.url("tls10")]
        let result = try Harness.sonde(["audit", "--cacert", corpus.caFile, "--output-dir", output] + urls, timeout: 180)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.contains("(1 suites"), "\(result.stdout)")
        #expect(result.stdout.contains("fix: "), "the terminal shows how to fix: \(result.stdout)")
        let folder = try AuditRunCLITests.folder(output)
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("How to fix:") && !html.contains("<td class=\"muted\">warn</td>"), "warn cells are not muted")
        let facts = try HTMLLayoutCLITests.measure(folder + "/report.html")
        HTMLLayoutCLITests.expectFits(facts, "audit")
        let audit = try #require(facts["audit"] as? [String: Any])
        let top = try #require(audit["summaryTop"] as? Double)
        let links = (audit["links"] as? [[String: Any]]) ?? []
        let sections = (audit["sections"] as? [[String: Any]]) ?? []
        print("audit summary at \(top) px; sections at \(sections.map { $0["top"] ?? "?" })")
        // Within the first screen (the window is 1 200 px high), above every section.
        #expect(top < 1200, "the summary starts \(top) px down")
        #expect(links.count == urls.count && sections.count == urls.count, "\(links) \(sections)")
        for (link, url) in zip(links, urls) {
            #expect(link["text"] as? String == url)
            let target = try #require(link["targetTop"] as? Double, "\(link) leads nowhere")
            #expect(target > top, "\(link)")
        }
        let colours = (audit["severityColours"] as? [String: Any]) ?? [:]
        let warn = colours["warn"] as? String, info = colours["info"] as? String
        #expect(warn != nil && info != nil && warn != info, "warn \(String(describing: warn)), info \(String(describing: info))")
        #expect(((audit["suiteRows"] as? [Int]) ?? []).contains { $0 >= 3 }, "a row per suite: \(String(describing: audit["suiteRows"]))")

        // "https throughout" only when every hop was https; the forward-secrecy title names ATS's suites.
        let (redirected, _) = try Self.audit([try corpus.url("http-redirect")], status: 0)
        let redirects = Self.text(Self.finding(redirected, "http.redirects"), "observed")
        #expect(redirects.hasPrefix("1 redirect, from http to https"), "\(redirects)")
        let title = Self.text(Self.finding(redirected, "tls.forward-secrecy"), "title")
        #expect(!title.contains("ChaCha20") && title.contains("AES-CBC"), "\(title)")

        // localhost over ::1: libcurl answers localhost with ::1 itself, so the GET went there.
        let dual = try corpus.port("ipv6-dual")
        let (local, _) = try Self.audit(["--skip", "http.coalescing", "https://localhost:\(dual)/data.json"], status: 0)
        let ipv6 = Self.finding(local, "ipv6")
        #expect(Self.text(ipv6, "severity") == "pass" && !Self.text(ipv6, "observed").contains("no AAAA"), "\(ipv6)")
    }
}
