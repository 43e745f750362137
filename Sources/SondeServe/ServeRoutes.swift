import Foundation
import Hummingbird
import SondeCore
import SondeHistory
import SondeReport
import SondeSuite
import Synchronization

/// The endpoints of `sonde serve`:
/// - `GET /metrics`: every scheduled check's latest run and serve's health (`ServeState`).
/// - `GET /probe?target=…&module=…[&debug=true]`: blackbox_exporter's http, tcp, dns, icmp and
///   grpc probers (`BlackboxProber`, `BlackboxTCPProber`, `BlackboxDNSProber`,
///   `BlackboxICMPProber`, `BlackboxGRPCProber`), only for targets the `allow:` list matches (a URL
///   for http, `host:port` for tcp, dns and grpc, a host for icmp; 403, nothing sent, otherwise).
/// - `GET /-/healthy`, `POST /-/reload` (500 with the reason when the new config is refused; the
///   running one stays in force).
/// - `GET /`: the checks and their latest runs.
public enum ServeRoutes {
    /// What the routes read and call; `config` is replaced by a reload.
    public struct Context: Sendable {
        public var state: ServeState
        public var config: CurrentConfig
        public var reload: @Sendable () async -> String?
        public var inFlight: @Sendable () async -> [String]
        public var redactor: Redactor
        /// Where the scheduled runs' folders are (`/runs/<id>/…`).
        public var outputDirectory: String
        /// The credentials every request needs (none without a web config).
        public var auth: ServeAuth
        /// The run history `/` draws (nil when it could not be opened: `/` lists the checks only).
        public var history: HistoryStore?
        /// `/probe` calls under way, at most `ServeLimits.maxProbes`.
        public var probes: ProbeAdmission
        /// Whether `POST /-/reload` reloads (`--web.enable-lifecycle`); SIGHUP always does.
        public var lifecycleEnabled: Bool
        /// `/`'s history page, rendered off the cooperative pool once per run recorded.
        let historyPage = HistoryPageCache()

        public init(state: ServeState, config: CurrentConfig, reload: @escaping @Sendable () async -> String?,
                    inFlight: @escaping @Sendable () async -> [String], redactor: Redactor, outputDirectory: String, auth: ServeAuth,
                    history: HistoryStore?, probes: ProbeAdmission, lifecycleEnabled: Bool) {
            self.history = history
            self.probes = probes
            self.lifecycleEnabled = lifecycleEnabled
            self.outputDirectory = outputDirectory
            self.auth = auth
            self.state = state
            self.config = config
            self.reload = reload
            self.inFlight = inFlight
            self.redactor = redactor
        }
    }

    static let expositionType = "text/plain; version=0.0.4; charset=utf-8"
    /// Where `/runs/…` files are read: four at once.
    static let fileLane = BlockingLane(label: "sonde.serve.files", limit: 4, maxWaiting: 64)
    static let htmlType = "text/html; charset=utf-8"

    public static func build(_ context: Context) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: ServeAuthMiddleware(auth: context.auth))
        router.get("/metrics") { _, _ in
            text(context.state.metricsText(inFlight: await context.inFlight()), type: expositionType)
        }
        router.get("/probe") { request, _ in await probe(request, context) }
        router.get("/-/healthy") { _, _ in text("Healthy") }
        router.head("/-/healthy") { _, _ in text("") }
        router.post("/-/reload") { _, _ in
            guard context.lifecycleEnabled else {
                return text("Lifecycle API is not enabled (start serve with --web.enable-lifecycle, or send it SIGHUP).\n", status: .forbidden)
            }
            if let problem = await context.reload() { return text("failed to reload config: \(problem)\n", status: .internalServerError) }
            return text("")
        }
        router.get("/-/reload") { _, _ in text("This endpoint requires a POST request.\n", status: .methodNotAllowed) }
        router.get("/runs/:id/:file") { _, request in
            let id = request.parameters.get("id") ?? "", file = request.parameters.get("file") ?? "", directory = context.outputDirectory
            // A report can be large: read off the cooperative pool.
            return (try? await fileLane.run { runFile(id: id, file: file, outputDirectory: directory) })
                ?? busy("too many reports being read; try again\n")
        }
        router.get("/checks") { _, _ in
            text(ServeIndexPage.render(runs: context.state.latestRuns, config: context.config.value), type: htmlType)
        }
        router.get("/") { _, _ in
            guard let history = context.history else {
                return text(ServeIndexPage.render(runs: context.state.latestRuns, config: context.config.value), type: htmlType)
            }
            let outputDirectory = context.outputDirectory
            let page = await context.historyPage.page(generation: context.state.generation) { () throws(TaskError) -> String in
                let page = try HistoryPage.render(store: history, pagePath: outputDirectory + "/index.html", runsURL: "runs/")
                // serve's own links above the history's header.
                let nav = "<nav><a href=\"checks\">scheduled checks</a> · <a href=\"metrics\">/metrics</a></nav>\n"
                return page.replacingOccurrences(of: "<header>", with: nav + "<header>", options: [], range: page.range(of: "<header>"))
            }
            switch page {
            case .success(let page): return text(page, type: htmlType)
            case .failure(let error): return text("the history cannot be read: \(error.message)\n", status: .internalServerError)
            }
        }
        return router
    }

    static func probe(_ request: Request, _ context: Context) async -> Response {
        let parameters = request.uri.queryParameters
        guard let target = parameters.get("target"), !target.isEmpty else { return text("Target parameter is missing\n", status: .badRequest) }
        let moduleName = parameters.get("module") ?? "http_2xx"
        let config = context.config.value
        guard let module = config.modules[moduleName] else {
            return text("Unknown module \"\(escapeText(moduleName))\"\n", status: .badRequest)
        }
        if let reason = module.unsupported { return text(reason + "\n", status: .badRequest) }
        if module.prober != "http" {
            if let refusal = endpointRefusal(target: target, module: module, allow: config.allow, redactor: context.redactor) { return refusal }
        }
        let absolute = target.contains("://") ? target : "http://" + target
        guard module.prober != "http" || config.allow.allowing(absolute) != nil else {
            if AllowList.hasDotSegment(absolute) {
                return text("target \(escapeText(context.redactor.redact(url: absolute))) has a dot segment ('.' or '..', also percent-encoded) in its path: "
                            + "/probe refuses it, as the allow list matches the path as written\n", status: .forbidden)
            }
            return text("target \(escapeText(context.redactor.redact(url: absolute))) is not in serve's allow list: /probe reaches only what allow: names\n",
                        status: .forbidden)
        }
        let header = request.headers.first { $0.name.canonicalName == "x-prometheus-scrape-timeout-seconds" }?.value
        let timeout: Double
        switch ScrapeTimeout.seconds(header: header, moduleTimeout: module.timeout) {
        case .success(let seconds): timeout = seconds
        case .failure(let refused): return text(refused.message + "\n", status: .internalServerError)
        }
        guard context.probes.enter() else {
            return busy("too many probes under way (at most \(context.probes.limit) at once)\n")
        }
        defer { context.probes.leave() }
        let debug = parameters.get("debug") == "true"
        let outcome: BlackboxProber.Outcome
        switch module.prober {
        case "tcp":
            outcome = await BlackboxTCPProber(module: module, moduleName: moduleName, timeout: timeout, debug: debug)
                .probe(target: target)
        case "dns":
            outcome = await BlackboxDNSProber(module: module, moduleName: moduleName, timeout: timeout, debug: debug).probe(target: target)
        case "icmp":
            outcome = await BlackboxICMPProber(module: module, moduleName: moduleName, timeout: timeout, debug: debug).probe(target: target)
        case "grpc":
            outcome = await BlackboxGRPCProber(module: module, moduleName: moduleName, timeout: timeout, debug: debug).probe(target: target)
        default:
            outcome = await BlackboxProber(module: module, moduleName: moduleName, timeout: timeout, redactor: context.redactor,
                                           allow: config.allow, debug: debug).probe(target: absolute)
        }
        context.state.probed(module: moduleName, success: outcome.success)
        MallocRetention.trim(notMoreOftenThan: 1)
        guard debug else { return text(outcome.exposition.text, type: expositionType) }
        let page = "Logs for the probe:\n" + outcome.log.joined(separator: "\n") + "\n\n\n\nMetrics that would have been returned:\n"
            + outcome.exposition.text + "\n\n\nModule configuration:\n" + BlackboxModuleText.describe(module, redactor: context.redactor)
        return text(page)
    }

    /// For the probers that reach a host rather than a URL (tcp, dns, icmp, grpc): 403 unless an
    /// endpoint pattern of `allow:` matches the target: its `host:port` for tcp, dns (port 53
    /// when the target has none) and grpc (`http://` or `https://` before it allowed, as blackbox
    /// allows it; 443 with `tls`, else 80, when it has no port), its host alone (a pattern without
    /// a port) for icmp; nil when it may be probed.
    static func endpointRefusal(target: String, module: BlackboxModule, allow: AllowList, redactor: Redactor) -> Response? {
        let shown = escapeText(target)
        let endpoint = module.prober == "grpc" ? BlackboxGRPCProber.endpoint(of: target) : target
        guard let (host, port) = Endpoint.split(endpoint) else {
            return text("target \(shown) is not \(module.prober == "icmp" ? "a host" : "host:port")\n", status: .badRequest)
        }
        if module.prober == "icmp" {
            guard port == nil else { return text("target \(shown) is not a host: the icmp prober takes no port\n", status: .badRequest) }
            guard allow.allowing(host: host) != nil else {
                return text("target \(shown) is not in serve's allow list: the icmp prober reaches only a host an allow: pattern without a port names\n",
                            status: .forbidden)
            }
            return nil
        }
        let effectivePort: Int
        switch (module.prober, port) {
        case ("dns", nil): effectivePort = 53
        case ("grpc", nil): effectivePort = module.grpc.tls ? 443 : 80
        case (_, let port?): effectivePort = port
        default: return text("target \(shown) is not host:port: the \(module.prober) prober needs a port\n", status: .badRequest)
        }
        guard allow.allowing(host: host, port: effectivePort) != nil else {
            return text("target \(shown) is not in serve's allow list: the \(module.prober) prober reaches only a host:port an allow: pattern names\n",
                        status: .forbidden)
        }
        return nil
    }

    /// A plain-text answer.
    static func text(_ body: String, status: HTTPResponse.Status = .ok, type: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: [.contentType: type, .init("X-Content-Type-Options")!: "nosniff"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// 503 with `Retry-After: 1`: a bound of `ServeLimits` or a `BlockingLane` is full, try again.
    static func busy(_ body: String) -> Response {
        var response = text(body, status: .serviceUnavailable)
        response.headers[.retryAfter] = "1"
        return response
    }

    /// A value from the request, shown in an answer: control characters as escapes, at most 256 characters.
    static func escapeText(_ value: String) -> String {
        String(String(value.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) }).prefix(256))
    }
}

extension ServeRoutes {
    /// The report files of a run folder under the output directory that `/runs/<id>/<file>` serves.
    static let runFiles = ["report.html": "text/html; charset=utf-8", "report.json": "application/json",
                           "report.har": "application/json", "junit.xml": "application/xml"]

    /// `/runs/<id>/<file>`: a report file of a run folder, neither opened through a link, the file
    /// owned by serve's user with one name (a hard link planted in a run folder is not served);
    /// 404 for anything else (a run id is letters, digits, `.`, `_`, `-`, and not `.` or `..`).
    static func runFile(id: String, file: String, outputDirectory: String) -> Response {
        guard let type = runFiles[file], !id.isEmpty, id.count <= 200, id != ".", id != "..",
              id.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0) })
        else { return text("not found\n", status: .notFound) }
        // The run folder is opened from the output folder's descriptor without following a link
        // (a folder planted as `out/<id> -> /elsewhere` is not served), then the file from it.
        guard let bytes = try? NoFollowFile.read(in: outputDirectory, components: [id, file], maxBytes: 256 << 20, ownSoleLink: true) else {
            return text("not found\n", status: .notFound)
        }
        return Response(status: .ok, headers: [.contentType: type, .init("X-Content-Type-Options")!: "nosniff",
                                               .init("Content-Security-Policy")!: "default-src 'none'; style-src 'unsafe-inline'; img-src data:"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
