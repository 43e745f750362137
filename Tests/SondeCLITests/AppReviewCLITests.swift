import Foundation
import Testing

/// `sonde audit`'s `ipv6.app-review` (issue 43) against an example API (`Fixtures/app_review_api.py`,
/// Python's http.server on 127.0.0.1) that hands out IPv4 literals in a Location header, an Alt-Svc
/// header and its JSON body beside name-based URLs: each literal is named with where it was found
/// and fails, the names pass, in report.json (schema-valid), the terminal, junit.xml, report.html
/// and the Prometheus file. Names are given their addresses with `--resolve`. Over `--link nat64`
/// (when this sonde's `sonde link` knows it) the same API is fetched over the IPv6-only link.
@Suite(.serialized) struct AppReviewCLITests {
    static let site = "appreview.test"

    /// The example API on a free port; stopped by the caller.
    /// With `canaryPort`, a second listener there logs every request it gets ("CANARY GET …").
    static func startAPI(directory: String, dnsAddress: String? = nil, canaryPort: Int? = nil) throws -> (pid: pid_t, port: Int) {
        let port = Harness.freePort()
        let out = directory + "/api.out"
        var arguments = ["python3", Harness.root + "/Tests/SondeCLITests/Fixtures/app_review_api.py", String(port), site, "120"]
        if dnsAddress != nil || canaryPort != nil { arguments.append(dnsAddress ?? "-") }
        if let canaryPort { arguments.append(String(canaryPort)) }
        let pid = try Harness.spawn("/usr/bin/env", arguments, stdout: out, stderr: directory + "/api.err")
        guard Harness.waitFor(seconds: 20, { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("ready") }) else {
            Harness.stop(pid, signal: SIGTERM)
            throw Harness.SpawnError(message: "the example API did not start: \((try? String(contentsOfFile: directory + "/api.err", encoding: .utf8)) ?? "")")
        }
        return (pid, port)
    }

    static func resolve(_ port: Int) -> [String] {
        ["api.\(site)", "cdn.\(site)", "media.partner.test", "ads.elsewhere.test"].flatMap { ["--resolve", "\($0):\(port):127.0.0.1"] }
    }

    static func review(_ folder: String) throws -> (audit: [String: Any], urls: [[String: Any]]) {
        let report = try Harness.json(try String(contentsOfFile: folder + "/report.json", encoding: .utf8))
        let audit = try #require(AuditRunCLITests.audits(report).first)
        let review = try #require((audit["target"] as? [String: Any])?["appReview"] as? [String: Any], "no appReview in \(audit)")
        return (audit, (review["urls"] as? [[String: Any]]) ?? [])
    }

    /// Without a link (this host has IPv4): every IPv4 literal the API hands out fails with where it
    /// was found; the name-based URLs (same site, and a CDN host named in cdn-hosts) are judged from
    /// DNS and pass (info); a host of another site is not followed, and the note names it.
    @Test func theExampleAPIsIPv4LiteralsFailAndItsNamesPass() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let api = try Self.startAPI(directory: directory)
        defer { Harness.stop(api.pid, signal: SIGTERM) }
        let url = "http://api.\(Self.site):\(api.port)/v1/feed"
        let output = directory + "/out"
        let result = try Harness.sonde(["audit", "--output-dir", output, "--prom", directory + "/audit.prom", "--cdn-hosts", "media.partner.test"]
                                       + Self.resolve(api.port) + [url], timeout: 120)
        #expect(result.status == 1, "a literal handed out fails the audit: \(result.stdout)\(result.stderr)")
        let folder = try AuditRunCLITests.folder(output)
        let (audit, urls) = try Self.review(folder)
        #expect(AuditRunCLITests.findings(audit)["ipv6.app-review"] == "fail")
        func entry(_ needle: String) -> [String: Any]? { urls.first { ($0["url"] as? String) == needle } }
        let literal = "http://127.0.0.1:\(api.port)"
        let expected: [(url: String, foundIn: String)] = [
            ("\(literal)/v1/feed/page1", "Location of the 302 from \(url)"),
            ("http://127.0.0.1:\(api.port)/", "Alt-Svc of \(literal)/v1/feed/page1 (h2=\"127.0.0.1:\(api.port)\")"),
            ("\(literal)/media/1.mp4", "JSON $.items[0].media of \(literal)/v1/feed/page1"),
        ]
        for item in expected {
            let found = try #require(entry(item.url), "\(item.url) not in \(urls.map { $0["url"] ?? "" })")
            #expect(found["foundIn"] as? String == item.foundIn, "\(found)")
            #expect(found["hostKind"] as? String == "ipv4-literal" && found["outcome"] as? String == "failed" && found["severity"] as? String == "fail", "\(found)")
            #expect((found["reason"] as? String)?.contains("an IPv6-only client cannot connect to it") == true, "\(found)")
        }
        for name in [url, "http://cdn.\(Self.site):\(api.port)/thumbs/1.jpg", "http://api.\(Self.site):\(api.port)/v1/feed?page=2",
                     "http://media.partner.test:\(api.port)/p/1.jpg"] {
            let found = try #require(entry(name), "\(name) not in \(urls.map { $0["url"] ?? "" })")
            #expect(found["hostKind"] as? String == "name" && found["outcome"] as? String != "failed", "\(found)")
            #expect(["pass", "info"].contains(found["severity"] as? String ?? ""), "\(found)")
            #expect((found["a"] as? [String]) == ["127.0.0.1"], "\(found)")
        }
        #expect(urls.count == 7, "\(urls.map { $0["url"] ?? "" })")
        let audited = try #require(entry(url))
        #expect(audited["outcome"] as? String == "reached" && audited["path"] as? String == "ipv4", "the audit's own GET went over IPv4: \(audited)")
        let thumb = try #require(entry("http://cdn.\(Self.site):\(api.port)/thumbs/1.jpg"))
        #expect(thumb["outcome"] as? String == "judged" && (thumb["reason"] as? String)?.contains("--link nat64") == true, "\(thumb)")
        let review = try #require((audit["target"] as? [String: Any])?["appReview"] as? [String: Any])
        #expect(review["ipv6Only"] as? Bool == false && review["fetched"] as? Bool == false)
        #expect((review["notFollowedNote"] as? String)?.contains("ads.elsewhere.test") == true && review["notFollowed"] as? Int == 1, "\(review)")
        // Not fetched without an IPv6-only network: the API saw only the audit's own requests.
        let log = (try? String(contentsOfFile: directory + "/api.out", encoding: .utf8)) ?? ""
        #expect(!log.contains("GET /media/1.mp4") && !log.contains("GET /thumbs/1.jpg"), "\(log)")
        let validation = try Harness.validate([folder + "/report.json"])
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")

        // Terminal, JUnit, HTML, Prometheus.
        #expect(result.stdout.contains("FAIL ipv6.app-review") && result.stdout.contains("IPv4 literals handed out: \(literal)/v1/feed/page1 (Location of the 302"),
                "\(result.stdout)")
        #expect(result.stdout.contains("✗ fail \(literal)/media/1.mp4 — JSON $.items[0].media"), "\(result.stdout)")
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        #expect(junit.contains(#"name="\#(url) ipv6.app-review" time="0"><failure message="fail: "#), "\(junit.prefix(400))")
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.contains("<h3>App Review&#39;s network (ipv6.app-review)</h3>") || html.contains("<h3>App Review's network (ipv6.app-review)</h3>"))
        #expect(html.contains("<table class=\"app-review\">") && html.contains("JSON $.items[0].media of"))
        let prom = try String(contentsOfFile: directory + "/audit.prom", encoding: .utf8)
        #expect(prom.contains(#"sonde_audit_finding{url="\#(url)",id="ipv6.app-review",severity="fail"} 3"#), "\(prom.prefix(1500))")
        #expect(prom.contains(#"sonde_audit_app_review_urls{url="\#(url)",outcome="failed"} 3"#), "\(prom)")
        #expect(prom.contains(#"sonde_audit_app_review_urls{url="\#(url)",outcome="judged"} 3"#), "\(prom)")
    }

    /// `app-review-urls` bounds the handed-out URLs followed; a bad bound or host is a usage error.
    @Test func theBoundAndBadInput() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let api = try Self.startAPI(directory: directory)
        defer { Harness.stop(api.pid, signal: SIGTERM) }
        let url = "http://api.\(Self.site):\(api.port)/v1/feed"
        let output = directory + "/out"
        _ = try Harness.sonde(["audit", "--only", "ipv6.app-review", "--app-review-urls", "2", "--output-dir", output] + Self.resolve(api.port) + [url])
        let (_, urls) = try Self.review(try AuditRunCLITests.folder(output))
        #expect(urls.count == 3, "the audited URL and 2 handed out: \(urls.map { $0["url"] ?? "" })")
        for bad in [["--app-review-urls", "101"], ["--app-review-urls", "-1"], ["--cdn-hosts", "bad host!"], ["--cdn-hosts", "*."]] {
            let refused = try Harness.sonde(["audit"] + bad + [url])
            #expect(refused.status == 64, "\(bad): \(refused.stdout)\(refused.stderr)")
        }
    }

    /// Over a link (root; `lte`, which has IPv4) the handed-out names are fetched inside it: the API
    /// logs their GETs, each name is reached over IPv4 and says the network was not IPv6-only. An
    /// IPv4 literal is never fetched (it fails on an IPv6-only network whatever it answers).
    @Test(.enabled(if: geteuid() == 0, "needs root: --link creates a network namespace and TUN devices"))
    func overALinkTheHandedOutURLsAreFetched() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let api = try Self.startAPI(directory: directory)
        defer { Harness.stop(api.pid, signal: SIGTERM) }
        let url = "http://api.\(Self.site):\(api.port)/v1/feed"
        let output = directory + "/out"
        let result = try Harness.sonde(["audit", "--link", "lte", "--only", "ipv6.app-review", "--cdn-hosts", "media.partner.test", "--output-dir", output]
                                       + Self.resolve(api.port) + [url], timeout: 120)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let (audit, urls) = try Self.review(try AuditRunCLITests.folder(output))
        let review = try #require((audit["target"] as? [String: Any])?["appReview"] as? [String: Any])
        #expect(review["fetched"] as? Bool == true && review["ipv6Only"] as? Bool == false && (review["network"] as? String)?.contains("the link lte") == true, "\(review)")
        let names = urls.filter { $0["hostKind"] as? String == "name" }
        #expect(names.count == 4 && names.allSatisfy { $0["outcome"] as? String == "reached" && $0["path"] as? String == "ipv4" && $0["address"] as? String == "127.0.0.1" },
                "\(names)")
        #expect(urls.filter { $0["hostKind"] as? String == "ipv4-literal" }.allSatisfy { $0["severity"] as? String == "fail" })
        let log = (try? String(contentsOfFile: directory + "/api.out", encoding: .utf8)) ?? ""
        for path in ["/thumbs/1.jpg", "/v1/feed?page=2", "/p/1.jpg"] { #expect(log.contains("GET \(path)\n"), "\(path) not fetched: \(log)") }
        #expect(!log.contains("GET /media/1.mp4"), "the IPv4 literal of the JSON body is not fetched: \(log)")
        let media = try #require(urls.first { ($0["url"] as? String)?.hasSuffix("/media/1.mp4") == true })
        #expect(media["severity"] as? String == "fail" && (media["reason"] as? String)?.contains("not fetched: an IPv4 literal") == true, "\(media)")
        #expect(!log.contains("GET /x\n"), "another site's URL is not fetched")
    }

    /// Whether this sonde's links know `nat64` (after the nat64 branch): `--print-suite` checks the
    /// link profile and sends nothing; 64 means it does not.
    static let knowsNAT64: Bool = {
        guard geteuid() == 0, let result = try? Harness.sonde(["audit", "--link", "nat64", "--print-suite", "http://example.test/"], timeout: 30) else { return false }
        return result.status == 0
    }()

    /// Over `--link nat64` (root): the audited name resolves through the link's DNS64 (from the
    /// fixture's A-only resolver, bind-mounted as resolv.conf) and is reached through NAT64; the
    /// redirect's IPv4 literal fails to connect from the IPv6-only link and is named with its Location.
    @Test(.enabled(if: AppReviewCLITests.knowsNAT64, "needs root and `sonde link`'s nat64 profile: sonde audit --link nat64 returns 64 here"))
    func overLinkNAT64TheNamesGoThroughNAT64AndTheLiteralsFail() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A loopback address of its own on port 53 (as LinkDestinationCLITests' resolver).
        let resolver = "127.0.83.54"
        let api = try Self.startAPI(directory: directory, dnsAddress: resolver)
        defer { Harness.stop(api.pid, signal: SIGTERM) }
        let resolv = directory + "/resolv.conf"
        try "nameserver \(resolver)\noptions attempts:1 timeout:2\n".write(toFile: resolv, atomically: true, encoding: .utf8)
        let url = "http://api.\(Self.site):\(api.port)/v1/feed"
        let output = directory + "/out"
        let script = "mount --bind \"$0\" /etc/resolv.conf || exit 90; exec \"$1\" audit --link nat64 --only ipv6.app-review --cdn-hosts media.partner.test --output-dir \"$2\" \"$3\""
        let result = try Harness.run("/usr/bin/env", ["unshare", "--mount", "sh", "-c", script, resolv, Harness.sonde, output, url], timeout: 180)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let (_, urls) = try Self.review(try AuditRunCLITests.folder(output))
        // The redirect to an IPv4 literal is where an IPv6-only client stops: the Location literal fails
        // (named with where it was found); the page behind it (its Alt-Svc and JSON) is never reached.
        let literals = urls.filter { $0["hostKind"] as? String == "ipv4-literal" }
        #expect(!literals.isEmpty && literals.allSatisfy { $0["outcome"] as? String == "failed" && $0["severity"] as? String == "fail" }, "\(literals)")
        #expect(literals.contains { ($0["url"] as? String) == "http://127.0.0.1:\(api.port)/v1/feed/page1"
            && ($0["foundIn"] as? String)?.hasPrefix("Location of the 302 from \(url)") == true }, "\(literals)")
        let names = urls.filter { $0["hostKind"] as? String == "name" }
        #expect(!names.isEmpty && names.allSatisfy { $0["outcome"] as? String == "reached" && $0["path"] as? String == "nat64" }, "\(names)")
    }

    /// Over `--link nat64` (root) an API hands out what an audit must not fetch, all toward a canary
    /// listener on the host's 127.0.0.1 (`/v1/literals`): IPv4 literals, 64:ff9b::7f00:1 and ::1
    /// literals, an Alt-Svc alternative to 64:ff9b::7f00:1 and one with user-info, a zone id, a port
    /// that overflows, 100 other sites' URLs before a literal, a literal 40 arrays deep. The canary
    /// gets no request; every literal is judged without a fetch; the late literal is found and the
    /// counts are exact; the deep one is named in the note; the Alt-Svc secret is in no output.
    @Test(.enabled(if: AppReviewCLITests.knowsNAT64, "needs root and `sonde link`'s nat64 profile: sonde audit --link nat64 returns 64 here"))
    func overLinkNAT64NothingOnTheHostsOwnAddressesIsFetched() throws {
        let directory = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resolver = "127.0.83.57"
        let canary = Harness.freePort()
        let api = try Self.startAPI(directory: directory, dnsAddress: resolver, canaryPort: canary)
        defer { Harness.stop(api.pid, signal: SIGTERM) }
        let resolv = directory + "/resolv.conf"
        try "nameserver \(resolver)\noptions attempts:1 timeout:2\n".write(toFile: resolv, atomically: true, encoding: .utf8)
        let url = "http://api.\(Self.site):\(api.port)/v1/literals"
        let output = directory + "/out"
        let script = "mount --bind \"$0\" /etc/resolv.conf || exit 90; exec \"$1\" audit --link nat64 --only ipv6,ipv6.app-review --output-dir \"$2\" \"$3\""
        let result = try Harness.run("/usr/bin/env", ["unshare", "--mount", "sh", "-c", script, resolv, Harness.sonde, output, url], timeout: 180)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let log = (try? String(contentsOfFile: directory + "/api.out", encoding: .utf8)) ?? ""
        #expect(!log.contains("CANARY"), "a handed-out literal reached the host's loopback: \(log)")
        #expect(log.contains("GET /v1/named"), "the same-site name is still fetched: \(log)")
        let folder = try AuditRunCLITests.folder(output)
        let (audit, urls) = try Self.review(folder)
        func entry(_ suffix: String) -> [String: Any]? { urls.first { ($0["url"] as? String)?.hasSuffix(suffix) == true } }
        // Every check runs (no #require): a sonde before the fix shows each way it fails.
        for path in ["/late-literal", "/latest/meta-data/"] {
            guard let found = entry(path) else { Issue.record("\(path) not in \(urls.map { $0["url"] ?? "" })"); continue }
            #expect(found["severity"] as? String == "fail" && found["status"] == nil && (found["reason"] as? String)?.contains("not fetched: an IPv4 literal") == true, "\(found)")
        }
        for path in ["/v6-embedded", "/v6-loopback"] {
            guard let found = entry(path) else { Issue.record("\(path) not in \(urls.map { $0["url"] ?? "" })"); continue }
            #expect(found["outcome"] as? String == "judged" && (found["reason"] as? String)?.contains("loopback address") == true, "\(found)")
        }
        let alternative = urls.first { ($0["url"] as? String) == "http://[64:ff9b::7f00:1]:\(canary)/" }
        #expect(alternative?["outcome"] as? String == "judged", "\(alternative ?? [:])")
        #expect(!urls.contains { ($0["url"] as? String)?.contains("hugeport") == true }, "a port that overflows is not a URL: \(urls.map { $0["url"] ?? "" })")
        let review = try #require((audit["target"] as? [String: Any])?["appReview"] as? [String: Any])
        let note = review["notFollowedNote"] as? String ?? ""
        #expect(note.contains("100 on other sites") && !note.contains("at least"), "\(note)")
        #expect(note.contains("1 with a zone id (fe80::1%lo") && note.contains("1 value nested deeper than 32 levels not searched"), "\(note)")
        #expect(review["notFollowed"] as? Int == 101, "\(review)")
        var outputs = result.stdout + result.stderr
        for file in ["report.json", "report.html", "junit.xml"] { outputs += (try? String(contentsOfFile: folder + "/" + file, encoding: .utf8)) ?? "" }
        #expect(!outputs.contains("altsecret"), "the Alt-Svc alternative's user-info reached an output")
    }
}
