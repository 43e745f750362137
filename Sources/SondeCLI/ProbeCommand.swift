import ArgumentParser
import Foundation
import SondeCore
import SondeGraphQL
import SondeHTTP
import SondeRun
import SondeSuite

struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Fetch URLs through libcurl and record URLSessionTaskMetrics-style timing for every transaction.",
        discussion: """
        Example: sonde probe https://example.org/ --count 5
        Every run writes <output-dir>/<run-id>/report.json, report.html and journal.jsonl.
        """)

    @Argument(help: .key(.urls)) var urls: [String]
    /// Only the `--name`s `PositionalRuns` could not bind to a URL reach this (and are refused):
    /// the others arrive with their URLs, in `urls`.
    @Option(name: .customLong(String(PositionalRuns.nameOption.dropFirst(2))), help: ArgumentHelp(
        "The name of the URL right after it, in the per-request results and thresholds' selectors "
            + "(e.g. --name login https://api.example.com/login; default: the method and the URL without its query).",
        valueName: "name"))
    var names: [String] = []
    /// The URLs with their names (`validate` fills it from `urls`).
    var requests: [ProbeRequest] = []

    @Option(name: .key(.count), help: .key(.count)) var count: Int?
    @Option(name: .key(.parallel), help: .key(.parallel)) var parallel: Int?
    @Flag var httpVersion: HTTPVersionFlag?

    @Option(name: .key(.request), help: .key(.request)) var method: String?
    @OptionGroup var headers: HeaderOptions
    @Option(name: .key(.data), help: .key(.data)) var data: String?
    @Option(name: .key(.dataFile), help: .key(.dataFile)) var dataFile: String?
    @OptionGroup var graphql: GraphQLOperationOptions

    @Option(name: .key(.timeout), help: .key(.timeout)) var timeout: DurationValue?
    @OptionGroup var connectTimeout: ConnectTimeoutOption
    @OptionGroup var link: LinkOption

    @OptionGroup var tls: TLSOptions
    @Option(name: .key(.pinnedPubkey), help: .key(.pinnedPubkey)) var pinnedPubkey: String?

    @Flag var ipVersion: IPVersionFlag?
    @OptionGroup var resolve: ResolveOption
    @Option(name: .key(.dohURL), help: .key(.dohURL)) var dohURL: String?
    @Option(name: .key(.proxy), help: .key(.proxy)) var proxy: String?

    @Flag(name: .key(.noReuse), help: .key(.noReuse)) var noReuse = false
    @Option(name: .key(.altSvc), help: .key(.altSvc)) var altSvc: String?
    @Flag(name: .key(.noAltSvc), help: .key(.noAltSvc)) var noAltSvc = false
    @Option(name: .key(.maxRedirects), help: .key(.maxRedirects)) var maxRedirects: Int?
    @Option(name: .key(.expectStatus), help: .key(.expectStatus)) var expectStatus: String?
    @Option(name: .key(.client), help: .key(.client)) var client: String?

    @OptionGroup var capture: CaptureOption
    @Option(name: .customLong("keylog"), help: ArgumentHelp(
        "Write the TLS secrets of every connection to this file (SSLKEYLOGFILE format) so Wireshark can decrypt the capture. Off by default; recorded in the report.",
        valueName: "file"))
    var keylog: String?

    @OptionGroup var printSuite: PrintSuiteOption
    @OptionGroup var progress: ProgressOption
    @OptionGroup var report: ReportOptions

    /// The check this command line describes (its `--threshold`s are the check's own).
    var spec: ProbeSpec {
        var spec = ProbeSpec(requests: requests)
        spec.count = count
        spec.parallel = parallel
        spec.httpVersion = httpVersion?.preference
        spec.request = method
        headers.apply(to: &spec)
        spec.data = data
        spec.dataFile = dataFile
        graphql.apply(to: &spec)
        spec.timeout = timeout
        connectTimeout.apply(to: &spec)
        link.apply(to: &spec)
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
        spec.client = client
        return spec
    }

    mutating func validate() throws {
        if let unbound = names.first {
            throw ValidationError(unbound.isEmpty ? "--name cannot be empty: give the name of the URL after it"
                : "--name \(unbound) names no URL: give it right before the URL it names (--name \(unbound) https://…)")
        }
        // Once: the parser calls this, and a caller may again (the URLs are split by then).
        if requests.map(\.url) != urls {
            let named = PositionalRuns.splitNamed(urls)
            urls = named.map(\.value)
            requests = named.map { ProbeRequest(url: $0.value, name: $0.name) }
        }
        try spec.validateForCommandLine()
    }

    /// The engine's options of this command line.
    func makeOptions() throws -> ProbeOptions {
        do throws(SpecProblem) { return try spec.makeOptions(redactor: report.redactor) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        if printSuite.printSuite {
            try SuitePrinter.print(spec, thresholds: report.thresholdExpressions, redactor: report.redactor)
            return
        }
        if let keylog {
            // Before anything else touches libcurl: it reads SSLKEYLOGFILE once, at initialisation.
            do throws(TaskError) { try CurlLibrary.enableKeyLog(path: keylog) } catch {
                printError("sonde probe: \(error.message)")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        }
        var runner = ProbeCheckRunner(groups: [ProbeGroup(requests: requests, options: try makeOptions())])
        if let keylog {
            runner.extraWarnings.append("TLS secrets were written to \(keylog) (--keylog): with that file, anyone can decrypt this run's capture.")
        }
        let status = await CheckDriver(command: "probe", arguments: Array(CommandLine.arguments.dropFirst()), settings: progress.applied(to: report.settings),
                                       capture: capture.mode)
            .run([PlannedCheck(name: nil, link: spec.linkProfile, runner: runner)])
        throw ExitCode(status.rawValue)
    }
}
