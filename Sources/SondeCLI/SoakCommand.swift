import ArgumentParser
import CurlShim
import Foundation
import SondeCapture
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

    @Option(name: .long, help: "How long to hold the connections.")
    var duration = DurationValue(seconds: 60)
    @Option(name: .long, help: "Connections to hold at once, each reconnecting on its own.")
    var connections = 1
    @Option(name: .long, help: "Spread the connection starts evenly over this long.")
    var ramp = DurationValue(seconds: 0)

    @Option(name: .customLong("ping-interval"), help: "Send a ping this often on every connection (0: no pings).")
    var pingInterval = DurationValue(seconds: 25)
    @Option(name: .customLong("pong-timeout"), help: "A pong missing this long after its ping marks the connection dead: close and reconnect.")
    var pongTimeout = DurationValue(seconds: 10)

    @Option(name: .customLong("message-rate"), help: "Sequence-numbered messages per second per connection, checked in their echo (0: none).")
    var messageRate = 0.0
    @Option(name: .customLong("message-size"), help: "Size of each message: bytes, or with a unit such as 4KiB (at least 16 bytes).")
    var messageSize = SizeValue(bytes: 64)

    @Option(name: .customLong("subprotocol"), help: "Offer this subprotocol (Sec-WebSocket-Protocol; repeatable, in order of preference).")
    var subprotocols: [String] = []
    @Option(name: [.customShort("H"), .customLong("header")], help: "Add a header to the upgrade request, 'Name: value' (repeatable; secrets are redacted in the report).")
    var headers: [String] = []

    @Option(name: .customLong("backoff-initial"), help: "Delay before the first reconnect.")
    var backoffInitial = DurationValue(seconds: 0.5)
    @Option(name: .customLong("backoff-max"), help: "Longest delay between reconnects (before jitter).")
    var backoffMax = DurationValue(seconds: 30)
    @Option(name: .customLong("backoff-multiplier"), help: "Growth of the delay per failure in a row.")
    var backoffMultiplier = 2.0
    @Option(name: .customLong("jitter"), help: "Jitter of the delay: full (0…delay), equal (delay/2…delay) or none.")
    var jitter = "full"
    @Option(name: .customLong("max-attempts"), help: "Stop reconnecting a connection after this many failures in a row (default: never).")
    var maxAttempts: Int?
    @Option(name: .customLong("stable-after"), help: "A connection up this long resets its backoff to the initial delay.")
    var stableAfter = DurationValue(seconds: 10)
    @Option(name: .customLong("connect-timeout"), help: "Longest time for one opening handshake (TCP, TLS and upgrade).")
    var connectTimeout = DurationValue(seconds: 10)

    @Flag(name: .customLong("discover-idle-timeout"), help: ArgumentHelp(
        "Instead of a soak, find the longest silence a connection survives: silent connections of 1 s, 2 s, 3 s, 5 s, … up to --max-idle, in parallel, each pinged once at the end of its silence."))
    var discoverIdleTimeout = false
    @Option(name: .customLong("max-idle"), help: "The longest silence --discover-idle-timeout tries (the discovery takes about this long).")
    var maxIdle = DurationValue(seconds: 600)

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify the server's TLS certificate (recorded in the report).")
    var insecure = false
    @Option(name: .customLong("cacert"), help: "Also trust the CA certificates in this PEM file.")
    var caCert: String?

    @Option(name: .customLong("capture"), help: CaptureSession.help)
    var capture: String?

    @OptionGroup var report: ReportOptions

    func validate() throws {
        try CaptureSession.validate(capture)
        guard let jitterMode = BackoffPolicy.Jitter(rawValue: jitter) else {
            throw ValidationError("--jitter must be full, equal or none")
        }
        _ = jitterMode
        _ = try parseHeaderArguments(headers)
        if let problem = makeConfig(redactor: Redactor()).problem(maxMessageSize: SoakOptions.defaultMaxFrameSize) {
            throw ValidationError(problem)
        }
        if discoverIdleTimeout && !(maxIdle.seconds >= 1 && maxIdle.seconds <= 86_400) {
            throw ValidationError("--max-idle must be between 1s and 24h")
        }
        if let caCert, !FileManager.default.isReadableFile(atPath: caCert) {
            throw ValidationError("cannot read --cacert \(caCert): no such file, or not readable")
        }
    }

    private var headerFields: [HeaderField] { (try? parseHeaderArguments(headers)) ?? [] }

    private func makeConfig(redactor: Redactor) -> SoakConfig {
        let policy = BackoffPolicy(initialMs: backoffInitial.seconds * 1000, maxMs: backoffMax.seconds * 1000,
                                   multiplier: backoffMultiplier, jitter: BackoffPolicy.Jitter(rawValue: jitter) ?? .full)
        return SoakConfig(
            durationS: discoverIdleTimeout ? maxIdle.seconds : duration.seconds,
            connections: discoverIdleTimeout ? IdleTimeoutDiscovery.ladder(upTo: maxIdle.seconds).count : connections, rampS: ramp.seconds,
            pingIntervalS: pingInterval.seconds, pongTimeoutS: pongTimeout.seconds,
            messageRate: messageRate, messageSize: Int(clamping: messageSize.bytes), subprotocols: Self.redact(subprotocols: subprotocols, redactor),
            headers: redactor.redact(headers: headerFields), backoff: policy, stableAfterS: stableAfter.seconds,
            maxAttempts: maxAttempts, connectTimeoutS: connectTimeout.seconds, insecure: insecure)
    }

    /// The offered subprotocols as the report records them: masked when `--redact` names
    /// Sec-WebSocket-Protocol (APIs that browsers reach take tokens this way).
    static func redact(subprotocols: [String], _ redactor: Redactor) -> [String] {
        redactor.isSecret(name: "Sec-WebSocket-Protocol") ? subprotocols.map { _ in Redactor.mask } : subprotocols
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
        let redactor = report.redactor
        let target: WebSocketURL
        do throws(TaskError) { target = try WebSocketURL(url) } catch {
            printError("sonde soak: \(error.message)")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var options = SoakOptions(url: target, config: makeConfig(redactor: redactor), headers: headerFields,
                                  subprotocols: subprotocols, caFile: caCert)
        var session = SoakSession(arguments: Self.redact(arguments: Array(CommandLine.arguments.dropFirst()), redactor), report: report)
        if let mode = capture.flatMap(CaptureSession.Mode.init(rawValue:)) {
            // The connections bind to a block of local ports that the capture filter names.
            options.localPorts = LocalPortCursor(ports: LiveCapture.localPortBlock())
            session.capture = mode
            session.captureURL = url
        }
        let status = await session.run(options: options, displayURL: redactor.redact(url: url),
                                       discoverIdleTimeout: discoverIdleTimeout ? maxIdle.seconds : nil)
        throw ExitCode(status.rawValue)
    }
}
