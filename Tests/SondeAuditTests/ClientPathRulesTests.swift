import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// The client-path rules without a server (`retry-after`, `http.payload-size`, `ipv6`,
/// `http.coalescing`) on made-up transactions, both sides of each threshold, and their parsers:
/// Retry-After's two forms, IPv4-literal URLs, resolve entries, addresses.
struct ClientPathRulesTests {
    typealias T = HTTPRulesTests

    @Test func retryAfterTakesSecondsAndTheThreeHTTPDateForms() {
        #expect(RetryAfter(parsing: "30") == .seconds(30))
        #expect(RetryAfter(parsing: " 0 ") == .seconds(0))
        #expect(RetryAfter(parsing: "12345678901") == nil, "more than 10 digits is refused, not wrapped")
        #expect(RetryAfter(parsing: "-5") == nil && RetryAfter(parsing: "1.5") == nil && RetryAfter(parsing: "soon") == nil)
        #expect(RetryAfter(parsing: "") == nil)
        let expected = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z
        #expect(RetryAfter(parsing: "Fri, 01 Jan 2027 00:00:00 GMT") == .date(expected))
        #expect(RetryAfter(parsing: "Friday, 01-Jan-27 00:00:00 GMT") == .date(expected))
        #expect(RetryAfter(parsing: "Fri Jan  1 00:00:00 2027") == .date(expected))
    }

    @Test func retryAfterIsJudgedOnlyOnA429Or503() {
        let url = "https://api.example.com/items"
        let ok = RetryAfterRules.finding([("the GET", T.transaction(url))])
        #expect(ok.severity == .info && ok.observed.contains("none of the audit's 1 responses"), "\(ok.observed)")
        let with = RetryAfterRules.finding([("the GET", T.transaction(url, status: 429, headers: [("Retry-After", "30")]))])
        #expect(with.severity == .pass && with.observed.contains("429 with Retry-After: 30 s"), "\(with.observed)")
        #expect(with.evidence.contains { $0.hasPrefix("← 429") && $0.contains("Retry-After: 30") }, "\(with.evidence)")
        let bare = RetryAfterRules.finding([("the GET", T.transaction(url, status: 429))])
        #expect(bare.severity == .warn && bare.evidence.contains { $0.contains("no Retry-After") }, "\(bare.evidence)")
        let date = RetryAfterRules.finding([("the GET", T.transaction(url, status: 503, headers: [("Retry-After", "Fri, 01 Jan 2027 00:00:00 GMT")]))])
        #expect(date.severity == .pass && date.client.contains("OkHttp reads only delay-seconds"), "\(date.client)")
        let invalid = RetryAfterRules.finding([("the GET", T.transaction(url, status: 503, headers: [("Retry-After", "later")]))])
        #expect(invalid.severity == .warn)
        // One bad response among good ones is enough to warn.
        let mixed = RetryAfterRules.finding([("a", T.transaction(url, status: 429, headers: [("Retry-After", "1")])), ("b", T.transaction(url, status: 503))])
        #expect(mixed.severity == .warn)
    }

    @Test func payloadWarnsAboveOneMebibyteOnTheWire() {
        let url = "https://api.example.com/items"
        let at = PayloadRules.finding(T.observation([T.transaction(url, wire: PayloadRules.warnWireBytes)]))
        #expect(at.severity == .pass, "\(at.observed)")
        let over = PayloadRules.finding(T.observation([T.transaction(url, wire: PayloadRules.warnWireBytes + 1)]))
        #expect(over.severity == .warn, "\(over.observed)")
        // Decoded size is reported, the wire size judged: 6 MB of JSON sent as 700 KB gzip passes.
        let gzip = PayloadRules.finding(T.observation([T.transaction(url, headers: [("Content-Encoding", "gzip")], wire: 700_000, decoded: 6_000_000)]))
        #expect(gzip.severity == .pass && gzip.observed.contains("700 000 bytes on the wire gzip") && gzip.observed.contains("6 000 000 bytes decoded"),
                "\(gzip.observed)")
        #expect(abs(PayloadRules.secondsOnSlow4G(1_048_576) - 5.0) < 0.001)
        let hops = PayloadRules.finding(T.observation([T.transaction(url, status: 301, headers: [("Location", "/b")]), T.transaction(url + "/b", wire: 10)],
                                                      second: [T.transaction(url + "/b", reused: true, wire: 10)]))
        #expect(hops.evidence.count == 3 && hops.evidence[0].hasPrefix("GET hop 1") && hops.evidence[2].hasPrefix("second GET"), "\(hops.evidence)")
    }

    @Test func ipv4LiteralURLsAreFoundAndValidated() {
        let text = #"{"a":"https://10.0.0.5:8443/x","b":"http://user@192.168.1.1/y?q=1","c":"https://999.1.1.1/","d":"https://api.example.com/","e":"https://10.0.0.5:8443/x","f":"wss://8.8.8.8"}"#
        #expect(BodySample.ipv4LiteralURLs(in: text) == ["https://10.0.0.5:8443/x", "http://user@192.168.1.1/y?q=1", "wss://8.8.8.8"])
        #expect(BodySample.ipv4LiteralURLs(in: "see https://[::1]:8443/ and 127.0.0.1 alone").isEmpty)
        #expect(BodySample.ipv4LiteralURLs(in: String(repeating: "http://1.2.3.4/\(0) ", count: 1), limit: 1).count == 1)
    }

    @Test func resolveEntriesAndAddresses() {
        let entries = ["-gone.test:443:1.1.1.1", "+api.test:8443:127.0.0.1,[::1]", "other.test:8443:10.0.0.1"]
        #expect(HostResolver.addresses(in: entries, host: "API.test", port: 8443) == ["127.0.0.1", "::1"])
        #expect(HostResolver.addresses(in: entries, host: "api.test", port: 443) == nil)
        #expect(HostResolver.addresses(in: entries, host: "gone.test", port: 443) == nil)
        let resolved = HostResolver.resolve("api.test", port: 8443, entries: entries, timeoutMs: 1000)
        #expect(resolved.v4 == ["127.0.0.1"] && resolved.v6 == ["::1"] && resolved.source == "a --resolve entry")
        #expect(HostResolver.kind(of: "127.0.0.1") == .ipv4Literal && HostResolver.kind(of: "::1") == .ipv6Literal)
        #expect(HostResolver.kind(of: "localhost") == .name && HostResolver.kind(of: "1.2.3") == .name && HostResolver.kind(of: "256.1.1.1") == .name)
        #expect(HostResolver.sameAddress("::1", "0:0:0:0:0:0:0:1") && HostResolver.sameAddress("[::1]", "::1"))
        #expect(!HostResolver.sameAddress("127.0.0.1", "::1") && !HostResolver.sameAddress("localhost", "localhost"))
        #expect(HostResolver.isNAT64WellKnown("64:ff9b::c000:221") && !HostResolver.isNAT64WellKnown("2001:db8::1"))
        // The system resolver, bounded: localhost has 127.0.0.1 on every machine this runs on.
        let system = HostResolver.resolve("localhost", port: 443, entries: [], timeoutMs: 2000)
        #expect(system.v4.contains("127.0.0.1") && system.source.contains("getaddrinfo"), "\(system)")
        let missing = HostResolver.resolve("no-such-host.invalid", port: 443, entries: [], timeoutMs: 2000)
        #expect(missing.v4.isEmpty && missing.v6.isEmpty && missing.error != nil)
    }

    static func host(_ name: String, v4: [String] = [], v6: [String] = [], connect: TransactionMetrics? = nil, error: TaskError? = nil,
                     notTried: String? = nil) -> IPv6Observation.Host {
        var host = IPv6Observation.Host(host: name, port: 443, url: "https://\(name)/", kind: HostResolver.kind(of: name))
        if host.kind == .name { host.addresses = HostAddresses(v4: v4, v6: v6, source: "test") }
        if let connect {
            var task = T.task([connect])
            task.error = error
            host.connect = task
        }
        host.notTried = notTried
        return host
    }

    @Test func ipv6VerdictsForNamesLiteralsAndHandedOutLiterals() {
        let url = "https://api.example.com/items"
        let http = T.observation([T.transaction(url)])
        func judge(_ hosts: [IPv6Observation.Host], given: String = url, http o: HTTPObservation? = nil, body: String? = nil) -> AuditFinding {
            var probes = IPv6Observation(hosts: hosts)
            if let body { probes.body = BodySample.Result(url: url, status: 200, bytes: Array(body.utf8), truncated: false, milliseconds: 1) }
            return IPv6Rules.finding(given: given, http: o ?? http, probes: probes)
        }
        var answered = T.transaction(url)
        answered.remoteAddress = "2001:db8::1"
        #expect(judge([Self.host("api.example.com", v4: ["192.0.2.1"], v6: ["2001:db8::1"], connect: answered)]).severity == .pass)
        #expect(judge([Self.host("api.example.com", v4: ["192.0.2.1"])]).severity == .info)
        var refused = T.transaction(url)
        refused.response = nil
        let broken = judge([Self.host("api.example.com", v4: ["192.0.2.1"], v6: ["2001:db8::1"], connect: refused,
                                      error: TaskError(code: .connectionRefused, message: "Failed to connect to api.example.com port 443: Connection refused"))])
        #expect(broken.severity == .fail && broken.observed.contains("no answer over IPv6"), "\(broken.observed)")
        let noRoute = judge([Self.host("api.example.com", v6: ["2001:db8::1"], connect: refused,
                                       error: TaskError(code: .connectionRefused, message: "connect to 2001:db8::1 port 443: Network is unreachable"))])
        #expect(noRoute.severity == .info, "a machine without IPv6 says nothing of the server: \(noRoute.observed)")
        let synthesized = judge([Self.host("api.example.com", v6: ["64:ff9b::c000:201"], connect: answered)])
        #expect(synthesized.severity == .info && synthesized.observed.contains("DNS64"), "\(synthesized.observed)")
        // An IPv4 literal URL is info, whatever it hands out; a name handing out literals warns.
        let literalURL = "https://192.0.2.1/items"
        #expect(judge([Self.host("192.0.2.1")], given: literalURL, body: #"{"next":"https://192.0.2.1/items?page=2"}"#).severity == .info)
        let redirect = T.observation([T.transaction(url, status: 302, headers: [("Location", "https://192.0.2.1/items")]),
                                      T.transaction("https://192.0.2.1/items", headers: [("Alt-Svc", "h3=\"192.0.2.1:443\"; ma=60")])])
        let handedOut = judge([Self.host("api.example.com", v4: ["192.0.2.1"], v6: ["2001:db8::1"], connect: answered)], http: redirect,
                              body: #"{"next":"https://192.0.2.1/items?page=2"}"#)
        #expect(handedOut.severity == .warn, "\(handedOut.observed)")
        #expect(handedOut.evidence.contains { $0.contains("IPv4 literal in the Location of the 302") }, "\(handedOut.evidence)")
        #expect(handedOut.evidence.contains { $0.contains("IPv4 literal in Alt-Svc") }, "\(handedOut.evidence)")
        #expect(handedOut.evidence.contains { $0.contains("IPv4 literal in the body of") && $0.contains("https://192.0.2.1/items?page=2") },
                "\(handedOut.evidence)")
        // A relative Location names the same host: not a literal.
        let relative = T.observation([T.transaction(url, status: 302, headers: [("Location", "/items/2")]), T.transaction(url + "/2")])
        #expect(IPv6Rules.ipv4Literals(relative, body: nil).isEmpty)
    }

    @Test func coalescingVerdicts() {
        let url = "https://api.example.com/items"
        var connection = T.transaction(url)
        connection.remoteAddress = "192.0.2.1"
        func candidate(_ name: String, shares: Bool, status: Int?) -> CoalescingObservation.Candidate {
            var c = CoalescingObservation.Candidate(name: name, isAddress: false, addresses: HostAddresses(v4: [shares ? "192.0.2.1" : "192.0.2.9"], source: "test"),
                                                    sharesAddress: shares)
            if let status {
                var hop = T.transaction(url, status: status)
                hop.request.headers.append(HeaderField(name: "Host", value: name))
                c.request = T.task([hop])
            }
            return c
        }
        #expect(CoalescingRules.finding(CoalescingObservation(connection: connection, notProbed: "http/1.1, not h2")).severity == .info)
        #expect(CoalescingRules.finding(CoalescingObservation(connection: connection, wildcards: ["*.example.com"])).severity == .info)
        let apart = CoalescingRules.finding(CoalescingObservation(connection: connection, candidates: [candidate("cdn.example.com", shares: false, status: nil)]))
        #expect(apart.severity == .info && apart.observed.contains("its own connection"), "\(apart.observed)")
        let served = CoalescingRules.finding(CoalescingObservation(connection: connection, candidates: [candidate("www.example.com", shares: true, status: 200)]))
        #expect(served.severity == .pass && served.evidence.contains { $0.contains("Host: www.example.com") }, "\(served.evidence)")
        let refused = CoalescingRules.finding(CoalescingObservation(connection: connection, candidates: [candidate("www.example.com", shares: true, status: 200),
                                                                                                        candidate("img.example.com", shares: true, status: 421)]))
        #expect(refused.severity == .warn && refused.observed.contains("img.example.com answered 421"), "\(refused.observed)")
        #expect(CoalescingProber.authority("::1", port: 8443) == "[::1]:8443" && CoalescingProber.authority("a.test", port: 443) == "a.test")
    }
}
