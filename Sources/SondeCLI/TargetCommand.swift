import ArgumentParser
import CSignalFlags
import Foundation
import SondeRun
import SondeSuite
import SondeTarget

struct TargetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "target",
        abstract: "Run the embedded loopback target server and print its URLs (Ctrl-C stops it).")

    @Option(name: .long, help: "Where to write the target's CA certificate (target-ca.pem).")
    var dir = "Reports/target"

    @Flag(name: .long, help: "Print the endpoints as one line of JSON.")
    var json = false

    @Option(name: .customLong("max-seconds"), help: "Stop by itself after this many seconds (0: run until interrupted).")
    var maxSeconds = 0.0

    func run() async throws {
        let server = TargetServer(directory: dir)
        let endpoints: TargetEndpoints
        do {
            endpoints = try await server.start()
        } catch {
            printError("sonde target: could not start: \(error)")
            throw ExitCode(64)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            printLine(String(decoding: try encoder.encode(endpoints), as: UTF8.self))
        } else {
            printLine("""
            sonde target running on loopback
              http (HTTP/1.1)        \(endpoints.http)
              https (h1 + h2, ALPN)  \(endpoints.https)
              h2c (prior knowledge)  \(endpoints.h2c)
              expired certificate    \(endpoints.httpsExpired)
              wrong-host certificate \(endpoints.httpsWrongHost)
              never answers (SYNs dropped) \(endpoints.blackhole)
              refused                \(endpoints.refused)
              WebSocket              \(endpoints.ws)/ws/echo
              WebSocket over TLS     \(endpoints.wss)/ws/echo
              CA file (--cacert)     \(endpoints.caFile)
            endpoints: /bytes/{n} /delay/{ms} /drip?bytes=&ms= /redirect/{n} /status/{code} /headers /echo /truncate/{n}
            /ws/echo faults: closeAfter=S&code=C&reason=R dropAfter=S resetAfter=S noPong=1 pongDelay=MS
                             refuse=K&status=N&key=ID idleTimeout=S restartEvery=S pingEvery=S
            Ctrl-C stops it.
            """)
        }
        sonde_install_interrupt_handlers()
        let deadline = maxSeconds > 0 ? Date().addingTimeInterval(maxSeconds) : nil
        // Stop when the process that started us goes away (tests, scripts), so no target is orphaned.
        let parent = getppid()
        while sonde_received_signal() == 0 {
            if let deadline, Date() >= deadline { break }
            if getppid() != parent { break }
            try? await Task.sleep(nanoseconds: 100_000_000)
        }
        await server.stop()
    }
}
