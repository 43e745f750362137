import Foundation
import SondeCore
import SondeHTTP

/// The HTTP findings for mobile clients (compression, caching, keep-alive, HTTP/2, HTTP/3),
/// judged from what `HTTPProber` saw. Pure: the same observation gives the same findings. Each
/// finding's evidence is the request and response lines that show it (`HTTPEvidence`, redacted);
/// its `client` says what URLSession and OkHttp do with it.
enum HTTPRules {
    /// The finding ids this type makes, in report order.
    static let ids = ["http.status", "http.compression", "http.caching", "http.keep-alive", "http.h2", "h3.advertised", "h3.works"]

    static func findings(_ o: HTTPObservation) -> [AuditFinding] {
        [status(o), compression(o), caching(o), keepAlive(o), http2(o), h3Advertised(o), h3Works(o)]
    }

    /// The smallest body whose missing compression is a `warn` (bytes): under it, the saving is
    /// lost in the headers and the packets (sonde's threshold, not a published one).
    static let compressionWorthBytes: Int64 = 1024

    /// A finding that could not be judged: no response to judge.
    private static func unknown(_ id: String, _ title: String, _ o: HTTPObservation, rule: String?) -> AuditFinding {
        let why = o.error ?? o.first?.error?.message ?? "no response"
        return AuditFinding(id: id, severity: .info, title: title, observed: "not known: \(why)",
                            evidence: o.final.map { [HTTPEvidence.request($0), HTTPEvidence.response($0, headers: [], error: o.first?.error)] } ?? [],
                            client: "", rule: rule)
    }

    // MARK: Status

    /// "3 s", "500 ms".
    static func duration(ms: Int) -> String {
        ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
    }

    /// Whether the first GET's transfer ended before its body did (sonde's timeout, or a cut).
    static func bodyIncomplete(_ o: HTTPObservation) -> Bool {
        guard let error = o.first?.error, o.final?.response != nil else { return false }
        return error.code != .tooManyRedirects && error.code != .redirectRefused
    }

    /// The response a client ends up with: a 2xx whose body arrived. A 5xx fails (the API is
    /// broken for every client), a 4xx or an unfollowed 3xx warns (not what an app can use; an
    /// API behind authentication answers 401 here), a body that did not arrive within `--timeout`
    /// warns, one cut by the server fails.
    static func status(_ o: HTTPObservation) -> AuditFinding {
        let id = "http.status", title = "the URL answers 2xx, and its body arrives in full"
        guard let final = o.final, let response = final.response else {
            let why = o.error ?? o.first?.error?.message ?? "no response"
            return AuditFinding(id: id, severity: .fail, title: title, observed: "no HTTP response: \(why)", evidence: RedirectRules.chain(o.first),
                                client: "URLSession and OkHttp get an error instead of a response", rule: AuditRuleSources.statusCodes)
        }
        let code = response.statusCode
        let wire = final.countOfResponseBodyBytesReceived
        let length = HTTPEvidence.header("Content-Length", in: final).flatMap { Int64($0.trimmingCharacters(in: .whitespaces).prefix(18)) }
        var evidence = RedirectRules.chain(o.first)
        evidence.append(HTTPEvidence.response(final, headers: ["Content-Type", "Content-Length", "Retry-After"], error: o.first?.error))
        evidence.append("body: \(HTTPEvidence.bytes(wire)) received" + (length.map { " of \(HTTPEvidence.bytes($0)) (Content-Length)" } ?? "")
                        + (final.phases.total.map { String(format: " in %.0f ms", $0) } ?? ""))
        if bodyIncomplete(o), let error = o.first?.error {
            if error.code == .timedOut {
                return AuditFinding(id: id, severity: .warn, title: title,
                                    observed: "answered \(code), but the body did not arrive within sonde's --timeout (\(duration(ms: o.timeoutMs))): \(HTTPEvidence.bytes(wire)) received"
                                        + (length.map { " of \(HTTPEvidence.bytes($0))" } ?? ""),
                                    evidence: evidence,
                                    client: "URLSession waits up to its timeoutIntervalForRequest (60 s by default) for each next packet and OkHttp 10 s (readTimeout): a client may still get the body, slowly, and slower on a mobile link",
                                    rule: AuditRuleSources.statusCodes)
            }
            return AuditFinding(id: id, severity: .fail, title: title, observed: "answered \(code), but the body was cut: \(error.message)", evidence: evidence,
                                client: "URLSession and OkHttp report an error (the connection was lost mid-body)", rule: AuditRuleSources.statusCodes)
        }
        switch code {
        case 200..<300:
            return AuditFinding(id: id, severity: .pass, title: title, observed: "\(code), body complete (\(HTTPEvidence.bytes(wire)) on the wire)",
                                evidence: evidence, client: "URLSession and OkHttp hand the response to the app", rule: AuditRuleSources.statusCodes)
        case 500..<600:
            return AuditFinding(id: id, severity: .fail, title: title, observed: "\(code): a server error", evidence: evidence,
                                client: "URLSession and OkHttp hand the \(code) to the app as an error response: the API does not work for any client"
                                    + (code == 503 ? " (OkHttp retries a 503 once only with Retry-After: 0)" : ""),
                                rule: AuditRuleSources.statusCodes)
        case 400..<500:
            return AuditFinding(id: id, severity: .warn, title: title, observed: "\(code): a client error (the other findings judge an error response)", evidence: evidence,
                                client: "URLSession and OkHttp hand the \(code) to the app; an API behind authentication answers 401/403 to an audit without credentials",
                                rule: AuditRuleSources.statusCodes)
        default:
            return AuditFinding(id: id, severity: .warn, title: title, observed: "\(code): not a response an app can use (a redirect not followed, or an interim status)",
                                evidence: evidence, client: "URLSession and OkHttp follow a redirect with a Location; anything else reaches the app as it is",
                                rule: AuditRuleSources.statusCodes)
        }
    }

    // MARK: Compression

    static func compression(_ o: HTTPObservation) -> AuditFinding {
        let id = "http.compression", title = "a compressible response compressed when URLSession asks for it"
        guard let final = o.final, let response = final.response else { return unknown(id, title, o, rule: AuditRuleSources.contentCoding) }
        let shown = ["Content-Type", "Content-Encoding", "Vary", "Content-Length"]
        let wire = final.countOfResponseBodyBytesReceived
        let decoded = final.countOfResponseBodyBytesAfterDecoding ?? wire
        var evidence = [HTTPEvidence.request(final, headers: ["Accept-Encoding"]), HTTPEvidence.response(final, headers: shown, missing: true)]
        evidence.append("body: \(HTTPEvidence.bytes(wire)) on the wire, \(HTTPEvidence.bytes(decoded)) decoded")
        guard (200..<300).contains(response.statusCode), o.first?.error == nil else {
            return AuditFinding(id: id, severity: .info, title: title, observed: "not judged: the response is \(response.statusCode)"
                                + (o.first?.error.map { " (\($0.message))" } ?? ""), evidence: evidence, client: "", rule: AuditRuleSources.contentCoding)
        }
        let type = HTTPEvidence.header("Content-Type", in: final)
        let encoding = HTTPEvidence.header("Content-Encoding", in: final).map { $0.lowercased() }
        let vary = (HTTPEvidence.header("Vary", in: final) ?? "").lowercased()
        let varies = vary.split(separator: ",").contains { ["accept-encoding", "*"].contains($0.trimmingCharacters(in: .whitespaces)) }
        let client = "URLSession (Accept-Encoding: gzip, deflate, br) and OkHttp (gzip) decode it transparently"
        if let encoding, encoding != "identity" {
            let saved = decoded > 0 ? Int((Double(decoded - min(wire, decoded)) / Double(decoded) * 100).rounded()) : 0
            let observed = "\(encoding): \(HTTPEvidence.bytes(wire)) on the wire for \(HTTPEvidence.bytes(decoded)) (\(saved) % saved)"
            if varies {
                return AuditFinding(id: id, severity: .pass, title: title, observed: observed + ", Vary: Accept-Encoding",
                                    evidence: evidence, client: client, rule: AuditRuleSources.contentCoding)
            }
            return AuditFinding(id: id, severity: .warn, title: title, observed: observed + ", without Vary: Accept-Encoding",
                                evidence: evidence,
                                client: client + "; a shared cache (a CDN, a proxy) may hand this encoded body to a client that did not ask for it",
                                rule: AuditRuleSources.vary)
        }
        guard let type, Self.isCompressible(type) else {
            return AuditFinding(id: id, severity: .pass, title: title,
                                observed: "not compressed; \(type.map { "\($0) is" } ?? "no Content-Type: taken as") not a compressible type",
                                evidence: evidence, client: "nothing to gain for a client", rule: AuditRuleSources.contentCoding)
        }
        if decoded < Self.compressionWorthBytes {
            return AuditFinding(id: id, severity: .info, title: title,
                                observed: "not compressed, \(HTTPEvidence.bytes(decoded)) of \(type): too small to gain much",
                                evidence: evidence, client: "a client downloads the body as it is", rule: AuditRuleSources.contentCoding)
        }
        return AuditFinding(id: id, severity: .warn, title: title,
                            observed: "not compressed: \(HTTPEvidence.bytes(decoded)) of \(type) sent as it is although the request accepted gzip, deflate, br",
                            evidence: evidence,
                            client: "URLSession and OkHttp ask for gzip and get the full \(HTTPEvidence.bytes(decoded)) on every request, on a mobile link too",
                            rule: AuditRuleSources.contentCoding)
    }

    /// Whether a media type compresses well: text, JSON, XML, JavaScript, SVG, any type with the
    /// `+json` or `+xml` structured syntax suffix (RFC 6839 §3.1, §4.1: problem details, JSON API,
    /// every JSON-based protocol's own type), web fonts without their own compression, wasm.
    static func isCompressible(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml") { return true }
        return ["application/json", "application/xml", "application/javascript", "application/x-javascript", "application/ecmascript",
                "application/x-ndjson", "application/x-www-form-urlencoded", "application/wasm",
                "image/svg+xml", "image/x-icon", "image/bmp", "font/ttf", "font/otf", "application/vnd.ms-fontobject"].contains(type)
    }

    // MARK: Caching

    static func caching(_ o: HTTPObservation) -> AuditFinding {
        let id = "http.caching", title = "caching headers, and a revalidation that answers 304"
        guard let final = o.final, let response = final.response else { return unknown(id, title, o, rule: AuditRuleSources.caching) }
        let shown = ["Cache-Control", "ETag", "Last-Modified", "Expires"]
        var evidence = [HTTPEvidence.request(final), HTTPEvidence.response(final, headers: shown, missing: true)]
        guard (200..<300).contains(response.statusCode) else {
            return AuditFinding(id: id, severity: .info, title: title, observed: "not judged: the response is \(response.statusCode)",
                                evidence: evidence, client: "", rule: AuditRuleSources.caching)
        }
        let cacheControl = (HTTPEvidence.header("Cache-Control", in: final) ?? "").lowercased()
        let directives = cacheControl.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let maxAge = directives.first { $0.hasPrefix("max-age=") }.flatMap { Int($0.dropFirst(8).prefix(10)) }
        let fresh = (maxAge ?? 0) > 0 || HTTPEvidence.header("Expires", in: final) != nil
        let validators = o.conditionalHeaders
        if directives.contains("no-store") {
            return AuditFinding(id: id, severity: .info, title: title, observed: "Cache-Control: no-store: not cached by decision",
                                evidence: evidence,
                                client: "URLCache and OkHttp's cache store nothing: every request downloads the body again (right for personal data)",
                                rule: AuditRuleSources.caching)
        }
        let freshness = fresh ? (maxAge.map { "fresh for \($0) s" } ?? "an Expires date") : "no freshness lifetime"
        guard !validators.isEmpty else {
            if fresh {
                return AuditFinding(id: id, severity: .info, title: title, observed: "\(freshness), no ETag or Last-Modified",
                                    evidence: evidence,
                                    client: "URLSession and OkHttp reuse the cached body while fresh, then download it again in full (nothing to revalidate with)",
                                    rule: AuditRuleSources.caching)
            }
            return AuditFinding(id: id, severity: .warn, title: title, observed: "no Cache-Control lifetime, no ETag, no Last-Modified",
                                evidence: evidence,
                                client: "URLSession and OkHttp cannot reuse or revalidate the response: every request downloads the full body again",
                                rule: AuditRuleSources.caching)
        }
        guard let conditional = o.conditional?.transactionMetrics.last else {
            return AuditFinding(id: id, severity: .info, title: title, observed: "\(freshness), validators sent, revalidation not tried (time budget)",
                                evidence: evidence, client: "", rule: AuditRuleSources.caching)
        }
        let names = validators.map(\.name)
        evidence.append(HTTPEvidence.request(conditional, headers: names))
        evidence.append(HTTPEvidence.response(conditional, headers: ["ETag", "Last-Modified", "Content-Length"], error: o.conditional?.error))
        let sent = names.joined(separator: " and ")
        switch conditional.response?.statusCode {
        case 304?:
            return AuditFinding(id: id, severity: .pass, title: title, observed: "\(freshness); a revalidation with \(sent) gets 304",
                                evidence: evidence,
                                client: "URLCache (useProtocolCachePolicy) and OkHttp's cache revalidate and reuse the stored body: a 304 costs no body bytes",
                                rule: AuditRuleSources.conditional304)
        case let status?:
            let body = conditional.countOfResponseBodyBytesAfterDecoding ?? conditional.countOfResponseBodyBytesReceived
            return AuditFinding(id: id, severity: .warn, title: title,
                                observed: "\(freshness); a revalidation with \(sent) gets \(status) and the full body again (\(HTTPEvidence.bytes(body)))",
                                evidence: evidence,
                                client: "URLSession and OkHttp revalidate, and download the whole body each time: the validators save nothing",
                                rule: AuditRuleSources.conditional304)
        case nil:
            return AuditFinding(id: id, severity: .info, title: title, observed: "\(freshness); the revalidation got no response",
                                evidence: evidence, client: "", rule: AuditRuleSources.conditional304)
        }
    }

    // MARK: Connections

    static func keepAlive(_ o: HTTPObservation) -> AuditFinding {
        let id = "http.keep-alive", title = "a second request reuses the connection"
        guard let final = o.final, final.response != nil, let second = o.second?.transactionMetrics.last else {
            return unknown(id, title, o, rule: AuditRuleSources.persistence)
        }
        let closes = HTTPEvidence.header("Connection", in: final)?.lowercased().contains("close") == true
        let evidence = [HTTPEvidence.request(final), HTTPEvidence.response(final, headers: ["Connection", "Keep-Alive"], error: o.first?.error),
                        HTTPEvidence.request(second), HTTPEvidence.response(second, headers: ["Connection"], error: o.second?.error)]
        // A first GET whose body did not arrive was ended by sonde (or cut): its connection was
        // closed on the client's side, so a new one for the second says nothing of the server.
        if !second.isReusedConnection, !closes, bodyIncomplete(o), let error = o.first?.error {
            let why = error.code == .timedOut ? "its body did not arrive within sonde's --timeout (\(duration(ms: o.timeoutMs)))" : error.message
            return AuditFinding(id: id, severity: .info, title: title,
                                observed: "not judged: the first GET did not complete (\(why)), so sonde closed its connection; raise --timeout to judge it",
                                evidence: evidence, client: "", rule: AuditRuleSources.persistence)
        }
        if second.isReusedConnection {
            return AuditFinding(id: id, severity: .pass, title: title, observed: "the second request went on the same connection"
                                + (second.networkProtocolName.map { " (\($0))" } ?? ""),
                                evidence: evidence, client: "URLSession and OkHttp keep the connection and send the next request without a new handshake",
                                rule: AuditRuleSources.persistence)
        }
        let cost = HTTPEvidence.setupCost(second).map { ": \($0) again" } ?? ""
        return AuditFinding(id: id, severity: .warn, title: title,
                            observed: "the second request needed a new connection" + (closes ? " (the server sent Connection: close)" : "") + cost,
                            evidence: evidence,
                            client: "URLSession and OkHttp pay a TCP and TLS handshake for every request (a round trip or two each on a mobile link)",
                            rule: AuditRuleSources.persistence)
    }

    static func http2(_ o: HTTPObservation) -> AuditFinding {
        let id = "http.h2", title = "HTTP/2 negotiated over TLS (ALPN)"
        guard let final = o.final, final.response != nil else { return unknown(id, title, o, rule: AuditRuleSources.http2) }
        let evidence = [HTTPEvidence.request(final), HTTPEvidence.response(final, headers: [])]
        guard final.request.url.lowercased().hasPrefix("https://") else {
            return AuditFinding(id: id, severity: .info, title: title, observed: "cleartext: HTTP/2 is offered over TLS only (h2c is not used by mobile stacks)",
                                evidence: evidence, client: "URLSession and OkHttp speak HTTP/1.1 over cleartext", rule: AuditRuleSources.http2)
        }
        switch final.networkProtocolName {
        case "h2"?, "h3"?:
            return AuditFinding(id: id, severity: .pass, title: title, observed: "ALPN chose \(final.networkProtocolName ?? "")", evidence: evidence,
                                client: "URLSession and OkHttp send every request to this host over one multiplexed connection",
                                rule: AuditRuleSources.http2)
        default:
            return AuditFinding(id: id, severity: .warn, title: title,
                                observed: "\(final.networkProtocolName ?? "an unknown protocol") only: ALPN did not choose h2", evidence: evidence,
                                client: "URLSession opens up to 6 HTTP/1.1 connections per host (httpMaximumConnectionsPerHost) and queues the rest, OkHttp one request per pooled connection at a time: each new connection a handshake",
                                rule: AuditRuleSources.http2)
        }
    }

    // MARK: HTTP/3

    /// The h3 alternatives `transaction`'s response advertised (RFC 7838 `Alt-Svc`).
    static func advertisedH3(_ transaction: TransactionMetrics?) -> (header: String, alternatives: [AltSvcHeader.Alternative])? {
        let values = transaction?.response?.headers.filter { $0.name.lowercased() == "alt-svc" }.map(\.value) ?? []
        guard !values.isEmpty else { return nil }
        let header = values.joined(separator: ", ")
        return (header, AltSvcHeader(header).alternatives.filter(\.isHTTP3))
    }

    static func h3Advertised(_ o: HTTPObservation) -> AuditFinding {
        let id = "h3.advertised", title = "HTTP/3 advertised by Alt-Svc"
        guard let final = o.final, final.response != nil else { return unknown(id, title, o, rule: AuditRuleSources.altSvc) }
        let evidence = [HTTPEvidence.request(final), HTTPEvidence.response(final, headers: ["Alt-Svc"], missing: true)]
        guard let (header, alternatives) = advertisedH3(final), !alternatives.isEmpty else {
            return AuditFinding(id: id, severity: .info, title: title,
                                observed: advertisedH3(final).map { "Alt-Svc without h3: \($0.header)" } ?? "no Alt-Svc header: HTTP/3 not offered",
                                evidence: evidence, client: "URLSession stays on HTTP/2 or HTTP/1.1; OkHttp has no HTTP/3", rule: AuditRuleSources.altSvc)
        }
        let host = URLComponents(string: final.request.url)?.host ?? ""
        let list = alternatives.map { "\($0.protocolID) at \($0.authority(originHost: host))" + ($0.maxAge.map { " for \($0) s" } ?? "") }
        return AuditFinding(id: id, severity: .pass, title: title, observed: list.joined(separator: ", "),
                            evidence: evidence + ["Alt-Svc: \(header)"],
                            client: "URLSession learns the alternative and uses HTTP/3 on its next new connection (OkHttp has no HTTP/3 and stays on HTTP/2)",
                            rule: AuditRuleSources.altSvc)
    }

    static func h3Works(_ o: HTTPObservation) -> AuditFinding {
        let id = "h3.works", title = "an HTTP/3 request to the advertised alternative succeeds"
        guard let tasks = o.h3, let learned = tasks.first?.transactionMetrics.last, let tried = tasks.dropFirst().first else {
            return AuditFinding(id: id, severity: .info, title: title, observed: "not tried: \(o.h3NotTried ?? "no response")",
                                client: "", rule: AuditRuleSources.http3)
        }
        var evidence = [HTTPEvidence.request(learned), HTTPEvidence.response(learned, headers: ["Alt-Svc"])]
        let attempt = tried.transactionMetrics.last
        if let attempt {
            evidence.append(HTTPEvidence.request(attempt))
            evidence.append(HTTPEvidence.response(attempt, headers: [], error: tried.error))
        }
        let tcp = HTTPEvidence.setupCost(learned)
        if let attempt, attempt.networkProtocolName == "h3", attempt.response != nil {
            let quic = HTTPEvidence.setupCost(attempt)
            let costs = [tcp.map { "over TCP: \($0)" }, quic.map { "over QUIC: \($0)" }].compactMap { $0 }.joined(separator: "; ")
            return AuditFinding(id: id, severity: .pass, title: title,
                                observed: "HTTP/3 answered \(attempt.response?.statusCode ?? 0) at \(attempt.altSvc?.alternative ?? "the alternative")"
                                    + (costs.isEmpty ? "" : " (\(costs))"),
                                evidence: evidence + (attempt.altSvc.map { [$0.summary] } ?? []),
                                client: "URLSession moves to HTTP/3 on its next new connection and keeps it", rule: AuditRuleSources.http3)
        }
        let failure = tried.transactionMetrics.compactMap(\.altSvcFailure).first
        if let failure { evidence.append("alternative \(failure.alternative) failed after \(String(format: "%.1f", failure.durationMs)) ms: \(failure.error.message)") }
        return AuditFinding(id: id, severity: .warn, title: title,
                            observed: failure.map { "advertised, but \($0.alternative) did not answer over QUIC: \($0.error.message)" }
                                ?? "advertised, but the request did not go over HTTP/3 (\(attempt?.networkProtocolName ?? tried.error?.message ?? "no response"))",
                            evidence: evidence,
                            client: "URLSession tries QUIC on a new connection, waits for it to fail and falls back to TCP: extra work and latency for nothing",
                            rule: AuditRuleSources.http3)
    }
}
