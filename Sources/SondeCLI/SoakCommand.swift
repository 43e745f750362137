import ArgumentParser
import Foundation
import SondeCore
import SondeRun
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

    @Argument(help: "The WebSocket URL (ws:// or wss://).")
    var url: String

    @Option(name: .long, help: ArgumentHelp("How long to hold the connections (default 60s).", valueName: "duration"))
    var duration: DurationValue?
    @Option(name: .long, help: "Connections to hold at once, each reconnecting on its own (default 1).")
    var connections: Int?
    @Option(name: .long, help: ArgumentHelp("Spread the connection starts evenly over this long (default 0s).", valueName: "duration"))
    var ramp: DurationValue?

    @Option(name: .customLong("ping-interval"), help: ArgumentHelp("Send a ping this often on every connection (0: no pings; default 25s).", valueName: "duration"))
    var pingInterval: DurationValue?
    @Option(name: .customLong("pong-timeout"), help: ArgumentHelp(
        "A pong missing this long after its ping marks the connection dead: close and reconnect (default 10s).", valueName: "duration"))
    var pongTimeout: DurationValue?

    @Option(name: .customLong("message-rate"), help: "Sequence-numbered messages per second per connection, checked in their echo (0: none, the default).")
    var messageRate: Double?
    @Option(name: .customLong("message-size"), help: ArgumentHelp("Size of each message: bytes, or with a unit such as 4KiB (at least 16 bytes; default 64).",
                                                                   valueName: "size"))
    var messageSize: SizeValue?

    @Option(name: .customLong("subprotocol"), help: "Offer this subprotocol (Sec-WebSocket-Protocol; repeatable, in order of preference).")
    var subprotocols: [String] = []
    @OptionGroup var headers: HeaderOptions

    @OptionGroup var backoff: BackoffOptions
    @Option(name: .customLong("max-attempts"), help: "Stop reconnecting a connection after this many failures in a row (default: never).")
    var maxAttempts: Int?
    @Option(name: .customLong("stable-after"), help: ArgumentHelp("A connection up this long resets its backoff to the initial delay (default 10s).",
                                                                  valueName: "duration"))
    var stableAfter: DurationValue?
    @OptionGroup var connectTimeout: ConnectTimeoutOption

    @Flag(name: .customLong("discover-idle-timeout"), help: ArgumentHelp(
        "Instead of a soak, find the longest silence a connection survives: silent connections of 1 s, 2 s, 3 s, 5 s, … up to --max-idle, in parallel, each pinged once at the end of its silence."))
    var discoverIdleTimeout = false
    @Option(name: .customLong("max-idle"), help: ArgumentHelp("The longest silence --discover-idle-timeout tries (the discovery takes about this long; default 10m).",
                                                              valueName: "duration"))
    var maxIdle: DurationValue?

    @OptionGroup var tls: TLSOptions

    @OptionGroup var capture: CaptureOption

    @OptionGroup var printSuite: PrintSuiteOption
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
        headers.apply(to: &spec)
        backoff.apply(to: &spec)
        spec.maxAttempts = maxAttempts
        spec.stableAfter = stableAfter
        connectTimeout.apply(to: &spec)
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
            try SuitePrinter.print(.soak(spec), thresholds: report.thresholdExpressions, redactor: report.redactor)
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
                                       settings: report.settings, capture: capture.mode)
            .run([PlannedCheck(name: nil, runner: .soak(runner))])
        throw ExitCode(status.rawValue)
    }
}
