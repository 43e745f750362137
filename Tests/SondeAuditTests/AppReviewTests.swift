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
        let found = try JSONURLScanner.urls(in: Array(text.utf8), limit: 10).get()
        #expect(found.map(\.path) == ["$.z", "$.items[0].url", "$.items[1].x[1]", #"$["odd key"]"#, "$.esc"], "\(found)")
        #expect(found.map(\.url) == ["https://a.example.com/1", "http://192.0.2.7:8080/m.jpg", "https://b.example.com/2", "https://c.example.com/3", "https://d.example.com/4"])
        #expect(try JSONURLScanner.urls(in: Array(text.utf8), limit: 2).get().count == 2, "the walk stops at the bound")
        // Not JSON, cut, trailing text: an error, never a crash.
        for bad in [#"{"a":"https://x.example.com/""#, "<html>https://x.example.com/</html>", #"{"a":1} tail"#, ""] {
            guard case .failure = JSONURLScanner.urls(in: Array(bad.utf8), limit: 5) else { Issue.record("accepted \(bad)"); continue }
        }
        // Nesting past the bound is not entered (and does not overflow the stack).
        let deep = String(repeating: "[", count: 60) + #""https://deep.example.com/""# + String(repeating: "]", count: 60)
        #expect((try? JSONURLScanner.urls(in: Array(deep.utf8), limit: 5).get())?.isEmpty ?? true)
        #expect(JSONURLScanner.textURLs(in: "see https://a.example.com/x and http://10.0.0.1/y, again (https://a.example.com/x).", limit: 5)
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
}
