import ArgumentParser
import SondeCore
import SondeRun
import SondeSuite
import SondeSSE

struct StreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Read a Server-Sent Events stream as EventSource does: first event, gaps, bursts, reconnects, lost ids.",
        discussion: """
        Example: sonde stream https://example.org/events --duration 2m --streams 4 --http2 --stamp-field sent
        A line per connection, reconnect, burst and lost id as they happen; the figures at the end and in \
        <output-dir>/<run-id>/report.json (streams). Reference: docs/sse.md.
        """)

    @Argument(help: "The event stream's URL (http:// or https://).") var url: String

    @Option(name: .key(.streamDuration), help: .key(.streamDuration)) var duration: DurationValue?
    @Option(name: .key(.streams), help: .key(.streams)) var streams: Int?
    @Option(name: .key(.events), help: .key(.events)) var events: Int?
    @Flag(name: .key(.reconnect), inversion: .prefixedNo, help: .key(.reconnect)) var reconnect = true
    @Option(name: .key(.retry), help: .key(.retry)) var retry: DurationValue?
    @Option(name: .key(.stampField), help: .key(.stampField)) var stampField: String?
    @Option(name: .key(.maxEventSize), help: .key(.maxEventSize)) var maxEventSize: SizeValue?
    @Flag var httpVersion: HTTPVersionFlag?
    @Option(name: .key(.client), help: .key(.client)) var client: String?
    @OptionGroup var headers: HeaderOptions
    @OptionGroup var connectTimeout: ConnectTimeoutOption
    @OptionGroup var link: LinkOption
    @OptionGroup var tls: TLSOptions
    @OptionGroup var capture: CaptureOption
    @OptionGroup var printSuite: PrintSuiteOption
    @OptionGroup var progress: ProgressOption
    @OptionGroup var report: ReportOptions

    /// The check this command line describes.
    var spec: StreamSpec {
        var spec = StreamSpec(url: url)
        spec.duration = duration
        spec.streams = streams
        spec.events = events
        if !reconnect { spec.reconnect = false }
        spec.retry = retry
        spec.stampField = stampField
        spec.maxEventSize = maxEventSize
        spec.httpVersion = httpVersion?.preference
        spec.client = client
        headers.apply(to: &spec)
        connectTimeout.apply(to: &spec)
        link.apply(to: &spec)
        tls.apply(to: &spec)
        if !report.thresholdExpressions.isEmpty { spec.thresholds = report.thresholdExpressions }
        return spec
    }

    func validate() throws {
        if let problem = spec.problems().first { throw ValidationError(problem.description) }
    }

    func run() async throws {
        let spec = self.spec
        let redactor = report.redactor
        if printSuite.printSuite {
            try SuitePrinter.print(spec, thresholds: report.thresholdExpressions, redactor: redactor)
            return
        }
        let runner = StreamCheckRunner(options: spec.makeOptions(), displayURL: redactor.redact(url: url))
        let status = await CheckDriver(command: "stream", arguments: redactor.redact(arguments: Array(CommandLine.arguments.dropFirst())),
                                       settings: progress.applied(to: report.settings), capture: capture.mode)
            .run([PlannedCheck(name: nil, link: spec.linkProfile, runner: runner)])
        throw ExitCode(status.rawValue)
    }
}
