import Foundation
import SondeCore
import SondeHTTP
import SondeSuite

/// `/probe` for one target with one blackbox_exporter module: what blackbox's http prober does
/// (resolve by the module's IP preference, one request following redirects, judge status, HTTP
/// version and TLS), measured by libcurl, and the same series blackbox emits
/// (`BlackboxExposition`) plus sonde's own.
///
/// Threading: `probe` runs the blocking work on a thread of `ProbeThreads` (kept between probes);
/// call it from any task.
struct BlackboxProber {
    let module: BlackboxModule
    let moduleName: String
    /// The probe's time limit (s): `ScrapeTimeout.seconds`.
    let timeout: Double
    let redactor: Redactor
    /// The allow list every redirect hop must match too (an allowed server cannot send `/probe` elsewhere).
    var allow = AllowList(patterns: [])
    /// Keep the probe's log (`debug=true`); without, no line is made.
    var debug = false

    /// What a probe found: its series, its log (for `debug=true`), and whether it succeeded.
    struct Outcome {
        var exposition: BlackboxExposition
        var log: [String]
        var success: Bool
    }

    func probe(target: String) async -> Outcome {
        await WorkerPool.probeThreads.run { run(target: target) }
    }

    /// The whole probe, on the calling thread.
    func run(target rawTarget: String) -> Outcome {
        let started = monotonicMicroseconds()
        var log = Log(target: redactor.redact(url: rawTarget), module: moduleName, enabled: debug)
        var exposition = BlackboxExposition()
        func finish(success: Bool) -> Outcome {
            let duration = Double(monotonicMicroseconds() - started) / 1e6
            exposition.set("probe_duration_seconds", duration)
            exposition.set("probe_success", success ? 1 : 0)
            log.say(success ? "Probe succeeded" : "Probe failed", "duration_seconds=\(duration)")
            return Outcome(exposition: exposition, log: log.lines, success: success)
        }
        log.say("Beginning probe", "probe=http timeout_seconds=\(timeout)")
        let target = rawTarget.contains("://") ? rawTarget : "http://" + rawTarget
        guard let components = URLComponents(string: target), let rawHost = components.host, !rawHost.isEmpty else {
            log.say("Could not parse target URL", "")
            return finish(success: false)
        }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        exposition.prepareHTTP()

        log.say("Resolving target address", "target=\(host) ip_protocol=\(module.http.preferredIPProtocol)")
        let resolved: AddressResolver.Resolved
        switch AddressResolver.resolve(host: host, preferred: module.http.preferredIPProtocol, fallback: module.http.ipProtocolFallback) {
        case .failure(let error):
            log.say("Error resolving address", "err=\"\(error.message)\"")
            return finish(success: false)
        case .success(let found):
            resolved = found
        }
        log.say("Resolved target address", "target=\(host) ip=\(resolved.address)")
        exposition.set("probe_dns_lookup_time_seconds", resolved.seconds)
        exposition.set("probe_ip_protocol", Double(resolved.family))
        exposition.set("probe_ip_addr_hash", Double(BlackboxExposition.fnv32a(resolved.bytes)))

        var options = ProbeOptions()
        options.method = module.http.method
        options.headers = module.http.headers.map { HeaderField(name: $0.name, value: $0.value) }
        if let auth = module.http.basicAuth {
            options.headers.append(HeaderField(name: "Authorization", value: "Basic " + Data("\(auth.username):\(auth.password)".utf8).base64EncodedString()))
        } else if let token = module.http.bearerToken {
            options.headers.append(HeaderField(name: "Authorization", value: "Bearer " + token))
        }
        options.body = module.http.body.map { Array($0.utf8) }
        options.httpVersion = module.http.enableHTTP2 ? .automatic : .http1_1
        let remainingMs = max(1, Int((timeout - Double(monotonicMicroseconds() - started) / 1e6) * 1000))
        options.timeoutMs = remainingMs
        options.connectTimeoutMs = remainingMs
        options.insecure = module.http.insecureSkipVerify
        options.caCertPath = module.http.caFile
        options.tlsGroups = Self.goKeyExchangeGroups
        options.ipVersion = resolved.family == 4 ? .v4 : .v6
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        let isLiteral = host == resolved.address
        if !isLiteral { options.resolve = ["\(host):\(port):\(resolved.family == 6 ? "[\(resolved.address)]" : resolved.address)"] }
        options.proxy = module.http.proxyURL
        options.reuseConnections = false
        options.maxRedirects = module.http.followRedirects ? 10 : 0
        options.acceptedStatus = StatusSet(ranges: [100...599])  // judged below, as blackbox judges it
        let allow = self.allow
        // Without follow_redirects nothing is followed, so no hop needs the allow list.
        if module.http.followRedirects { options.redirectAllowed = { allow.allowing($0) != nil } }
        let capture = module.http.matchesRegexps ? ResponseCapture(maxBodyBytes: BlackboxModule.maxMatchedBodyBytes) : nil
        options.responseCapture = capture
        options.userAgent = "sonde/\(SondeVersion.current) (blackbox_exporter compatible)"

        log.say("Making HTTP request", "url=\(redactor.redact(url: target)) host=\(host)")
        var finished: ProbeTask?
        do throws(TaskError) {
            let runner = try ProbeRunner(options: options, redactor: redactor)
            _ = try runner.run(urls: [target], shouldStop: { false }, onTask: { finished = $0 })
        } catch {
            log.say("Error for HTTP request", "err=\"\(error.message)\"")
            return finish(success: false)
        }
        guard var task = finished else { return finish(success: false) }
        // Without follow_redirects the 3xx is the answer, judged like any other: no error. blackbox
        // counts it as one redirect (its CheckRedirect saw it) and reads no body (Go closed it).
        let redirectNotFollowed = !module.http.followRedirects && task.error?.code == .tooManyRedirects
        if redirectNotFollowed { task.error = nil }
        exposition.record(task, resolveSeconds: resolved.seconds)
        if redirectNotFollowed {
            exposition.set("probe_http_redirects", 1)
            exposition.set("probe_http_uncompressed_body_length", 0)
        }
        let last = task.transactionMetrics.last
        if capture?.bodyExceeded == true {
            log.say("Error reading HTTP body", "err=\"the body is larger than \(BlackboxModule.maxMatchedBodyBytes) bytes, the most sonde matches regular expressions against\"")
            return finish(success: false)
        }
        if let error = task.error {
            log.say("Error for HTTP request", "err=\"\(error.code.rawValue): \(error.message)\"")
            return finish(success: false)
        }
        guard let response = last?.response else { return finish(success: false) }
        log.say("Received HTTP response", "status_code=\(response.statusCode)")
        let valid = module.http.validStatusCodes.isEmpty ? (200...299).contains(response.statusCode)
            : module.http.validStatusCodes.contains(response.statusCode)
        guard valid else {
            log.say("Invalid HTTP response status code", "status_code=\(response.statusCode)")
            return finish(success: false)
        }
        if let capture {
            let deadline = started + Int64(timeout * 1e6)
            guard matchRegexps(capture, redirectNotFollowed: redirectNotFollowed, deadline: deadline, log: &log, exposition: &exposition) else {
                return finish(success: false)
            }
        }
        if !module.http.validHTTPVersions.isEmpty {
            let version = BlackboxExposition.versionText(last?.networkProtocolName)
            guard module.http.validHTTPVersions.contains(where: { BlackboxExposition.sameVersion($0, version) }) else {
                log.say("Invalid HTTP version number", "version=\(version)")
                return finish(success: false)
            }
        }
        let ssl = last?.request.url.lowercased().hasPrefix("https:") == true
        if module.http.failIfSSL && ssl {
            log.say("Final request was over SSL", "")
            return finish(success: false)
        }
        if module.http.failIfNotSSL && !ssl {
            log.say("Final request was not over SSL", "")
            return finish(success: false)
        }
        return finish(success: true)
    }

    /// blackbox's `matchRegularExpressionsOnHeaders` then `matchRegularExpressions`, in its order,
    /// setting `probe_failed_due_to_regex` after each; every match on `RegexpLane` by `deadline`
    /// (monotonic µs). False (logged) on the first failure.
    func matchRegexps(_ capture: ResponseCapture, redirectNotFollowed: Bool, deadline: Int64, log: inout Log,
                      exposition: inout BlackboxExposition) -> Bool {
        let http = module.http
        do throws(RegexpLane.Overdue) {
            if !http.failIfHeaderMatches.isEmpty || !http.failIfHeaderNotMatches.isEmpty {
                let passed = try headersPass(capture, deadline: deadline, log: &log)
                exposition.set("probe_failed_due_to_regex", passed ? 0 : 1)
                guard passed else { return false }
            }
            if !http.failIfBodyMatches.isEmpty || !http.failIfBodyNotMatches.isEmpty {
                // Go closed the body of a redirect it did not follow: blackbox's read of it fails.
                guard !redirectNotFollowed else {
                    log.say("Error reading HTTP body", "err=\"http: read on closed response body\"")
                    return false
                }
                let body = capture.body
                var passed = true
                for expression in http.failIfBodyMatches where passed {
                    if try RegexpLane.shared.matches(expression, body, deadline: deadline) {
                        log.say("Body matched regular expression", "regexp=\(expression.source)")
                        passed = false
                    }
                }
                for expression in http.failIfBodyNotMatches where passed {
                    if try !RegexpLane.shared.matches(expression, body, deadline: deadline) {
                        log.say("Body did not match regular expression", "regexp=\(expression.source)")
                        passed = false
                    }
                }
                exposition.set("probe_failed_due_to_regex", passed ? 0 : 1)
                guard passed else { return false }
            }
            return true
        } catch {
            log.say("Error matching regular expression", "err=\"the probe's deadline passed before the match ended\"")
            return false
        }
    }

    /// blackbox's `matchRegularExpressionsOnHeaders`: each header's values (any case), a missing
    /// header failing unless `allow_missing`.
    private func headersPass(_ capture: ResponseCapture, deadline: Int64, log: inout Log) throws(RegexpLane.Overdue) -> Bool {
        for matcher in module.http.failIfHeaderMatches {
            let values = capture.values(of: matcher.header)
            if values.isEmpty {
                if matcher.allowMissing { continue }
                log.say("Missing required header", "header=\(matcher.header)")
                return false
            }
            for value in values {
                guard try !RegexpLane.shared.matches(matcher.regexp, Array(value.utf8), deadline: deadline) else {
                    log.say("Header matched regular expression", "header=\(matcher.header) regexp=\(matcher.regexp.source) value_count=\(values.count)")
                    return false
                }
            }
        }
        for matcher in module.http.failIfHeaderNotMatches {
            let values = capture.values(of: matcher.header)
            if values.isEmpty {
                if matcher.allowMissing { continue }
                log.say("Missing required header", "header=\(matcher.header)")
                return false
            }
            var anyMatched = false
            for value in values where !anyMatched {
                anyMatched = try RegexpLane.shared.matches(matcher.regexp, Array(value.utf8), deadline: deadline)
            }
            if !anyMatched {
                log.say("Header did not match regular expression", "header=\(matcher.header) regexp=\(matcher.regexp.source) value_count=\(values.count)")
                return false
            }
        }
        return true
    }

    /// The key-exchange groups blackbox_exporter 0.23 offers (Go 1.19–1.20's crypto/tls default
    /// `CurvePreferences`), in its order: a probe's handshake is then the one blackbox makes. The
    /// TLS library's own default would lead with a post-quantum hybrid (OpenSSL 3.5 and later:
    /// X25519MLKEM768), whose ML-KEM key generation, larger messages and the server's encapsulation
    /// every probe would pay on top of blackbox's handshake.
    static let goKeyExchangeGroups = "X25519:P-256:P-384:P-521"

    /// blackbox's log lines, logfmt, with the time of each.
    struct Log {
        let target: String
        let module: String
        let enabled: Bool
        var lines: [String] = []

        mutating func say(_ message: String, _ fields: @autoclosure () -> String) {
            guard enabled else { return }
            let fields = fields()
            let time = Timestamp.now().description
            lines.append("ts=\(time) module=\(module) target=\(target) level=info msg=\"\(message)\"" + (fields.isEmpty ? "" : " " + fields))
        }
    }
}
