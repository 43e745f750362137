import Foundation
import SondeCore
import Testing
@testable import SondeAudit

/// The HTTP rules without a server: secrets in URLs, compressible types, validators, URL
/// refusals, and each rule's verdict on made-up transactions (both sides of each threshold).
struct HTTPRulesTests {
    static func transaction(_ url: String, status: Int = 200, headers: [(String, String)] = [], protocolName: String = "h2",
                            reused: Bool = false, wire: Int64 = 0, decoded: Int64? = nil) -> TransactionMetrics {
        var metrics = TransactionMetrics(request: RequestRecord(method: "GET", url: url, headers: [HeaderField(name: "Accept-Encoding", value: "gzip, deflate, br")]),
                                         response: ResponseRecord(statusCode: status, headers: headers.map { HeaderField(name: $0.0, value: $0.1) }),
                                         networkProtocolName: protocolName, isReusedConnection: reused, connectionID: 1,
                                         countOfResponseBodyBytesReceived: wire)
        metrics.countOfResponseBodyBytesAfterDecoding = decoded ?? wire
        return metrics
    }

    static func task(_ hops: [TransactionMetrics], iteration: Int = 0) -> ProbeTask {
        ProbeTask(url: hops.first?.request.url ?? "", iteration: iteration, taskInterval: TaskInterval(start: Timestamp(microsecondsSince1970: 0), durationMs: 1),
                  redirectCount: max(0, hops.count - 1), error: nil, transactionMetrics: hops)
    }

    static func observation(_ hops: [TransactionMetrics], second: [TransactionMetrics]? = nil, url: String? = nil) -> HTTPObservation {
        var o = HTTPObservation(url: url ?? hops.first?.request.url ?? "")
        o.first = task(hops)
        o.second = second.map { task($0, iteration: 1) }
        return o
    }

    @Test func secretsInAURLAreNamedNeverShown() {
        let found = RedirectRules.secrets(in: "https://user:pw@api.example.com/x?access_token=abc&page=2#id_token=xyz")
        #expect(found == ["a user name and password (user-info)", "parameter access_token", "parameter id_token"])
        #expect(RedirectRules.secrets(in: "https://api.example.com/items?page=2&sort=name").isEmpty)
        #expect(RedirectRules.secrets(in: "https://api.example.com/cb?next=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln")
                    == ["a JWT-shaped value in parameter next"])
        #expect(RedirectRules.secrets(in: "https://api.example.com/x?api%5Fkey=1") == ["parameter api_key"])
        #expect(!RedirectRules.looksLikeJWT("eyJ.only.two") && !RedirectRules.looksLikeJWT("abc.def.ghi"))
    }

    @Test func compressibleTypesAndValidators() {
        #expect(HTTPRules.isCompressible("application/json; charset=utf-8"))
        #expect(HTTPRules.isCompressible("application/problem+json") && HTTPRules.isCompressible("text/html"))
        // RFC 6839's suffixes, whatever the protocol before them: none is listed by name.
        for type in ["application/graphql-response+json", "application/vnd.api+json; charset=utf-8", "APPLICATION/LD+JSON",
                     "application/atom+xml", "image/svg+xml"] {
            #expect(HTTPRules.isCompressible(type), "\(type)")
        }
        #expect(!HTTPRules.isCompressible("application/json-seq+zip") && !HTTPRules.isCompressible("application/jsonx"))
        #expect(!HTTPRules.isCompressible("image/png") && !HTTPRules.isCompressible("application/octet-stream"))
        let validators = HTTPProber.validators([HeaderField(name: "etag", value: "\"a1\""), HeaderField(name: "Last-Modified", value: "Tue, 01 Dec 2026 00:00:00 GMT")])
        #expect(validators == [HeaderField(name: "If-None-Match", value: "\"a1\""), HeaderField(name: "If-Modified-Since", value: "Tue, 01 Dec 2026 00:00:00 GMT")])
        #expect(HTTPProber.validators([HeaderField(name: "ETag", value: "")]).isEmpty)
    }

    @Test func httpURLsAreAuditedOtherSchemesRefused() {
        #expect((try? Auditor.parse("http://127.0.0.1/x"))?.port == 80)
        #expect((try? Auditor.parse("https://[::1]:8443/"))?.host == "::1")
        #expect(throws: AuditURLError.self) { try Auditor.parse("ftp://127.0.0.1/") }
        #expect(throws: AuditURLError.self) { try Auditor.endpoint(of: "http://127.0.0.1/", options: AuditOptions()) }
    }

    @Test func compressionJudgesEncodingVaryAndSize() {
        let url = "https://api.example.com/items"
        let gzipVary = Self.transaction(url, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")],
                                        wire: 700, decoded: 6_000)
        #expect(HTTPRules.compression(Self.observation([gzipVary])).severity == .pass)
        let gzipNoVary = Self.transaction(url, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], wire: 700, decoded: 6_000)
        #expect(HTTPRules.compression(Self.observation([gzipNoVary])).severity == .warn)
        let plainBig = Self.transaction(url, headers: [("Content-Type", "application/json")], wire: 1_024)
        #expect(HTTPRules.compression(Self.observation([plainBig])).severity == .warn)
        let plainSmall = Self.transaction(url, headers: [("Content-Type", "application/json")], wire: 1_023)
        #expect(HTTPRules.compression(Self.observation([plainSmall])).severity == .info)
        let image = Self.transaction(url, headers: [("Content-Type", "image/png")], wire: 50_000)
        #expect(HTTPRules.compression(Self.observation([image])).severity == .pass)
    }

    @Test func keepAliveH2AndRedirectVerdicts() {
        let url = "https://api.example.com/items"
        let first = Self.transaction(url)
        #expect(HTTPRules.keepAlive(Self.observation([first], second: [Self.transaction(url, reused: true)])).severity == .pass)
        let closed = Self.transaction(url, headers: [("Connection", "close")], protocolName: "http/1.1")
        let keep = HTTPRules.keepAlive(Self.observation([closed], second: [Self.transaction(url, protocolName: "http/1.1")]))
        #expect(keep.severity == .warn && keep.observed.contains("Connection: close"))
        #expect(HTTPRules.http2(Self.observation([first])).severity == .pass)
        #expect(HTTPRules.http2(Self.observation([closed])).severity == .warn)
        #expect(HTTPRules.http2(Self.observation([Self.transaction("http://api.example.com/", protocolName: "http/1.1")])).severity == .info)

        let upgrade = [Self.transaction("http://api.example.com/x", status: 301, headers: [("Location", "https://api.example.com/x")], protocolName: "http/1.1"),
                       Self.transaction("https://api.example.com/x")]
        #expect(RedirectRules.cleartext(Self.observation(upgrade)).severity == .warn)
        #expect(RedirectRules.redirects(Self.observation(upgrade)).severity == .info)
        #expect(RedirectRules.cleartext(Self.observation([Self.transaction("http://api.example.com/x", protocolName: "http/1.1")])).severity == .fail)
        let downgrade = [Self.transaction("https://api.example.com/x", status: 302, headers: [("Location", "http://cdn.example.com/x?sig=s3cr3t")]),
                         Self.transaction("http://cdn.example.com/x?sig=s3cr3t", protocolName: "http/1.1")]
        let redirects = RedirectRules.redirects(Self.observation(downgrade))
        #expect(redirects.severity == .fail)
        let secrets = RedirectRules.secrets(Self.observation(downgrade))
        #expect(secrets.severity == .warn && secrets.observed.contains("parameter sig"))
        #expect(!(redirects.evidence + secrets.evidence + [secrets.observed, redirects.observed]).joined().contains("s3cr3t"))
    }

    @Test func cachingNeedsAValidatorThatAnswers304() {
        let url = "https://api.example.com/items"
        let noStore = Self.transaction(url, headers: [("Cache-Control", "no-store")])
        #expect(HTTPRules.caching(Self.observation([noStore])).severity == .info)
        let nothing = Self.transaction(url)
        #expect(HTTPRules.caching(Self.observation([nothing])).severity == .warn)
        let fresh = Self.transaction(url, headers: [("Cache-Control", "max-age=60")])
        #expect(HTTPRules.caching(Self.observation([fresh])).severity == .info)
        let tagged = Self.transaction(url, headers: [("ETag", "\"v1\"")])
        var o = Self.observation([tagged])
        o.conditionalHeaders = HTTPProber.validators(tagged.response?.headers ?? [])
        o.conditional = Self.task([Self.transaction(url, status: 304)])
        #expect(HTTPRules.caching(o).severity == .pass)
        o.conditional = Self.task([Self.transaction(url, status: 200, wire: 6_000)])
        #expect(HTTPRules.caching(o).severity == .warn)
    }

    /// `http.status`: 2xx passes, 4xx and an unfollowed 3xx warn, 5xx and no response fail; a body
    /// that did not arrive within `--timeout` warns and names it, and then keep-alive is not
    /// judged (sonde closed the connection) unless the server said Connection: close.
    @Test func statusAndABodyCutBySondesTimeout() {
        let url = "https://api.example.com/items"
        for (code, severity) in [(200, AuditFinding.Severity.pass), (204, .pass), (302, .warn), (401, .warn), (429, .warn), (500, .fail), (503, .fail)] {
            let finding = HTTPRules.status(Self.observation([Self.transaction(url, status: code)]))
            #expect(finding.severity == severity && finding.observed.hasPrefix("\(code)"), "\(code): \(finding.observed)")
        }
        var none = Self.observation([])
        none.first = nil
        none.error = "libcurl refused an option"
        #expect(HTTPRules.status(none).severity == .fail)

        let partial = Self.transaction(url, headers: [("Content-Length", "4000")], protocolName: "http/1.1", wire: 2_900)
        var slow = Self.observation([partial], second: [Self.transaction(url, protocolName: "http/1.1")])
        slow.timeoutMs = 3_000
        slow.first?.error = TaskError(code: .timedOut, message: "the transfer did not finish in time: raise --timeout if the server is just slow")
        let status = HTTPRules.status(slow)
        #expect(status.severity == .warn && status.observed == "answered 200, but the body did not arrive within sonde's --timeout (3 s): 2 900 bytes received of 4 000 bytes",
                "\(status.observed)")
        let keep = HTTPRules.keepAlive(slow)
        #expect(keep.severity == .info && keep.observed.contains("raise --timeout"), "\(keep.observed)")
        slow.first?.error = TaskError(code: .truncatedBody, message: "the server closed the connection mid-body")
        #expect(HTTPRules.status(slow).severity == .fail)
        // The server's own Connection: close is still its doing.
        var closing = Self.observation([Self.transaction(url, headers: [("Connection", "close")], protocolName: "http/1.1", wire: 10)],
                                       second: [Self.transaction(url, protocolName: "http/1.1")])
        closing.first?.error = TaskError(code: .timedOut, message: "timed out")
        #expect(HTTPRules.keepAlive(closing).severity == .warn)
        // "https throughout" only when every hop is https.
        let upgrade = [Self.transaction("http://api.example.com/x", status: 301, headers: [("Location", "https://api.example.com/x")], protocolName: "http/1.1"),
                       Self.transaction("https://api.example.com/x")]
        #expect(RedirectRules.redirects(Self.observation(upgrade)).observed == "1 redirect, from http to https (http.cleartext judges the http URL)")
    }
}
