import Foundation
import SondeCore
import SondeHTTP

/// What the HTTP probes of one audited URL saw, for `HTTPRules`. Everything here is unredacted
/// (the probes run with `Redactor.disabled`, so that a redirect's Location and the final URL can
/// be requested again): the rules redact every URL and header they write into a finding.
struct HTTPObservation: Sendable {
    /// The URL as given.
    var url: String
    /// The GET of `url` as URLSession sends it (`Accept-Encoding: gzip, deflate, br`), redirects
    /// followed hop by hop, each hop its own transaction; nil when it could not run.
    var first: ProbeTask?
    /// The same GET right after, through the same connection pool: a server that keeps the
    /// connection open serves it on the first one.
    var second: ProbeTask?
    /// The validators sent with `conditional` (If-None-Match, If-Modified-Since), from `first`'s
    /// final response; empty when it had none.
    var conditionalHeaders: [HeaderField] = []
    /// A GET of the final URL with `conditionalHeaders`; nil when not sent.
    var conditional: ProbeTask?
    /// The final URL fetched twice on new connections with an Alt-Svc cache, as URLSession moves
    /// to HTTP/3: the first response advertises h3, the second request goes to the alternative
    /// over QUIC (or falls back to TCP); nil when not tried, `h3NotTried` says why.
    var h3: [ProbeTask]?
    var h3NotTried: String?
    /// Why the probes could not run at all (libcurl refused an option), nil when they ran.
    var error: String?
    /// The bound of each request (ms, `--timeout`), for the findings that say a transfer hit it.
    var timeoutMs: Int = 3_000

    /// The last hop of the first GET: the response a client ends up with.
    var final: TransactionMetrics? { first?.transactionMetrics.last }
    /// The URL the first GET ended on (the given one without redirects).
    var finalURL: String { final?.request.url ?? url }
}

/// Runs the audit's HTTP probes through the probe engine (`ProbeRunner` on libcurl), never with
/// HTTP code of its own: every request is a GET without a body, as URLSession sends it
/// (`ClientProfile.urlsession`: `Accept-Encoding: gzip, deflate, br`, body decoded and bounded).
///
/// TLS is not verified here (`ProbeOptions.insecure`): whether the chain verifies is `cert.chain`'s
/// finding, and the HTTP findings stay readable on a server whose chain is broken.
///
/// Bounds: each request by the connect timeout and the probe timeout; at most `maxRedirects`
/// hops; the probes together by `budgetMs` (a probe not started by then is not sent, a running one
/// is stopped). Blocks the calling thread.
struct HTTPProber: Sendable {
    var options: AuditOptions
    /// Hops followed per GET (URLSession follows redirects on its own).
    static let maxRedirects = 10

    /// Which probes to send: the conditional GET only for `http.caching`, the HTTP/3 pair only
    /// for `h3.works`.
    func observe(_ url: String, caching: Bool, http3: Bool) -> HTTPObservation {
        let deadline = monotonicMicroseconds() + Int64(options.budgetMs) * 1000
        var observation = HTTPObservation(url: url, timeoutMs: options.probeTimeoutMs)
        var twice = baseOptions()
        twice.count = 2
        switch run(url, twice, deadline: deadline) {
        case .success(let tasks):
            observation.first = tasks.first { $0.iteration == 0 }
            observation.second = tasks.first { $0.iteration == 1 }
        case .failure(let error):
            observation.error = error.message
            return observation
        }
        guard let final = observation.final, let response = final.response else { return observation }
        let finalURL = observation.finalURL
        if caching, (200..<300).contains(response.statusCode) {
            observation.conditionalHeaders = Self.validators(response.headers)
            if !observation.conditionalHeaders.isEmpty {
                var conditional = baseOptions()
                conditional.headers = observation.conditionalHeaders
                conditional.maxRedirects = 0
                observation.conditional = try? run(finalURL, conditional, deadline: deadline).get().first
            }
        }
        if http3 {
            let advertised = response.headers.filter { $0.name.lowercased() == "alt-svc" }
                .flatMap { AltSvcHeader($0.value).alternatives }.filter(\.isHTTP3)
            if advertised.isEmpty {
                observation.h3NotTried = "no h3 alternative advertised"
            } else if !finalURL.lowercased().hasPrefix("https://") {
                observation.h3NotTried = "the final URL is not https (Alt-Svc is followed over TLS only)"
            } else if !CurlLibrary.supportsHTTP3 {
                observation.h3NotTried = "the running libcurl \(CurlLibrary.version) has no HTTP/3 (\(LibcurlProvenance.current.http3Advice))"
            } else {
                observation.h3 = probeHTTP3(finalURL, deadline: deadline, observation: &observation)
            }
        }
        return observation
    }

    /// The final URL twice, each on a new connection, with a fresh Alt-Svc cache: libcurl learns
    /// the h3 alternative from the first response and takes it for the second connection.
    private func probeHTTP3(_ url: String, deadline: Int64, observation: inout HTTPObservation) -> [ProbeTask]? {
        let cache: AltSvcCache
        do { cache = try AltSvcCache(persistentFile: nil) } catch {
            observation.h3NotTried = "no Alt-Svc cache: \(error.message)"
            return nil
        }
        var options = baseOptions()
        options.altSvc = true
        options.reuseConnections = false
        options.count = 2
        options.maxRedirects = 0
        defer { try? cache.finish() }
        switch run(url, options, deadline: deadline, altSvc: cache) {
        case .success(let tasks): return tasks.sorted { $0.iteration < $1.iteration }
        case .failure(let error):
            observation.h3NotTried = error.message
            return nil
        }
    }

    /// The options every audit GET shares: URLSession's headers, no verification (see the type),
    /// the audit's bounds, every status accepted (the rules judge statuses).
    func baseOptions() -> ProbeOptions {
        var probe = ProbeOptions()
        probe.client = .urlsession
        probe.userAgent = "sonde-audit/\(SondeVersion.current)"
        probe.insecure = true
        probe.timeoutMs = options.probeTimeoutMs
        probe.connectTimeoutMs = options.connectTimeoutMs
        probe.resolve = options.resolve
        probe.altSvc = false
        probe.maxRedirects = Self.maxRedirects
        probe.acceptedStatus = StatusSet(ranges: [100...599])
        return probe
    }

    /// The request headers that revalidate a response: If-None-Match from its ETag,
    /// If-Modified-Since from its Last-Modified (RFC 9110 §13.1.2, §13.1.3), as URLCache and
    /// OkHttp's cache send them.
    static func validators(_ headers: [HeaderField]) -> [HeaderField] {
        func value(_ name: String) -> String? {
            headers.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map { $0.value }.flatMap { $0.isEmpty ? nil : $0 }
        }
        var result: [HeaderField] = []
        if let etag = value("ETag") { result.append(HeaderField(name: "If-None-Match", value: etag)) }
        if let modified = value("Last-Modified") { result.append(HeaderField(name: "If-Modified-Since", value: modified)) }
        return result
    }

    func run(_ url: String, _ options: ProbeOptions, deadline: Int64, altSvc: AltSvcCache? = nil) -> Result<[ProbeTask], TaskError> {
        guard monotonicMicroseconds() < deadline else {
            return .failure(TaskError(code: .interrupted, message: "the audit's time budget ran out before this probe"))
        }
        do {
            let runner = try ProbeRunner(options: options, redactor: .disabled, altSvc: altSvc)
            var tasks: [ProbeTask] = []
            _ = try runner.run(urls: [url], shouldStop: { monotonicMicroseconds() >= deadline }, onTask: { tasks.append($0) })
            return .success(tasks)
        } catch {
            return .failure(error)
        }
    }
}
