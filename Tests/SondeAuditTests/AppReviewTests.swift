import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// `ipv6.app-review` without a server: what a fetch's evidence hands out (`HandedOutURLs`,
/// `JSONURLScanner`), each URL's verdict and the finding (`AppReviewRules`), the route probe.
struct AppReviewTests {
    typealias T = HTTPRulesTests

    static let api = "https://api.example.com/v1/feed"

    static func body(_ text: String, url: String = "https://api.example.com/v1/feed/page1", truncated: Bool = false) -> BodySample.Result {
        BodySample.Result(url: url, status: 200, contentType: "application/json", bytes: Array(text.utf8), truncated: truncated, milliseconds: 1)
    }

    @Test func jsonURLsComeWithTheirPathsInDocumentOrder() throws {
        let text = #"{"z":"https://a.example.com/1","items":[{"url":"http://192.0.2.7:8080/m.jpg","n":1},{"x":["ftp://no.example.com/","https://b.example.com/2"]}],"odd key":"https://c.example.com/3","esc":"https:\/\/d.example.com\/4","plain":"not a url","spaced":"https://e.example.com/a b"}"#
        let found = try JSONURLScanner.urls(in: Array(text.utf8)).get().found
        #expect(found.map(\.path) == ["$.z", "$.items[0].url", "$.items[1].x[1]", #"$["odd key"]"#, "$.esc"], "\(found)")
        #expect(found.map(\.url) == ["https://a.example.com/1", "http://192.0.2.7:8080/m.jpg", "https://b.example.com/2", "https://c.example.com/3", "https://d.example.com/4"])
        let capped = try JSONURLScanner.urls(in: Array(text.utf8), maxStrings: 2).get()
        #expect(capped.found.count == 2 && capped.capped, "the walk stops at the bound of strings, and says so")
        // Not JSON, cut, trailing text: an error, never a crash.
        for bad in [#"{"a":"https://x.example.com/""#, "<html>https://x.example.com/</html>", #"{"a":1} tail"#, ""] {
            guard case .failure = JSONURLScanner.urls(in: Array(bad.utf8)) else { Issue.record("accepted \(bad)"); continue }
        }
        // Nesting past the bound is not entered (and does not overflow the stack).
        let deep = String(repeating: "[", count: 60) + #""https://deep.example.com/""# + String(repeating: "]", count: 60)
        let deepScan = try JSONURLScanner.urls(in: Array(deep.utf8)).get()
        #expect(deepScan.found.isEmpty && deepScan.tooDeep == 1, "\(deepScan)")
        #expect(JSONURLScanner.textURLs(in: "see https://a.example.com/x and http://10.0.0.1/y, again (https://a.example.com/x).").urls
                == ["https://a.example.com/x", "http://10.0.0.1/y"])
    }

    @Test func discoveryFindsLocationAltSvcAndJSONURLsAndBoundsThem() {
        let redirect = T.observation([
            T.transaction(Self.api, status: 302, headers: [("Location", "http://192.0.2.10:8080/v1/feed/page1"), ("Alt-Svc", #"h3=":443"; ma=60, h2="192.0.2.11:8443""#)]),
            T.transaction("http://192.0.2.10:8080/v1/feed/page1"),
        ])
        let json = #"{"media":"http://192.0.2.12/m.mp4","thumb":"https://cdn.example.com/t.jpg","next":"https://api.example.com/v1/feed?page=2","ad":"https://ads.other.net/x","img":"https://img.cdn-vendor.net/i.png","again":"http://192.0.2.12/m.mp4"}"#
        let found = HandedOutURLs.discover(Self.api, http: redirect, body: Self.body(json), limit: 16, cdnHosts: ["*.cdn-vendor.net"])
        #expect(found.urls.map(\.url) == [
            Self.api, "http://192.0.2.10:8080/v1/feed/page1", "https://api.example.com:443/", "https://192.0.2.11:8443/",
            "http://192.0.2.12/m.mp4", "https://cdn.example.com/t.jpg", "https://api.example.com/v1/feed?page=2", "https://img.cdn-vendor.net/i.png",
        ], "\(found.urls.map(\.url))")
        #expect(found.urls[1].foundIn == "Location of the 302 from https://api.example.com/v1/feed" && found.urls[1].source == .location(hop: 0))
        #expect(found.urls[3].foundIn.hasPrefix("Alt-Svc of https://api.example.com/v1/feed (h2=\"192.0.2.11:8443\")"), "\(found.urls[3].foundIn)")
        #expect(found.urls[4].foundIn == "JSON $.media of https://api.example.com/v1/feed/page1" && found.urls[4].kind == .ipv4Literal)
        #expect(found.otherSite == ["ads.other.net"] && found.pastLimit == 0 && found.bodyNote == nil)
        let bounded = HandedOutURLs.discover(Self.api, http: redirect, body: Self.body(json), limit: 2, cdnHosts: [])
        #expect(bounded.urls.count == 3 && bounded.pastLimit == 4, "\(bounded.urls.map(\.url)) past \(bounded.pastLimit)")
        // A cut body is scanned as text, and says so.
        let cut = HandedOutURLs.discover(Self.api, http: T.observation([T.transaction(Self.api)]), body: Self.body(#"{"a":"http://192.0.2.9/x","b":"htt"#, truncated: true),
                                         limit: 16, cdnHosts: [])
        #expect(cut.urls.map(\.url) == [Self.api, "http://192.0.2.9/x"] && cut.bodyNote?.contains("cut at 256 KiB") == true, "\(cut)")
    }

    @Test func sitesAndCDNPatterns() {
        #expect(HandedOutURLs.sameSite("img.example.com", "api.example.com"))
        #expect(HandedOutURLs.sameSite("cdn.example.co.uk", "api.example.co.uk") && !HandedOutURLs.sameSite("a.other.co.uk", "api.example.co.uk"))
        #expect(!HandedOutURLs.sameSite("example.net", "example.com") && !HandedOutURLs.sameSite("localhost", "api.example.com"))
        #expect(HandedOutURLs.matches("a.b.cdn.net", ["*.cdn.net"]) && !HandedOutURLs.matches("cdn.net.evil.com", ["*.cdn.net"]))
        #expect(HandedOutURLs.matches("Media.Example.org", ["media.example.org"]) && !HandedOutURLs.matches("xcdn.net", ["*.cdn.net"]))
    }

    static func item(_ url: String, _ source: HandedOutURL.Source, a: [String]? = nil, aaaa: [String]? = nil, status: Int? = nil, address: String? = nil,
                     error: String? = nil, notFetched: String? = nil) -> AppReviewObservation.Item {
        let parsed = try? Auditor.parse(url)
        let target = HandedOutURL(url: url, source: source, foundIn: source == .audited ? "the URL audited" : "somewhere", host: parsed?.host ?? "",
                                  port: parsed?.port ?? 0, kind: HostResolver.kind(of: parsed?.host ?? ""))
        var item = AppReviewObservation.Item(target: target)
        if a != nil || aaaa != nil { item.addresses = HostAddresses(v4: a ?? [], v6: aaaa ?? [], source: "test") }
        if status != nil || error != nil || address != nil {
            item.fetch = AppReviewObservation.Fetch(status: status, remoteAddress: address, error: error, by: "a GET of its own")
        }
        item.notFetched = notFetched
        return item
    }

    @Test func eachURLsVerdictOnAnIPv6OnlyNetwork() {
        let v6only = true
        let nat64 = AppReviewRules.judge(Self.item(Self.api, .audited, a: ["192.0.2.1"], aaaa: ["64:ff9b::c000:201"], status: 200, address: "64:ff9b::c000:201"), ipv6Only: v6only)
        #expect(nat64.outcome == .reached && nat64.path == .nat64 && nat64.severity == .pass)
        let native = AppReviewRules.judge(Self.item(Self.api, .audited, aaaa: ["2001:db8::1"], status: 200, address: "2001:db8::1"), ipv6Only: v6only)
        #expect(native.path == .ipv6 && native.severity == .pass)
        let literal = AppReviewRules.judge(Self.item("http://192.0.2.10/x", .location(hop: 0), error: "Failed to connect to 192.0.2.10 port 80: Network is unreachable"), ipv6Only: v6only)
        #expect(literal.outcome == .failed && literal.severity == .fail && literal.hostKind == .ipv4Literal, "\(literal)")
        #expect(literal.reason?.contains("an IPv6-only client cannot connect") == true && literal.reason?.contains("Network is unreachable") == true)
        let auditedLiteral = AppReviewRules.judge(Self.item("http://192.0.2.10/x", .audited, status: 200, address: "192.0.2.10"), ipv6Only: false)
        #expect(auditedLiteral.severity == .info && auditedLiteral.reason?.contains("reached here over IPv4") == true)
        let nothing = AppReviewRules.judge(Self.item("https://gone.example.com/x", .body(path: "$.a"), a: [], aaaa: [], error: "Could not resolve host"), ipv6Only: v6only)
        #expect(nothing.outcome == .failed && nothing.severity == .warn && nothing.reason?.contains("nothing for DNS64 to synthesise from") == true)
        let refused = AppReviewRules.judge(Self.item("https://cdn.example.com/x", .body(path: "$.a"), a: ["192.0.2.5"], error: "Connection refused"), ipv6Only: v6only)
        #expect(refused.outcome == .failed && refused.severity == .warn && refused.reason?.contains("on the IPv6-only network") == true)
        let auditedRefused = AppReviewRules.judge(Self.item(Self.api, .audited, a: ["192.0.2.5"], error: "Connection refused"), ipv6Only: v6only)
        #expect(auditedRefused.severity == .fail)
        let overIPv4 = AppReviewRules.judge(Self.item(Self.api, .audited, a: ["192.0.2.1"], status: 200, address: "192.0.2.1"), ipv6Only: false)
        #expect(overIPv4.path == .ipv4 && overIPv4.severity == .info && overIPv4.reason?.contains("not on an IPv6-only network") == true)
    }

    @Test func withoutAnIPv6OnlyNetworkNamesAreJudgedFromDNS() {
        let aOnly = AppReviewRules.judge(Self.item("https://cdn.example.com/x", .body(path: "$.a"), a: ["192.0.2.5"], notFetched: AppReviewProber.notOnIPv6Only), ipv6Only: false)
        #expect(aOnly.outcome == .judged && aOnly.severity == .info && aOnly.reason?.contains("through DNS64/NAT64") == true && aOnly.reason?.contains("--link nat64") == true)
        let dual = AppReviewRules.judge(Self.item("https://cdn.example.com/x", .body(path: "$.a"), a: ["192.0.2.5"], aaaa: ["2001:db8::5"], notFetched: "x"), ipv6Only: false)
        #expect(dual.outcome == .judged && dual.reason?.hasPrefix("AAAA 2001:db8::5") == true)
        let literal = AppReviewRules.judge(Self.item("http://192.0.2.12/m.mp4", .body(path: "$.media"), notFetched: AppReviewProber.notOnIPv6Only), ipv6Only: false)
        #expect(literal.outcome == .failed && literal.severity == .fail, "a literal fails whether fetched or not")
        let underLiteral = AppReviewRules.judge(Self.item("http://192.0.2.12/m.mp4", .body(path: "$.media"), notFetched: "x"), ipv6Only: false, auditedIsLiteral: true)
        #expect(underLiteral.severity == .info && underLiteral.reason?.contains("the URL audited is an IPv4 literal itself") == true,
                "an API audited by its literal hands out its literal: info, as the ipv6 finding has it")
        #expect(!AppReviewProber.fetches(routes: IPRoutes(ipv4: true, ipv6: true), link: nil))
        #expect(AppReviewProber.fetches(routes: IPRoutes(ipv4: false, ipv6: true), link: nil) && AppReviewProber.fetches(routes: IPRoutes(ipv4: true, ipv6: false), link: "lte"))
    }

    @Test func theFindingNamesEveryLiteralAndTakesTheWorstURL() {
        var observation = AppReviewObservation(routes: IPRoutes(ipv4: true, ipv6: false), link: nil, fetched: false,
                                               discovery: HandedOutURLs.Discovery(urls: [], otherSite: ["ads.other.net"], pastLimit: 2))
        observation.items = [
            Self.item(Self.api, .audited, a: ["192.0.2.1"], status: 200, address: "192.0.2.1"),
            Self.item("http://192.0.2.10:8080/v1/feed/page1", .location(hop: 0), status: 200, address: "192.0.2.10"),
            Self.item("https://cdn.example.com/t.jpg", .body(path: "$.thumb"), a: ["192.0.2.5"], notFetched: AppReviewProber.notOnIPv6Only),
        ]
        let review = AppReviewRules.judge(observation)
        #expect(!review.ipv6Only && review.network.contains("--link nat64") && review.notFollowed == 3)
        #expect(review.notFollowedNote?.contains("ads.other.net") == true && review.notFollowedNote?.contains("2 past the bound") == true)
        let finding = AppReviewRules.finding(review)
        #expect(finding.id == "ipv6.app-review" && finding.severity == .fail, "\(finding)")
        #expect(finding.observed.contains("IPv4 literals handed out: http://192.0.2.10:8080/v1/feed/page1 (somewhere)"), "\(finding.observed)")
        #expect(finding.evidence.count == 4 && finding.evidence[1].hasPrefix("✗ fail http://192.0.2.10:8080"), "\(finding.evidence)")
        #expect(finding.rule == AuditRuleSources.ipv4Literals)
        observation.items.remove(at: 1)
        #expect(AppReviewRules.finding(AppReviewRules.judge(observation)).severity == .info)
    }

    @Test func thisMachineHasAnIPv4Route() {
        // The test host is dual-stack or IPv4-only, never IPv6-only: the audit judges from DNS here.
        let routes = IPRoutes.current()
        #expect(routes.ipv4 && !routes.isIPv6Only, "\(routes)")
    }

    /// Only kept URLs count against the bound: other sites' URLs before a literal do not hide it;
    /// a scan cut at its cap says "at least"; nesting past the depth bound is named in the note.
    @Test func theBodyScanCountsOnlyKeptURLsAgainstTheBound() throws {
        let others = (0..<100).map { #"{"img":"http://img\#($0).othercdn.test/i/\#($0).jpg"}"# }.joined(separator: ",")
        let json = #"{"items":[\#(others)],"late":"http://192.0.2.80/late"}"#
        let found = HandedOutURLs.discover(Self.api, http: T.observation([T.transaction(Self.api)]), body: Self.body(json), limit: 16, cdnHosts: [])
        #expect(found.urls.map(\.url) == [Self.api, "http://192.0.2.80/late"], "\(found.urls.map(\.url))")
        #expect(found.otherSite.count == 100 && !found.capped && found.partialScan == nil, "\(found.otherSite.count) \(found.capped)")
        let review = AppReviewRules.judge(AppReviewObservation(routes: IPRoutes(ipv4: true, ipv6: false), link: nil, fetched: false, discovery: found))
        #expect(review.notFollowed == 100 && review.notFollowedNote?.hasPrefix("not followed: 100 on other sites (img0.othercdn.test") == true, "\(review)")
        // A literal 40 arrays deep is not searched, and the note says so.
        let deep = #"{"a":"https://api.example.com/x","deep":"# + String(repeating: "[", count: 40) + #""http://192.0.2.40/deep""# + String(repeating: "]", count: 40) + "}"
        let deepFound = HandedOutURLs.discover(Self.api, http: nil, body: Self.body(deep), limit: 16, cdnHosts: [])
        #expect(deepFound.partialScan == "the body of https://api.example.com/v1/feed/page1: 1 value nested deeper than 32 levels not searched", "\(deepFound)")
        let deepReview = AppReviewRules.judge(AppReviewObservation(routes: IPRoutes(ipv4: true, ipv6: false), link: nil, fetched: false, discovery: deepFound))
        #expect(deepReview.notFollowedNote?.contains("nested deeper than 32 levels") == true, "\(deepReview)")
        // Past the cap of strings walked the counts are lower bounds.
        let many = "[" + (0...JSONURLScanner.maxStrings).map { #""http://h\#($0).othercdn.test/""# }.joined(separator: ",") + "]"
        let cappedFound = HandedOutURLs.discover(Self.api, http: nil, body: Self.body(many), limit: 16, cdnHosts: [])
        #expect(cappedFound.capped && cappedFound.otherSite.count == JSONURLScanner.maxStrings, "\(cappedFound.otherSite.count)")
        let cappedReview = AppReviewRules.judge(AppReviewObservation(routes: IPRoutes(ipv4: true, ipv6: false), link: nil, fetched: false, discovery: cappedFound))
        #expect(cappedReview.notFollowedNote?.contains("at least \(JSONURLScanner.maxStrings) on other sites") == true
                && cappedReview.notFollowedNote?.contains("searched only its first \(JSONURLScanner.maxStrings) strings") == true, "\(cappedReview.notFollowedNote ?? "")")
    }

    /// Address literals of the auditing host's own networks are never fetched (an IPv4 literal
    /// never is): unless the audited URL's host is a literal of the same scope.
    @Test func literalsOnTheHostsOwnNetworksAreNotFetched() {
        let scopes: [(String, LiteralScope)] = [
            ("127.0.0.1", .loopback), ("::1", .loopback), ("::", .loopback), ("64:ff9b::7f00:1", .loopback), ("::ffff:127.0.0.1", .loopback),
            ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("64:ff9b::a9fe:a9fe", .linkLocal),
            ("10.1.2.3", .privateUse), ("192.168.1.1", .privateUse), ("172.20.0.1", .privateUse), ("100.64.0.1", .privateUse),
            ("fd00::1", .privateUse), ("64:ff9b::a00:1", .privateUse), ("64:ff9b:1::1", .privateUse),
            ("ff02::1", .special), ("64:ff9b::c612:1", .special),
            ("2a00:1450:4001:80b::200e", .global), ("64:ff9b::808:808", .global), ("8.8.8.8", .global),
        ]
        for (literal, scope) in scopes { #expect(LiteralScope.of(literal) == scope, "\(literal)") }
        #expect(LiteralScope.of("api.example.com") == nil)
        func target(_ url: String) -> HandedOutURL {
            let parsed = try? Auditor.parse(url)
            return HandedOutURL(url: url, source: .body(path: "$.a"), foundIn: "somewhere", host: parsed?.host ?? "", port: parsed?.port ?? 0,
                                kind: HostResolver.kind(of: parsed?.host ?? ""))
        }
        #expect(LiteralScope.whyNotFetched(target("http://127.0.0.1:8080/x"), auditedHost: "127.0.0.1")?.contains("an IPv4 literal") == true,
                "an IPv4 literal is never fetched")
        #expect(LiteralScope.whyNotFetched(target("http://[64:ff9b::7f00:1]:8080/x"), auditedHost: "api.example.com")?.contains("loopback") == true)
        #expect(LiteralScope.whyNotFetched(target("http://[fe80::1]/x"), auditedHost: "api.example.com")?.contains("link-local") == true)
        #expect(LiteralScope.whyNotFetched(target("http://[fd12::1]/x"), auditedHost: "api.example.com")?.contains("private") == true)
        #expect(LiteralScope.whyNotFetched(target("http://[::1]:8080/x"), auditedHost: "::1") == nil, "a loopback server audited by its literal")
        #expect(LiteralScope.whyNotFetched(target("http://[::1]:8080/x"), auditedHost: "127.0.0.1") == nil)
        #expect(LiteralScope.whyNotFetched(target("http://[::1]:8080/x"), auditedHost: "10.0.0.1") != nil)
        #expect(LiteralScope.whyNotFetched(target("http://[2a00:1450:4001:80b::200e]/x"), auditedHost: "api.example.com") == nil)
        #expect(LiteralScope.whyNotFetched(target("https://cdn.example.com/x"), auditedHost: "api.example.com") == nil)
        // The verdict of an IPv4 literal not fetched: fail, and why it was not fetched.
        let item = Self.item("http://127.0.0.1:8080/x", .body(path: "$.a"), notFetched: LiteralScope.whyNotFetched(target("http://127.0.0.1:8080/x"), auditedHost: nil))
        let verdict = AppReviewRules.judge(item, ipv6Only: true)
        #expect(verdict.severity == .fail && verdict.reason?.contains("not fetched: an IPv4 literal fails on an IPv6-only network") == true, "\(verdict)")
    }

    /// An Alt-Svc alternative whose host is not a plain name or address (user-info, `/ ? #`, a
    /// `:` outside brackets) is dropped, and the header is written redacted.
    @Test func anAltSvcAuthorityWithUserInfoIsDroppedAndRedacted() {
        let header = #"h2="user:altsecret@127.0.0.1:18099"; ma=60, h2="a/b?c#d:443", h2="[2001:db8::7]:8443", h2="127.0.0.1:18100""#
        let http = T.observation([T.transaction(Self.api, headers: [("Alt-Svc", header)])])
        let found = HandedOutURLs.discover(Self.api, http: http, body: nil, limit: 16, cdnHosts: [])
        #expect(found.urls.map(\.url) == [Self.api, "https://[2001:db8::7]:8443/", "https://127.0.0.1:18100/"], "\(found.urls.map(\.url))")
        #expect(!found.urls.contains { $0.url.contains("altsecret") || $0.foundIn.contains("altsecret") })
        for host in ["user:pw@h.example", "h.example/x", "h.example?x", "h.example#x", "a:b", "h example", "h\u{1B}[31m"] {
            #expect(!HandedOutURLs.isPlainAltSvcHost(host), "\(host)")
        }
        for host in ["h.example", "127.0.0.1", "2001:db8::7", "fe80::1%eth0"] { #expect(HandedOutURLs.isPlainAltSvcHost(host), "\(host)") }
        let places = IPv6Rules.ipv4Literals(http, body: nil)
        #expect(places.count == 1 && !places[0].contains("altsecret") && places[0].contains("REDACTED@127.0.0.1:18099"), "\(places)")
        let secretOnly = T.observation([T.transaction(Self.api, headers: [("Alt-Svc", #"h2="user:altsecret@127.0.0.1:18099""#)])])
        #expect(IPv6Rules.ipv4Literals(secretOnly, body: nil).isEmpty, "an alternative with user-info is no literal")
    }

    /// A port that does not fit is no port: the URL is refused (not judged a literal on port 80).
    @Test func aPortThatOverflowsIsRefused() {
        for bad in ["http://127.0.0.1:99999999999999999999/x", "http://127.0.0.1:65536/x", "http://127.0.0.1:0/x", "https://u:p@h.example:1x/"] {
            #expect((try? Auditor.parse(bad)) == nil, "\(bad)")
        }
        #expect((try? Auditor.parse("http://[::1]:8080/x"))?.port == 8080 && (try? Auditor.parse("https://u:p@h.example:8443/x"))?.port == 8443)
        #expect((try? Auditor.parse("https://h.example/x"))?.port == 443)
        let json = #"{"a":"http://127.0.0.1:99999999999999999999/hugeport"}"#
        let found = HandedOutURLs.discover(Self.api, http: nil, body: Self.body(json), limit: 16, cdnHosts: [])
        #expect(found.urls.count == 1, "\(found.urls.map(\.url))")
    }

    /// An IPv6 literal with a zone id is not followed, and the note says why (not "another site").
    @Test func aZoneIDIsNotFollowedAndSaysWhy() {
        let json = #"{"a":"http://[fe80::1%25lo]:8080/zone","b":"https://ads.other.net/x"}"#
        let found = HandedOutURLs.discover(Self.api, http: nil, body: Self.body(json), limit: 16, cdnHosts: [])
        #expect(found.urls.count == 1 && found.zoneID.count == 1 && found.otherSite == ["ads.other.net"], "\(found)")
        let review = AppReviewRules.judge(AppReviewObservation(routes: IPRoutes(ipv4: true, ipv6: false), link: nil, fetched: false, discovery: found))
        #expect(review.notFollowed == 2 && review.notFollowedNote?.contains("1 with a zone id (fe80::1%lo") == true
                && review.notFollowedNote?.contains("1 on other sites (ads.other.net;") == true, "\(review.notFollowedNote ?? "")")
    }
}
