import ArgumentParser
import Foundation
import SondeCore
import SondeGraphQL
import SondeRun
import SondeSuite
import SondeReport
import SondeWebSocket

struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Hold WebSocket connections for a while: keepalive pings, echo messages, reconnects with backoff.",
        discussion: """
        Example: sonde soak wss://example.org/socket --duration 10m --ping-interval 25s --message-rate 1
        Durations take a unit: 250ms, 10s, 5m, 1h (a bare number means seconds).
        Events stream to <output-dir>/<run-id>/journal.jsonl as they happen; Ctrl-C closes every
        connection with 1000 and writes the report; after a kill, `sonde report <run-folder>` rebuilds it.
        """)

    @Argument(help: "The WebSocket URL (ws:// or wss://).") var url: String

    @Option(name: .key(.duration), help: .key(.duration)) var duration: DurationValue?
    @Option(name: .key(.connections), help: .key(.connections)) var connections: Int?
    @Option(name: .key(.ramp), help: .key(.ramp)) var ramp: DurationValue?

    @Option(name: .key(.pingInterval), help: .key(.pingInterval)) var pingInterval: DurationValue?
    @Option(name: .key(.pongTimeout), help: .key(.pongTimeout)) var pongTimeout: DurationValue?

    @Option(name: .key(.messageRate), help: .key(.messageRate)) var messageRate: Double?
    @Option(name: .key(.messageSize), help: .key(.messageSize)) var messageSize: SizeValue?

    @Option(name: .key(.subprotocols), help: .key(.subprotocols)) var subprotocols: [String] = []
    @OptionGroup var graphql: GraphQLSubscriptionOptions
    @OptionGroup var headers: HeaderOptions

    @OptionGroup var backoff: BackoffOptions
    @Option(name: .key(.maxAttempts), help: .key(.maxAttempts)) var maxAttempts: Int?
    @Option(name: .key(.stableAfter), help: .key(.stableAfter)) var stableAfter: DurationValue?
    @OptionGroup var connectTimeout: ConnectTimeoutOption
    @OptionGroup var link: LinkOption

    @Flag(name: .key(.discoverIdleTimeout), help: .key(.discoverIdleTimeout)) var discoverIdleTimeout = false
    @Option(name: .key(.maxIdle), help: .key(.maxIdle)) var maxIdle: DurationValue?

    @OptionGroup var tls: TLSOptions

    @OptionGroup var capture: CaptureOption

    @OptionGroup var printSuite: PrintSuiteOption
    @OptionGroup var progress: ProgressOption
    @OptionGroup var report: ReportOptions

    /// The check this command line describes.
    var spec: SoakSpec {
        var spec = SoakSpec(url: url)
        spec.duration = duration
        spec.connections = connections
        spec.ramp = ramp
        spec.pingInterval = pingInterval
        spec.pongTimeout = pongTimeout
        spec.messageRate = messageRate
        spec.messageSize = messageSize
        if !subprotocols.isEmpty { spec.subprotocols = subprotocols }
        graphql.apply(to: &spec)
        headers.apply(to: &spec)
        backoff.apply(to: &spec)
        spec.maxAttempts = maxAttempts
        spec.stableAfter = stableAfter
        connectTimeout.apply(to: &spec)
        link.apply(to: &spec)
        if discoverIdleTimeout { spec.discoverIdleTimeout = true }
        spec.maxIdle = maxIdle
        tls.apply(to: &spec)
        return spec
    }

    func validate() throws {
        try spec.validateForCommandLine()
    }

    /// The command line with the values of `--subprotocol` masked as `redact(subprotocols:)` does.
    static func redact(arguments: [String], _ redactor: Redactor) -> [String] {
        guard redactor.isSecret(name: "Sec-WebSocket-Protocol") else { return arguments }
        var result = arguments
        for index in result.indices {
            if result[index].hasPrefix("--subprotocol=") {
                result[index] = "--subprotocol=" + Redactor.mask
            } else if index > 0, arguments[index - 1] == "--subprotocol" {
                result[index] = Redactor.mask
            }
        }
        return result
    }

    func run() async throws {
        let spec = self.spec
        if printSuite.printSuite {
            try SuitePrinter.print(spec, thresholds: report.thresholdExpressions, redactor: report.redactor)
            return
        }
        let redactor = report.redactor
        let options: SoakOptions
        do throws(SpecProblem) { options = try spec.makeOptions(redactor: redactor) } catch {
            printError("sonde soak: \(error.message)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let runner = SoakCheckRunner(options: options, url: url, displayURL: redactor.redact(url: url),
                                     discoverIdleTimeout: spec.discoveryMaxIdle)
        let status = await CheckDriver(command: "soak", arguments: Self.redact(arguments: Array(CommandLine.arguments.dropFirst()), redactor),
                                       settings: progress.applied(to: report.settings), capture: capture.mode)
            .run([PlannedCheck(name: nil, link: spec.linkProfile, runner: runner)])
        throw ExitCode(status.rawValue)
    }
}
