import CurlShim
#if canImport(Glibc)
import Glibc
#endif
import SondeCore

/// Runs probe tasks through one libcurl multi handle and turns every transfer into
/// `TransactionMetrics`. The engine: it measures and returns model values, and never renders.
///
/// - Each of the `parallel` workers owns one easy handle and runs one task at a time; all share
///   the multi handle's connection pool, so `--count` repeats can reuse connections.
/// - A hop is added to libcurl only when it can start for real: while the first connection to an
///   origin that may multiplex is being set up, other hops to it wait in sonde's `OriginGate`
///   (their `queue`), never in libcurl's own queue, so every phase and every `--timeout` is the
///   hop's own.
/// - Redirects are followed here, not by libcurl, on the same easy handle: every hop is its own
///   transaction with its own timing and reuse flag.
/// - Alt-Svc (with an `AltSvcCache`, on a libcurl with HTTP/3): libcurl learns `Alt-Svc: h3=…`
///   and takes a new connection to the alternative over QUIC. libcurl would take it on the very
///   next request, beside a still-open HTTP/2 connection; URLSession keeps using that open
///   connection and moves to h3 only on a new one. So while an origin's TCP connection is open,
///   its hops ask for HTTP/2 (which leaves h3 alternatives out); once it is gone, libcurl's default
///   (any version) lets the alternative be used. libcurl tries an alternative on another port or
///   host over QUIC alone; when it ends without a response, the hop goes again to the origin
///   without alternatives (its transaction carries `altSvcFailure`), and so do the origin's later
///   hops in the run (CURLOPT_ALTSVC_CTRL then allows no alternative), as URLSession falls back.
/// - Threading: `run` drives everything on the calling thread and returns when all tasks are
///   done or `shouldStop` returned true.
public final class ProbeRunner {
    /// The options in effect (after working around known libcurl limits; see `warnings`).
    public let options: ProbeOptions
    /// Things the user should know about how this run measured, for the report.
    public let warnings: [String]
    private let redactor: Redactor
    private let registry: ConnectionRegistry
    private var certificatesByConnection: [Int: [PeerCertificate]] = [:]
    /// Each new TLS connection's CURLINFO_CERTINFO lines, read when its transfer finished and
    /// parsed into `certificatesByConnection` when a task on it is handed on (`withCertificates`).
    private var certificateInfoByConnection: [Int: [[String]]] = [:]
    /// The fallback record of each connection that came out of an `--http3` race TCP won.
    private var fallbackByConnection: [Int: HTTP3Fallback] = [:]
    /// The registry's number for the current run's connection pool (its multi handle).
    private var pool = 0
    /// The check's Alt-Svc cache; nil when Alt-Svc is off or libcurl has no HTTP/3.
    private let altSvc: AltSvcCache?
    /// The cache files of this run's easy handles (`AltSvcCache.handleFile`), collected after it.
    private var altSvcFiles: [String] = []
    /// Each origin's last TCP connection left open in the pool: while it lives, URLSession's rule
    /// keeps the origin's requests on it (see the type's comment).
    private var openConnectionByOrigin: [String: OpenConnection] = [:]
    /// Why each QUIC connection that Alt-Svc led to is h3, for every transaction it carries.
    private var altSvcByConnection: [Int: AltSvcUse] = [:]
    /// Redacts response headers, classifying each header name once per run.
    private var responseRedaction: HeaderRedactionMemo
    /// Each URL's scheme, host and port, parsed once per run (the origin gate and Alt-Svc's rules ask per hop).
    private var urlParts = URLPartsMemo()

    /// Validates the options against the linked libcurl (e.g. HTTP/3 support).
    /// - Parameter registry: shared by all runners of one run, so connection ids do not repeat.
    /// - Parameter altSvc: the check's Alt-Svc cache (shared by its runners); used when
    ///   `options.altSvc` is on and the running libcurl has HTTP/3.
    public init(options: ProbeOptions, redactor: Redactor, registry: ConnectionRegistry = ConnectionRegistry(),
                altSvc: AltSvcCache? = nil) throws(TaskError) {
        if options.httpVersion.wantsHTTP3 && !CurlLibrary.supportsHTTP3 {
            let flag = options.httpVersion == .http3Only ? "--http3-only" : "--http3"
            throw TaskError(
                code: .unsupportedFeature,
                message: "\(flag) needs a libcurl built with HTTP/3 (QUIC); the running libcurl \(CurlLibrary.version) "
                    + "(\(CurlLibrary.path ?? "unknown path"), \(CurlLibrary.sslVersion ?? "no TLS")) has no HTTP3 feature. "
                    + "\(LibcurlProvenance.current.http3Advice), or probe with --http2.")
        }
        var effective = options
        var warnings: [String] = []
        if options.httpVersion == .http2PriorKnowledge && options.reuseConnections && CurlLibrary.curlVersionNumber < 0x08_00_00 {
            // curl issue #10634 (fixed in 8.0.0): a reused prior-knowledge connection fails with
            // "Error in the HTTP2 framing layer". Measure fresh connections rather than report failures.
            effective.reuseConnections = false
            warnings.append("libcurl \(CurlLibrary.version) cannot reuse HTTP/2 prior-knowledge (h2c) connections "
                + "(curl issue #10634, fixed in 8.0.0): every h2c task opened its own connection")
        }
        self.options = effective
        self.warnings = warnings
        self.redactor = redactor
        self.responseRedaction = HeaderRedactionMemo(redactor: redactor)
        self.registry = registry
        self.altSvc = options.altSvc && CurlLibrary.supportsHTTP3 ? altSvc : nil
    }

    /// Runs every URL `options.count` times (round by round: all URLs, then all again), with up
    /// to `options.parallel` tasks at once. `onTask` receives each task as it completes, named
    /// by `names` (aligned with `urls`; a nil or missing one: the method and the redacted URL
    /// without its query, `RequestName.defaultName`).
    /// - Returns: true when the run was stopped early by `shouldStop`.
    public func run(urls: [String], names: [String?] = [], shouldStop: () -> Bool, onTask: (ProbeTask) -> Void) throws(TaskError) -> Bool {
        defer {
            // runTasks' easy handles are gone: libcurl wrote their Alt-Svc caches in curl_easy_cleanup.
            altSvc?.collect(altSvcFiles)
            altSvcFiles = []
            openConnectionByOrigin = [:]
        }
        return try runTasks(urls: urls, names: names, shouldStop: shouldStop, onTask: onTask)
    }

    private func runTasks(urls: [String], names: [String?], shouldStop: () -> Bool, onTask: (ProbeTask) -> Void) throws(TaskError) -> Bool {
        let totalTasks = urls.count * max(1, options.count)
        guard totalTasks > 0 else { return false }
        let multiplex = options.httpVersion != .http1_1
        let multi = try MultiHandle(multiplex: multiplex)
        pool = registry.newPool()
        var workers: [Worker] = []
        defer {
            // libcurl writes a handle's Alt-Svc cache in curl_easy_cleanup only when its control
            // allows writing: a hop may have left it at "no alternative" (startHop).
            if altSvc != nil { for worker in workers { try? worker.easy.set(CURLOPT_ALTSVC_CTRL, Int(CURLALTSVC_H3)) } }
        }
        for _ in 0..<min(max(1, options.parallel), totalTasks) {
            let easy = try EasyHandle()
            try configure(easy)
            let worker = Worker(easy: easy)
            keepBodies(of: worker)
            workers.append(worker)
        }
        let clientHeaders = options.clientAddedHeaders
        let redactedHeaders = redactor.redact(headers: options.headers + clientHeaders)
        var byHandle: [UnsafeMutableRawPointer: Worker] = [:]
        var byID: [ObjectIdentifier: Worker] = [:]
        for worker in workers {
            byHandle[worker.easy.raw] = worker
            byID[ObjectIdentifier(worker)] = worker
        }

        var gate = OriginGate<Worker>()
        /// Finished tasks not yet handed to `onTask`, and when the first of them finished (µs).
        /// They are handed on once no transfer is in flight (at most 50 ms late), so that parsing a
        /// new connection's certificates (1.5–2.5 ms in a debug build, more for a long chain) and
        /// the caller's work do not hold back the requests and responses of other transfers.
        var undelivered: [ProbeTask] = []
        var undeliveredSince: Int64 = 0
        func deliver() {
            for task in undelivered { onTask(withCertificates(task)) }
            undelivered.removeAll()
        }
        defer { deliver() }
        var nextTask = 0
        var idle = workers
        var active = 0  // tasks in progress: in libcurl, or held by the gate
        var interrupted = false

        func startNext(_ worker: Worker) throws(TaskError) -> Bool {
            guard nextTask < totalTasks, !interrupted else { return false }
            let index = nextTask % urls.count
            let url = urls[index]
            let iteration = nextTask / urls.count
            nextTask += 1
            worker.task = ActiveTask(url: url, name: (index < names.count ? names[index] : nil) ?? options.defaultRequestName,
                                     iteration: iteration, method: options.method,
                                     body: options.body, headers: options.headers, clientHeaders: clientHeaders,
                                     redactedHeaders: redactedHeaders, redactor: redactor)
            try startHop(worker, multi: multi, gate: &gate)
            return true
        }

        /// Starts the hops that waited for a connection being set up (they do not enter the gate again),
        /// and lets libcurl send their requests at once, before any bookkeeping of this loop turn.
        func release(_ waiters: [Worker]) throws(TaskError) {
            for waiter in waiters { try startHop(waiter, multi: multi, gate: &gate, gated: false) }
            if !waiters.isEmpty { _ = multi.perform() }
        }
        /// Whether the worker's ready connection multiplexes: h2 through ALPN (read from the TLS
        /// session while the transfer runs; once it is done, from the response's HTTP version),
        /// or h2c by prior knowledge.
        func multiplexes(_ worker: Worker) -> Bool {
            guard worker.easy.schemeIsHTTPS else { return options.httpVersion == .http2PriorKnowledge }
            if let alpn = worker.easy.negotiatedALPN(), !alpn.isEmpty { return alpn == "h2" || alpn == "h3" }
            let version = worker.easy.long(CURLINFO_HTTP_VERSION)
            return version == Int(CURL_HTTP_VERSION_2_0) || version == Int(CURL_HTTP_VERSION_3)
        }

        while true {
            while let worker = idle.popLast() {
                if try startNext(worker) { active += 1 } else { idle.append(worker); break }
            }
            if active == 0 { break }
            _ = multi.perform()
            // A hop whose connection is ready (its request is about to leave) lets its origin's hops go.
            for id in gate.settingUpIDs {
                guard let worker = byID[id], worker.easy.requestStartMicros != nil else { continue }
                try release(gate.ready(id, multiplexed: multiplexes(worker)))
            }
            for (pointer, result) in multi.completedTransfers() {
                guard let worker = byHandle[pointer] else { continue }
                // Only a hop still setting up a connection concerns the gate (no TLS read for the others).
                let id = ObjectIdentifier(worker)
                if gate.isSettingUp(id) {
                    try release(worker.easy.requestStartMicros != nil ? gate.ready(id, multiplexed: multiplexes(worker)) : gate.ended(id))
                }
                // The connection's socket, for Alt-Svc's reuse rule: libcurl tells it only while the handle is in the multi.
                worker.activeSocket = altSvc != nil ? worker.easy.activeSocket : -1
                multi.remove(worker.easy)
                if try finishHop(worker, result: result, multi: multi, gate: &gate) {
                    active -= 1
                    if let task = worker.finishedTask {
                        if undelivered.isEmpty { undeliveredSince = monotonicMicroseconds() }
                        undelivered.append(task)
                    }
                    worker.finishedTask = nil
                    idle.append(worker)
                }
            }
            if !undelivered.isEmpty && (active == 0 || monotonicMicroseconds() - undeliveredSince >= 50_000) { deliver() }
            if !interrupted && shouldStop() {
                interrupted = true
                deliver()
                for worker in workers where worker.task != nil {
                    multi.remove(worker.easy)
                    if var task = worker.task {
                        task.error = TaskError(code: .interrupted, message: "the run was interrupted before this task finished")
                        onTask(task.finished(redactor: redactor))
                    }
                    worker.task = nil
                    active -= 1
                }
                break
            }
            // Wait for the network only when no idle worker has a task to start right away.
            if active > 0 && (idle.isEmpty || nextTask >= totalTasks) { multi.wait(timeoutMs: 100) }
        }
        return interrupted
    }

    // MARK: - Per-handle configuration

    private func configure(_ easy: EasyHandle) throws(TaskError) {
        try easy.configureTransport(options)
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_CERTINFO, 1)
        if let altSvc {
            // h3 alternatives only, as URLSession follows them; libcurl learns over https only.
            try easy.set(CURLOPT_ALTSVC_CTRL, Int(CURLALTSVC_H3))
            let file = try altSvc.handleFile()
            altSvcFiles.append(file)
            try easy.set(CURLOPT_ALTSVC, string: file)
        }
        // No CURLOPT_PIPEWAIT: the wait for a first connection's protocol is sonde's (OriginGate).
        if !options.reuseConnections {
            try easy.set(CURLOPT_FRESH_CONNECT, 1)
            try easy.set(CURLOPT_FORBID_REUSE, 1)
        }
    }

    /// Hands the worker's body chunks to the response capture and keeps them for the body judge
    /// (up to its bound; past it they are counted, not kept, and the transfer goes on).
    private func keepBodies(of worker: Worker) {
        let capture = options.responseCapture
        let judgedLimit = options.bodyJudge.map { max(0, $0.maxBodyBytes) }
        guard capture != nil || judgedLimit != nil else { return }
        worker.easy.bodyConsumer = { [unowned worker] chunk in
            if let judgedLimit { worker.keepJudged(chunk, limit: judgedLimit) }
            return capture?.append(chunk) ?? true
        }
    }

    /// The origin whose hops wait for a connection being set up under `--parallel`: one that may
    /// multiplex (h2 over TLS through ALPN, or h2c with prior knowledge). nil when hops to `url`
    /// never wait: one worker, `--no-reuse`, a proxy, or a protocol that cannot multiplex.
    private func gateOrigin(_ url: String) -> String? {
        guard options.parallel > 1, options.reuseConnections, options.proxy == nil,
              options.httpVersion != .http1_1, let parts = urlParts.parts(of: url) else { return nil }
        switch parts.scheme.lowercased() {
        case "https": return parts.origin
        case "http": return options.httpVersion == .http2PriorKnowledge ? parts.origin : nil
        default: return nil
        }
    }

    /// Starts the worker's current hop, or holds it in `gate` while another hop sets up a connection
    /// to its origin (`gated`: false for hops the gate released). The hop's clock starts when it
    /// is added to libcurl; the wait before that is its `queue`.
    private func startHop(_ worker: Worker, multi: MultiHandle, gate: inout OriginGate<Worker>, gated: Bool = true) throws(TaskError) {
        guard var task = worker.task else { return }
        if task.taskStartMonotonic == 0 {
            task.taskStartWall = Timestamp.now()
            task.taskStartMonotonic = monotonicMicroseconds()
        }
        if gated, let origin = gateOrigin(task.currentURL), !gate.admit(worker, id: ObjectIdentifier(worker), origin: origin) {
            if task.queueStartMonotonic == nil {
                task.queueStartWall = Timestamp.now()
                task.queueStartMonotonic = monotonicMicroseconds()
            }
            worker.task = task
            return
        }
        let easy = worker.easy
        easy.prepareForTransfer()
        options.responseCapture?.startHop()
        worker.judgedBody.removeAll(keepingCapacity: true)
        worker.judgedBodyExceeded = false
        try easy.setURL(task.currentURL)
        // Reset the method first: each of these options overrides the others.
        try easy.set(CURLOPT_NOBODY, task.method == "HEAD" ? 1 : 0)
        if task.method != "HEAD" { try easy.set(CURLOPT_HTTPGET, 1) }
        try easy.setRequestBody(task.body)
        let standard = task.method == "GET" || task.method == "HEAD" || (task.method == "POST" && task.body != nil)
        try easy.set(CURLOPT_CUSTOMREQUEST, string: standard ? nil : task.method)
        // Removing "Expect" stops libcurl from waiting for 100-continue before larger bodies.
        let removeExpect = task.body != nil && !task.headers.contains { $0.name.lowercased() == "expect" }
        try easy.setHeaders(task.headers, removing: removeExpect ? ["Expect"] : [])
        if let altSvc, let parts = urlParts.parts(of: task.currentURL) {
            // URLSession's rule: an open TCP connection is reused rather than an Alt-Svc alternative
            // opened; HTTP/2 leaves h3 alternatives out. Otherwise the run's own version, which allows them.
            if options.httpVersion == .automatic || options.httpVersion == .http3 {
                let keep = keepsOpenConnection(origin: parts.origin)
                let own = options.httpVersion == .http3 ? CURL_HTTP_VERSION_3 : CURL_HTTP_VERSION_NONE
                try easy.set(CURLOPT_HTTP_VERSION, Int(keep ? CURL_HTTP_VERSION_2TLS : own))
            }
            // An origin whose alternative did not answer is reached without one for the rest of
            // the run: a control that allows no protocol makes libcurl skip its Alt-Svc cache.
            let noAlternative = altSvc.usesNoAlternative(origin: parts.origin)
            try easy.set(CURLOPT_ALTSVC_CTRL, Int(noAlternative ? CURLALTSVC_READONLYFILE : CURLALTSVC_H3))
            // Which alternative libcurl takes, it says only in its verbose text (`alternativeFailure`).
            if !noAlternative && altSvc.mayUseAlternative(origin: parts.origin, host: parts.host, port: parts.port) {
                try easy.collectText()
            }
        }
        task.hopStartWall = Timestamp.now()
        task.hopStartMonotonic = monotonicMicroseconds()
        worker.task = task
        try multi.add(easy)
    }

    /// Whether `origin`'s last TCP connection is still open and idle in the pool: its socket is
    /// still a TCP socket with the local and remote ports it had (not a later socket under the
    /// same number), and a peek finds nothing to read. Anything there (a GOAWAY, a TLS
    /// close_notify, the end of the stream) is taken as the server closing: libcurl decides, and
    /// the origin's Alt-Svc alternative may be used. Never blocks, never consumes a byte.
    private func keepsOpenConnection(origin: String) -> Bool {
        guard let open = openConnectionByOrigin[origin] else { return false }
        var type: Int32 = 0
        var typeLength = socklen_t(MemoryLayout<Int32>.size)
        let isStream = getsockopt(open.socket, SOL_SOCKET, SO_TYPE, &type, &typeLength) == 0 && type == Int32(SOCK_STREAM.rawValue)
        func port(_ read: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> Int? {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let status = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(open.socket, $0, &length) } }
            return status == 0 ? socketPort(address) : nil
        }
        var byte: UInt8 = 0
        let same = isStream && port(getsockname) == open.localPort && port(getpeername) == open.remotePort
        let idle = same && recv(open.socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        if !idle { openConnectionByOrigin[origin] = nil }
        return idle
    }

    /// The task with each transaction's connection certificates (none for plain HTTP), parsing a
    /// connection's CURLINFO_CERTINFO lines once, on first use.
    private func withCertificates(_ task: ProbeTask) -> ProbeTask {
        var task = task
        for index in task.transactionMetrics.indices {
            guard let id = task.transactionMetrics[index].connectionID else { continue }
            if certificatesByConnection[id] == nil, let info = certificateInfoByConnection.removeValue(forKey: id) {
                certificatesByConnection[id] = CertificateInfoParser.parse(info)
            }
            let certificates = certificatesByConnection[id] ?? []
            // Plain HTTP has none: leave the task's transactions unwritten (a write would copy them).
            if certificates.isEmpty && task.transactionMetrics[index].peerCertificates.isEmpty { continue }
            task.transactionMetrics[index].peerCertificates = certificates
        }
        return task
    }

    /// Records the finished hop; starts the next hop of a redirect, or completes the task.
    /// - Returns: true when the task is complete (`worker.finishedTask` is set).
    private func finishHop(_ worker: Worker, result: CURLcode, multi: MultiHandle,
                           gate: inout OriginGate<Worker>) throws(TaskError) -> Bool {
        guard var task = worker.task else { return true }
        // Out of the worker while it changes, so that appending to its transactions does not copy them
        // (every path below puts it back or finishes it).
        worker.task = nil
        let easy = worker.easy
        options.responseCapture?.finishHop(headers: easy.responseHeaders)
        let (transaction, failure) = makeTransaction(easy: easy, task: task, result: result, activeSocket: worker.activeSocket)
        if let failure, task.altSvcFailure == nil,
           let alternativeFailed = alternativeFailure(easy: easy, task: task, transaction: transaction, failure: failure) {
            // The alternative did not answer: the same hop again, to the origin (startHop allows no alternative now).
            task.altSvcFailure = alternativeFailed
            worker.task = task
            try startHop(worker, multi: multi, gate: &gate)
            return false
        }
        task.altSvcFailure = nil
        task.transactions.append(transaction)
        task.queueStartWall = nil
        task.queueStartMonotonic = nil

        if let failure {
            task.error = failure
        } else if let status = transaction.response?.statusCode {
            let isRedirect = status == 301 || status == 302 || status == 303 || status == 307 || status == 308
            if isRedirect, let location = easy.string(CURLINFO_REDIRECT_URL), !location.isEmpty {
                if let allowed = options.redirectAllowed, !allowed(location) {  // CURLINFO_REDIRECT_URL is absolute
                    task.error = TaskError(code: .redirectRefused,
                                           message: "not following the redirect to \(redactor.redact(url: location)): outside what this run may reach")
                } else if task.redirectCount >= options.maxRedirects {
                    task.error = TaskError(code: .tooManyRedirects,
                                           message: "stopped after \(options.maxRedirects) redirects (raise --max-redirects to follow more); next was \(redactor.redact(url: location))")
                } else {
                    task.follow(location: location, status: status)
                    worker.task = task
                    try startHop(worker, multi: multi, gate: &gate)
                    return false
                }
            } else if let accepted = options.acceptedStatus {
                if !accepted.contains(status) {
                    task.error = TaskError(code: .httpStatus, message: "the server answered \(status), expected \(accepted)")
                }
            } else if status >= 400 {
                task.error = TaskError(code: .httpStatus, message: "the server answered \(status) \(reasonPhrase(status) ?? (status >= 500 ? "(server error)" : "(client error)"))")
            }
            // The body of a response that ends the task (not of a redirect it could not follow).
            if let judge = options.bodyJudge, (task.error?.code ?? .httpStatus) == .httpStatus {
                let response = JudgedResponse(status: status, headers: easy.responseHeaders, body: worker.judgedBody,
                                              bodyExceeded: worker.judgedBodyExceeded)
                task.error = judge.judge(response, statusFailure: task.error, redactor: redactor)
            }
        }
        worker.finishedTask = task.finished(redactor: redactor)
        worker.task = nil
        return true
    }

    /// The record of a hop that libcurl took to an Alt-Svc alternative (its verbose text says so)
    /// and that ended without a response, or nil for any other failure. Marks the alternative
    /// failed in the cache: its lines go, and the origin's later hops use no alternative.
    private func alternativeFailure(easy: EasyHandle, task: ActiveTask, transaction: TransactionMetrics,
                                    failure: TaskError) -> AltSvcFailure? {
        guard let altSvc, transaction.response == nil, failure.code != .interrupted, let parts = urlParts.parts(of: task.currentURL),
              let taken = AltSvcCache.alternativeTaken(libcurlText: easy.transferText) else { return nil }
        altSvc.markFailed(origin: parts.origin, originHost: parts.host, originPort: parts.port,
                          alternativeHost: taken.host, alternativePort: taken.port)
        return AltSvcFailure(source: altSvc.source(origin: parts.origin), alternative: AltSvcCache.authority(host: taken.host, port: taken.port),
                             error: failure, startedAt: task.hopStartWall,
                             durationMs: milliseconds(fromMicroseconds: max(0, easy.offset(CURLINFO_TOTAL_TIME_T))))
    }

    /// - Parameter activeSocket: CURLINFO_ACTIVESOCKET read before the handle left the multi
    ///   handle (libcurl answers it only while the handle is in one); -1 when not read.
    private func makeTransaction(easy: EasyHandle, task: ActiveTask, result: CURLcode, activeSocket: Int32) -> (TransactionMetrics, TaskError?) {
        let status = easy.long(CURLINFO_RESPONSE_CODE)
        let secure = easy.schemeIsHTTPS
        // libcurl's timers count from when it picked the transfer up, a little after sonde added it
        // (more on a loaded machine): anchor them there, at the request's start (the C shim's
        // CURLOPT_PREREQFUNCTION time) less libcurl's pretransfer offset, never before the add.
        // The pick-up delay is part of the queue. A transfer that never got that far keeps
        // sonde's own start. sonde's own instants are placed on that time base.
        let preTransfer = easy.offset(CURLINFO_PRETRANSFER_TIME_T)
        var anchor = task.hopStartMonotonic
        if let requestStart = easy.requestStartMicros, preTransfer > 0 {
            anchor = max(anchor, requestStart - preTransfer)
        }
        func sinceStart(_ instant: Int64?) -> Int64? { instant.map { $0 - anchor } }
        let timers = CurlTimers(
            nameLookup: easy.offset(CURLINFO_NAMELOOKUP_TIME_T), connect: easy.offset(CURLINFO_CONNECT_TIME_T),
            appConnect: easy.offset(CURLINFO_APPCONNECT_TIME_T), preTransfer: preTransfer,
            startTransfer: easy.offset(CURLINFO_STARTTRANSFER_TIME_T), total: easy.offset(CURLINFO_TOTAL_TIME_T),
            requestStart: sinceStart(easy.requestStartMicros), requestBodyEnd: sinceStart(easy.requestBodyEndMicros),
            firstResponseByte: sinceStart(easy.firstResponseByteMicros))
        let opened = easy.long(CURLINFO_NUM_CONNECTS) > 0
        let remoteAddress = easy.string(CURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 }
        let remotePort = easy.long(CURLINFO_PRIMARY_PORT)
        let localAddress = easy.string(CURLINFO_LOCAL_IP).flatMap { $0.isEmpty ? nil : $0 }
        let localPort = easy.long(CURLINFO_LOCAL_PORT)
        let usedConnection = localPort > 0 && (status > 0 || timers.preTransfer > 0)
        let reused = usedConnection && !opened

        var failure: TaskError? = nil
        var local = false
        if result != CURLE_OK {
            // An h3 alternative is tried over QUIC alone, as --http3-only is, and the failure is its own.
            let alternative = altSvc != nil ? AltSvcCache.alternativeTaken(libcurlText: easy.transferText) : nil
            var facts = easy.failureFacts(result, url: task.currentURL, redactor: redactor, viaProxy: options.proxy != nil,
                                          overQUIC: options.httpVersion == .http3Only || alternative != nil)
            if let alternative { facts.remote = AltSvcCache.authority(host: alternative.host, port: alternative.port) }
            failure = CurlErrorClassifier.classify(facts)
            local = facts.isLocal
            if easy.decodedBodyLimitExceeded, let limit = easy.decodedBodyLimit {
                failure = TaskError(code: .contentDecodingFailed,
                                    message: "the body decoded to \(easy.bodyBytesReceived) bytes, more than \(limit.ratio)× what came off the wire "
                                        + "(or more than \(limit.maxBytes >> 20) MiB): cut as a decompression bomb",
                                    curlCode: Int(result.rawValue), reason: "decodedTooLarge")
                local = false
            }
        }
        let timing = TransactionTiming(timers: timers, reused: reused, secure: secure, completed: result == CURLE_OK,
                                       networkStarted: !local)
        let start = task.hopStartWall.adding(microseconds: anchor - task.hopStartMonotonic)
        func date(_ offset: Int64?) -> Timestamp? { offset.map { start.adding(microseconds: $0) } }

        let version = easy.long(CURLINFO_HTTP_VERSION)
        let protocolName: String?
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): protocolName = "http/1.0"
        case Int(CURL_HTTP_VERSION_1_1): protocolName = "http/1.1"
        case Int(CURL_HTTP_VERSION_2_0): protocolName = secure ? "h2" : "h2c"
        case Int(CURL_HTTP_VERSION_3): protocolName = "h3"
        default: protocolName = nil
        }
        var connectionID: Int? = nil
        var fallback: HTTP3Fallback? = nil
        if usedConnection {
            let id: Int
            if let curlID = easy.offset(ifAvailable: .connectionID), curlID >= 0 {
                id = registry.connectionID(ConnectionRegistry.PooledID(pool: pool, curlID: curlID))
            } else {
                id = registry.connectionID(tuple: ConnectionRegistry.FourTuple(localAddress: localAddress, localPort: localPort,
                                                                               remoteAddress: remoteAddress, remotePort: remotePort),
                                           opened: opened)
            }
            connectionID = id
            // Read while libcurl has them; parsed when the task is handed on (`withCertificates`).
            if secure && opened { certificateInfoByConnection[id] = easy.certificateInfo() }
            // An --http3 race whose connection is not QUIC fell back: say why, on every transaction it carries.
            if options.httpVersion == .http3 {
                if opened, let protocolName, protocolName != "h3" {
                    fallbackByConnection[id] = easy.quicAttempt.fallback
                }
                fallback = fallbackByConnection[id]
            }
        }
        let responseHeaders = status > 0 ? responseRedaction.redact(easy.responseHeaders) : []
        var altSvcUse: AltSvcUse? = nil
        if let altSvc, secure, usedConnection, let origin = urlParts.parts(of: task.currentURL) {
            if let id = connectionID {
                // Not asked for h3, yet on QUIC: the origin's Alt-Svc led there.
                if opened && protocolName == "h3" && !options.httpVersion.wantsHTTP3 {
                    altSvcByConnection[id] = altSvc.use(origin: origin.origin, originHost: origin.host,
                                                        remoteHost: remoteAddress, remotePort: remotePort)
                }
                altSvcUse = altSvcByConnection[id]
            }
            // After the use above: an h3 response advertising h3 again is not why it is h3.
            let advertised = responseHeaders.filter { $0.name.lowercased() == "alt-svc" }.map(\.value)
            if !advertised.isEmpty {
                altSvc.record(origin: origin.origin, header: advertised.joined(separator: ", "), connectionID: connectionID,
                              protocolName: protocolName, at: date(timing.responseStart))
            }
            if result == CURLE_OK && protocolName != "h3" {
                openConnectionByOrigin[origin.origin] = activeSocket >= 0
                    ? OpenConnection(socket: activeSocket, localPort: localPort, remotePort: remotePort) : nil
            }
        }
        let tls = secure ? easy.tls : nil
        let fresh = !reused
        var transaction = TransactionMetrics(
            request: RequestRecord(method: task.method, url: redactor.redact(url: task.currentURL),
                                   headers: task.redactedHeaders),
            response: status > 0 ? ResponseRecord(statusCode: status, headers: responseHeaders) : nil,
            fetchStartDate: task.queueStartWall ?? task.hopStartWall,
            domainLookupStartDate: fresh && timing.dnsEnd != nil ? start : nil,
            domainLookupEndDate: fresh ? date(timing.dnsEnd) : nil,
            connectStartDate: fresh ? date(timing.dnsEnd) : nil,
            secureConnectionStartDate: fresh && timing.tlsEnd != nil ? date(timing.connectEnd) : nil,
            secureConnectionEndDate: fresh ? date(timing.tlsEnd) : nil,
            connectEndDate: fresh ? date(secure ? timing.tlsEnd : timing.connectEnd) : nil,
            requestStartDate: date(timing.requestStart),
            requestEndDate: date(timing.requestEnd),
            responseStartDate: date(timing.responseStart),
            responseEndDate: result == CURLE_OK ? date(timing.responseEnd) : nil,
            networkProtocolName: status > 0 ? protocolName : nil,
            queue: milliseconds(fromMicroseconds: anchor - (task.queueStartMonotonic ?? task.hopStartMonotonic)),
            libcurlQueue: easy.offset(ifAvailable: .queueTime).map { milliseconds(fromMicroseconds: max(0, $0)) },
            isReusedConnection: reused,
            isProxyConnection: options.proxy != nil,
            connectionID: connectionID,
            http3Fallback: fallback,
            altSvc: altSvcUse,
            altSvcFailure: task.altSvcFailure,
            remoteAddress: remoteAddress, remotePort: remotePort > 0 ? remotePort : nil,
            localAddress: localAddress, localPort: localPort > 0 ? localPort : nil,
            negotiatedTLSProtocolVersion: tls?.version, negotiatedTLSCipherSuite: tls?.cipher,
            tlsSessionReused: tls.map { $0.sessionReused },
            countOfRequestHeaderBytesSent: Int64(easy.long(CURLINFO_REQUEST_SIZE)),
            countOfRequestBodyBytesSent: easy.offset(CURLINFO_SIZE_UPLOAD_T),
            countOfResponseHeaderBytesReceived: Int64(easy.long(CURLINFO_HEADER_SIZE)),
            countOfResponseBodyBytesReceived: easy.decodedBodyLimit == nil ? easy.bodyBytesReceived : easy.offset(CURLINFO_SIZE_DOWNLOAD_T),
            phases: timing.phases)
        transaction.countOfResponseBodyBytesAfterDecoding = easy.bodyBytesReceived
        transaction.contentEncoding = responseHeaders.last { asciiCaseInsensitiveEqual($0.name, "content-encoding") }?.value
        return (transaction, failure)
    }
}

/// A TCP connection left open in the pool: its socket and the ports it had.
private struct OpenConnection {
    var socket: Int32
    var localPort: Int
    var remotePort: Int
}

/// The port of an IPv4 or IPv6 socket address (host byte order); 0 for another family.
private func socketPort(_ address: sockaddr_storage) -> Int {
    var copy = address
    return withUnsafePointer(to: &copy) { pointer in
        switch Int32(address.ss_family) {
        case AF_INET: return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        case AF_INET6: return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
        default: return 0
        }
    }
}

/// One easy handle and the task it is running.
private final class Worker {
    let easy: EasyHandle
    var task: ActiveTask?
    var finishedTask: ProbeTask?
    /// The last finished hop's CURLINFO_ACTIVESOCKET (-1: none, or not read).
    var activeSocket: Int32 = -1
    /// The current hop's body, up to the body judge's bound (`ProbeOptions.bodyJudge`).
    var judgedBody: [UInt8] = []
    /// The current hop's body went past that bound.
    var judgedBodyExceeded = false
    init(easy: EasyHandle) { self.easy = easy }

    /// Keeps a body chunk up to `limit` bytes in all; past it, notes that the body exceeded it.
    func keepJudged(_ chunk: UnsafeRawBufferPointer, limit: Int) {
        let room = limit - judgedBody.count
        if chunk.count > room { judgedBodyExceeded = true }
        if room > 0 { judgedBody += chunk.prefix(room) }
    }
}

/// A task in flight: where it is in its redirect chain and what it has recorded so far.
private struct ActiveTask {
    let url: String
    /// The name the user gave the URL; nil: its default (`RequestName.defaultName`).
    let name: String?
    let iteration: Int
    var currentURL: String
    var method: String
    var body: [UInt8]?
    /// The request headers sent; `redactedHeaders` is what the report shows of them, with the
    /// ones libcurl adds for the client profile (`clientHeaders`).
    var headers: [HeaderField] { didSet { redactedHeaders = redactor.redact(headers: headers + clientHeaders) } }
    let clientHeaders: [HeaderField]
    private(set) var redactedHeaders: [HeaderField]
    let redactor: Redactor
    var transactions: [TransactionMetrics] = []
    var redirectCount = 0
    var error: TaskError? = nil
    var taskStartWall = Timestamp(microsecondsSince1970: 0)
    var taskStartMonotonic: Int64 = 0
    /// When the current hop was added to libcurl: the origin of its phases and dates.
    var hopStartWall = Timestamp(microsecondsSince1970: 0)
    var hopStartMonotonic: Int64 = 0
    /// When the current hop began to wait in the gate; nil when it did not wait.
    var queueStartWall: Timestamp? = nil
    var queueStartMonotonic: Int64? = nil
    /// The current hop's attempt on an Alt-Svc alternative that failed (it is being tried again
    /// without one); recorded on the hop's transaction.
    var altSvcFailure: AltSvcFailure? = nil

    /// The method the task began with (a redirect may change `method`): its default name's.
    let firstMethod: String

    init(url: String, name: String?, iteration: Int, method: String, body: [UInt8]?, headers: [HeaderField], clientHeaders: [HeaderField],
         redactedHeaders: [HeaderField], redactor: Redactor) {
        self.name = name
        firstMethod = method
        self.clientHeaders = clientHeaders
        self.url = url
        self.iteration = iteration
        self.currentURL = url
        self.method = method
        self.body = body
        self.headers = headers
        self.redactedHeaders = redactedHeaders
        self.redactor = redactor
    }

    /// Moves to the redirect target with the method and headers a browser (and URLSession) would use:
    /// 303 turns anything but HEAD into GET, 301/302 turn POST into GET, 307/308 keep both;
    /// credentials and cookies are dropped when the redirect leaves the origin.
    mutating func follow(location: String, status: Int) {
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            method = "GET"
            body = nil
            headers.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) }
        }
        if URLParts(location)?.origin != URLParts(currentURL)?.origin {
            headers.removeAll { ["authorization", "cookie", "proxy-authorization"].contains($0.name.lowercased()) }
        }
        currentURL = location
        redirectCount += 1
    }

    func finished(redactor: Redactor) -> ProbeTask {
        let duration = milliseconds(fromMicroseconds: monotonicMicroseconds() - taskStartMonotonic)
        let shownURL = redactor.redact(url: url)
        return ProbeTask(url: shownURL, iteration: iteration,
                         taskInterval: TaskInterval(start: taskStartWall, durationMs: taskStartMonotonic == 0 ? 0 : duration),
                         redirectCount: redirectCount, error: error, transactionMetrics: transactions,
                         name: name ?? RequestName.defaultName(method: firstMethod, url: shownURL))
    }
}
