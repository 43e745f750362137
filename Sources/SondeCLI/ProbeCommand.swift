import ArgumentParser
import Foundation
import SondeCore
import SondeHTTP
import SondeRun

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

    @Option(name: .shortAndLong, help: "Fetch each URL this many times on the same connection pool (the first is cold, the rest can be warm; default 1).")
    var count: Int?
    @Option(name: .long, help: "Run this many tasks at once through one curl multi handle (HTTP/2 multiplexes when it can; default 1).")
    var parallel: Int?
    @Flag(help: "The HTTP version (default: HTTP/2 over TLS when ALPN offers it, HTTP/1.1 in cleartext).")
    var httpVersion: HTTPVersionFlag?

    @Option(name: [.customShort("X"), .customLong("request")], help: "The request method.")
    var method: String?
    @OptionGroup var headers: HeaderOptions
    @Option(name: [.customShort("d"), .customLong("data")], help: "Send this request body (POST unless -X says otherwise).")
    var data: String?
    @Option(name: .customLong("data-file"), help: "Send the contents of this file as the request body.")
    var dataFile: String?

    @Option(name: [.customShort("m"), .customLong("timeout")], help: ArgumentHelp(
        "How long one transfer (each hop of a redirect chain) may take before it fails as timed out, e.g. 500ms, 30s, 2m "
            + "(a bare number means seconds); at most 24h, 0 for no limit (default 30s).",
        valueName: "duration"))
    var timeout: DurationValue?
    @OptionGroup var connectTimeout: ConnectTimeoutOption

    @OptionGroup var tls: TLSOptions
    @Option(name: .customLong("pinned-pubkey"), help: "Require this public key: a PEM/DER file or sha256//BASE64 hashes separated by ';'.")
    var pinnedPubkey: String?

    @Flag var ipVersion: IPVersionFlag?
    @OptionGroup var resolve: ResolveOption
    @Option(name: .customLong("doh-url"), help: "Resolve names with DNS-over-HTTPS through this resolver URL.")
    var dohURL: String?
    @Option(name: [.customShort("x"), .customLong("proxy")], help: "Use this proxy (environment proxy variables are ignored).")
    var proxy: String?

    @Flag(name: .customLong("no-reuse"), help: "Open a fresh connection for every task and close it afterwards.")
    var noReuse = false
    @Option(name: .customLong("alt-svc"), help: ArgumentHelp(
        "Keep the Alt-Svc cache in this file across runs (libcurl's format; read at the start, written at the end). "
            + "Without it the cache lasts for the run.", valueName: "file"))
    var altSvc: String?
    @Flag(name: .customLong("no-alt-svc"), help: "Never follow an origin's Alt-Svc advertisement to HTTP/3 (by default a new connection goes to h3 once the origin advertised it, as URLSession does).")
    var noAltSvc = false
    @Option(name: .customLong("max-redirects"), help: "Follow at most this many redirects per task (default 10).")
    var maxRedirects: Int?
    @Option(name: .customLong("expect-status"), help: "Final status codes that count as success, e.g. 200-299,404 (default: any below 400).")
    var expectStatus: String?

    @OptionGroup var capture: CaptureOption
    @Option(name: .customLong("keylog"), help: ArgumentHelp(
        "Write the TLS secrets of every connection to this file (SSLKEYLOGFILE format) so Wireshark can decrypt the capture. Off by default; recorded in the report.",
        valueName: "file"))
    var keylog: String?

    @OptionGroup var printSuite: PrintSuiteOption
    @OptionGroup var report: ReportOptions

    /// The check this command line describes (its `--threshold`s are the check's own).
    var spec: ProbeSpec {
        var spec = ProbeSpec(urls: urls)
        spec.count = count
        spec.parallel = parallel
        spec.httpVersion = httpVersion?.preference
        spec.request = method
        headers.apply(to: &spec)
        spec.data = data
        spec.dataFile = dataFile
        spec.timeout = timeout
        connectTimeout.apply(to: &spec)
        tls.apply(to: &spec)
        spec.pinnedPubkey = pinnedPubkey
        spec.ipVersion = ipVersion?.preference
        resolve.apply(to: &spec)
        spec.dohURL = dohURL
        spec.proxy = proxy
        if noReuse { spec.noReuse = true }
        spec.altSvc = altSvc
        if noAltSvc { spec.noAltSvc = true }
        spec.maxRedirects = maxRedirects
        spec.expectStatus = expectStatus
        return spec
    }

    func validate() throws {
        try spec.validateForCommandLine()
    }

    /// The engine's options of this command line.
    func makeOptions() throws -> ProbeOptions {
        do throws(SpecProblem) { return try spec.makeOptions() } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        if printSuite.printSuite {
            try SuitePrinter.print(.probe(spec), thresholds: report.thresholdExpressions, redactor: report.redactor)
            return
        }
        if let keylog {
            // Before anything else touches libcurl: it reads SSLKEYLOGFILE once, at initialisation.
            do throws(TaskError) { try CurlLibrary.enableKeyLog(path: keylog) } catch {
                printError("sonde probe: \(error.message)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
        var runner = ProbeCheckRunner(groups: [ProbeGroup(urls: urls, options: try makeOptions())])
        if let keylog {
            runner.extraWarnings.append("TLS secrets were written to \(keylog) (--keylog): with that file, anyone can decrypt this run's capture.")
        }
        let status = await CheckDriver(command: "probe", arguments: Array(CommandLine.arguments.dropFirst()), settings: report.settings,
                                       capture: capture.mode)
            .run([PlannedCheck(name: nil, runner: .probe(runner))])
        throw ExitCode(status.rawValue)
    }
}
