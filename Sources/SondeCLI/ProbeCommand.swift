import ArgumentParser
import Foundation
import SondeCore
import SondeRun
import SondeHTTP

struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Fetch URLs through libcurl and record URLSessionTaskMetrics-style timing for every transaction.",
        discussion: """
        Example: sonde probe https://example.org/ --count 5
        Every run writes <output-dir>/<run-id>/report.json, report.html and journal.jsonl.
        """)

    @Argument(help: "The URLs to fetch (http:// or https://).")
    var urls: [String]

    @Option(name: .shortAndLong, help: "Fetch each URL this many times on the same connection pool (the first is cold, the rest can be warm).")
    var count = 1

    @Option(name: .long, help: "Run this many tasks at once through one curl multi handle (HTTP/2 multiplexes when it can).")
    var parallel = 1

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1.")
    var http11 = false
    @Flag(name: .customLong("http2"), help: "Use HTTP/2 over TLS through ALPN (HTTP/1.1 for http://).")
    var http2 = false
    @Flag(name: .customLong("http2-prior-knowledge"), help: "Use HTTP/2 in cleartext without upgrade (h2c).")
    var http2PriorKnowledge = false
    @Flag(name: .customLong("http3"), help: "Use HTTP/3, racing QUIC against TCP and falling back to HTTP/2 or 1.1 (needs a libcurl built with QUIC; see sonde version).")
    var http3 = false
    @Flag(name: .customLong("http3-only"), help: "Use HTTP/3 over QUIC only, without fallback (needs a libcurl built with QUIC).")
    var http3Only = false

    @Option(name: [.customShort("X"), .customLong("request")], help: "The request method.")
    var method: String?
    @Option(name: [.customShort("H"), .customLong("header")], help: "Add a request header, 'Name: value' (repeatable).")
    var headers: [String] = []
    @Option(name: [.customShort("d"), .customLong("data")], help: "Send this request body (POST unless -X says otherwise).")
    var data: String?
    @Option(name: .customLong("data-file"), help: "Send the contents of this file as the request body.")
    var dataFile: String?

    @Option(name: [.customShort("m"), .customLong("timeout")], help: ArgumentHelp(
        "How long one transfer (each hop of a redirect chain) may take before it fails as timed out, e.g. 500ms, 30s, 2m "
            + "(a bare number means seconds); at most 24h, 0 for no limit.",
        valueName: "duration"))
    var timeout = DurationValue(seconds: ProbeCommand.defaultTimeoutS)
    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp("How long the TCP and TLS connect may take, e.g. 5s (at most 24h).",
                                                                     valueName: "duration"))
    var connectTimeout: DurationValue?

    /// A silent server holds a hop this long at most unless --timeout says otherwise (s).
    static let defaultTimeoutS = 30.0
    /// The longest --timeout and --connect-timeout (s): a day.
    static let maxTimeoutS = 86_400.0

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify the server's TLS certificate (recorded in the report).")
    var insecure = false
    @Option(name: .customLong("cacert"), help: "Trust the CA certificates in this PEM file.")
    var caCert: String?
    @Option(name: .customLong("pinned-pubkey"), help: "Require this public key: a PEM/DER file or sha256//BASE64 hashes separated by ';'.")
    var pinnedPubkey: String?

    @Flag(name: [.customShort("4"), .customLong("ipv4")], help: "Resolve names to IPv4 addresses only.")
    var ipv4 = false
    @Flag(name: [.customShort("6"), .customLong("ipv6")], help: "Resolve names to IPv6 addresses only.")
    var ipv6 = false
    @Option(name: .customLong("resolve"), help: "Use this address for host:port, as host:port:address (repeatable).")
    var resolve: [String] = []
    @Option(name: .customLong("doh-url"), help: "Resolve names with DNS-over-HTTPS through this resolver URL.")
    var dohURL: String?
    @Option(name: [.customShort("x"), .customLong("proxy")], help: "Use this proxy (environment proxy variables are ignored).")
    var proxy: String?

    @Flag(name: .customLong("no-reuse"), help: "Open a fresh connection for every task and close it afterwards.")
    var noReuse = false
    @Option(name: .customLong("max-redirects"), help: "Follow at most this many redirects per task.")
    var maxRedirects = 10
    @Option(name: .customLong("expect-status"), help: "Final status codes that count as success, e.g. 200-299,404 (default: any below 400).")
    var expectStatus: String?

    @Option(name: .customLong("capture"), help: CaptureSession.help)
    var capture: String?
    @Option(name: .customLong("keylog"), help: ArgumentHelp(
        "Write the TLS secrets of every connection to this file (SSLKEYLOGFILE format) so Wireshark can decrypt the capture. Off by default; recorded in the report.",
        valueName: "file"))
    var keylog: String?

    @OptionGroup var report: ReportOptions

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one URL") }
        guard (1...10_000_000).contains(count) else { throw ValidationError("--count must be between 1 and 10000000") }
        guard (1...1024).contains(parallel) else { throw ValidationError("--parallel must be between 1 and 1024") }
        guard (0...1000).contains(maxRedirects) else { throw ValidationError("--max-redirects must be between 0 and 1000") }
        let versions = [http11, http2, http2PriorKnowledge, http3, http3Only].filter { $0 }.count
        guard versions <= 1 else { throw ValidationError("choose one of --http1.1, --http2, --http2-prior-knowledge, --http3, --http3-only") }
        guard !(ipv4 && ipv6) else { throw ValidationError("choose one of -4 and -6") }
        guard data == nil || dataFile == nil else { throw ValidationError("choose one of --data and --data-file") }
        guard timeout.seconds <= Self.maxTimeoutS else {
            throw ValidationError("--timeout must be at most 86400 seconds (24 hours); 0 means no limit")
        }
        if let connectTimeout {
            guard connectTimeout.seconds > 0 else { throw ValidationError("--connect-timeout must be longer than 0") }
            guard connectTimeout.seconds <= Self.maxTimeoutS else { throw ValidationError("--connect-timeout must be at most 86400 seconds (24 hours)") }
        }
        if let expectStatus, StatusSet(parsing: expectStatus) == nil {
            throw ValidationError("--expect-status '\(expectStatus)' is not a list of status codes or ranges like 200-299,404")
        }
        _ = try parseHeaderArguments(headers)
        try CaptureSession.validate(capture)
        for entry in resolve where entry.split(separator: ":", omittingEmptySubsequences: false).count < 3 {
            throw ValidationError("--resolve '\(entry)' is not of the form host:port:address")
        }
        if let method, method.isEmpty || method.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }) {
            throw ValidationError("-X '\(method)' is not a valid method")
        }
    }

    func makeOptions() throws -> ProbeOptions {
        var options = ProbeOptions()
        options.count = count
        options.parallel = parallel
        if http11 { options.httpVersion = .http1_1 }
        if http2 { options.httpVersion = .http2 }
        if http2PriorKnowledge { options.httpVersion = .http2PriorKnowledge }
        if http3 { options.httpVersion = .http3 }
        if http3Only { options.httpVersion = .http3Only }
        options.headers = try parseHeaderArguments(headers)
        if let data { options.body = Array(data.utf8) }
        if let dataFile {
            guard let contents = FileManager.default.contents(atPath: dataFile) else {
                throw ValidationError("cannot read --data-file \(dataFile): no such file, or not readable")
            }
            options.body = Array(contents)
        }
        options.method = method?.uppercased() ?? (options.body == nil ? "GET" : "POST")
        // `validate` bounded both to a day: the products fit any Int.
        options.timeoutMs = timeout.seconds == 0 ? nil : max(1, Int((timeout.seconds * 1000).rounded()))
        options.connectTimeoutMs = connectTimeout.map { max(1, Int(($0.seconds * 1000).rounded())) }
        options.insecure = insecure
        if let caCert {
            guard FileManager.default.isReadableFile(atPath: caCert) else {
                throw ValidationError("cannot read --cacert \(caCert): no such file, or not readable")
            }
            options.caCertPath = caCert
        }
        options.pinnedPublicKey = pinnedPubkey
        options.ipVersion = ipv4 ? .v4 : (ipv6 ? .v6 : .any)
        options.resolve = resolve
        options.dohURL = dohURL
        options.proxy = proxy
        options.reuseConnections = !noReuse
        options.maxRedirects = maxRedirects
        options.acceptedStatus = expectStatus.flatMap(StatusSet.init(parsing:))
        return options
    }

    func run() async throws {
        if let keylog {
            // Before anything else touches libcurl: it reads SSLKEYLOGFILE once, at initialisation.
            do throws(TaskError) { try CurlLibrary.enableKeyLog(path: keylog) } catch {
                printError("sonde probe: \(error.message)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
        let options = try makeOptions()
        var session = ProbeSession(command: "probe", arguments: Array(CommandLine.arguments.dropFirst()), report: report)
        session.capture = capture.flatMap(CaptureSession.Mode.init(rawValue:))
        if let keylog {
            session.extraWarnings.append("TLS secrets were written to \(keylog) (--keylog): with that file, anyone can decrypt this run's capture.")
        }
        let status = await session.run(groups: [ProbeGroup(urls: urls, options: options)])
        throw ExitCode(status.rawValue)
    }
}
