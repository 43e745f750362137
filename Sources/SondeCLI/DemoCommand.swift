import ArgumentParser
import Foundation
import SondeRun
import SondeSuite
import SondeHTTP
import SondeTarget

/// `make run`: the embedded target in-process and the default probe suite against it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the embedded loopback target and run the default probe suite against it (no network needed).",
        discussion: """
        The suite: HTTP/1.1, HTTP/2 over TLS and h2c, each cold then warm; a redirect chain; a slow \
        (dripped) body; an error status the suite expects; and, with hypercorn installed and a libcurl \
        with HTTP/3, h2 → Alt-Svc → h3 against an HTTP/3 peer (h2 cold and warm, then h3 cold and warm). With root or CAP_NET_RAW the run is \
        captured (--capture=optional by default) and every transaction carries its packet evidence.
        """)

    @Option(name: .shortAndLong, help: "Fetches per URL in the cold/warm groups.")
    var count = 3

    @OptionGroup var capture: CaptureOption

    @OptionGroup var progress: ProgressOption
    @OptionGroup var report: ReportOptions

    func validate() throws {
        guard (1...1000).contains(count) else { throw ValidationError("--count must be between 1 and 1000") }
    }

    func run() async throws {
        // A private folder (mkdtemp, 0700): the target writes its CA, and the HTTP/3 peer its app, there.
        var template = Array((NSTemporaryDirectory() + "sonde-target-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            printError("sonde demo: cannot create a folder for the embedded target in \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
            throw ExitCode(64)
        }
        let directory = String(cString: made)
        let server = TargetServer(directory: directory, http3: true)
        let endpoints: TargetEndpoints
        do {
            endpoints = try await server.start()
        } catch {
            printError("sonde demo: the embedded target could not start: \(error)")
            throw ExitCode(64)
        }
        if !report.json {
            printLine("embedded target: \(endpoints.http) (h1) · \(endpoints.https) (TLS h1/h2) · \(endpoints.h2c) (h2c)"
                + (endpoints.h3.map { " · \($0) (hypercorn: TLS h1/h2 + QUIC h3, Alt-Svc)" } ?? ""))
            if let why = endpoints.h3Unavailable { printLine("no HTTP/3 peer: \(why)") }
            printLine()
        }
        let groups = Self.suite(endpoints, count: count)
        let status = await CheckDriver(command: "demo", arguments: Array(CommandLine.arguments.dropFirst()), settings: progress.applied(to: report.settings),
                                       capture: capture.mode(byDefault: .optional))
            .run([PlannedCheck(name: nil, runner: ProbeCheckRunner(groups: groups))])
        await server.stop()
        try? FileManager.default.removeItem(atPath: directory)
        throw ExitCode(status.rawValue)
    }

    static func suite(_ endpoints: TargetEndpoints, count: Int) -> [ProbeGroup] {
        var h1 = ProbeOptions()
        h1.httpVersion = .http1_1
        h1.count = count
        var h2 = ProbeOptions()
        h2.httpVersion = .http2
        h2.caCertPath = endpoints.caFile
        h2.count = count
        var h2c = ProbeOptions()
        h2c.httpVersion = .http2PriorKnowledge
        h2c.count = count
        var single = ProbeOptions()
        single.caCertPath = endpoints.caFile
        var expected = single
        expected.acceptedStatus = StatusSet(parsing: "503")
        return [
            ProbeGroup(urls: ["\(endpoints.http)/bytes/1024"], options: h1),
            ProbeGroup(urls: ["\(endpoints.https)/bytes/1024"], options: h2),
            ProbeGroup(urls: ["\(endpoints.h2c)/bytes/1024"], options: h2c),
            ProbeGroup(urls: ["\(endpoints.http)/redirect/3", "\(endpoints.http)/drip?bytes=4096&ms=400"], options: single),
            ProbeGroup(urls: ["\(endpoints.http)/status/503"], options: expected),
        ] + altSvcGroups(endpoints, count: count)
    }

    /// h2 → Alt-Svc → h3 against the HTTP/3 peer, as URLSession does it: the first group's h2
    /// connection learns `Alt-Svc: h3` and keeps being reused; the second group's new connection
    /// goes to h3 (its pool is new). Needs the peer and a libcurl with HTTP/3.
    static func altSvcGroups(_ endpoints: TargetEndpoints, count: Int) -> [ProbeGroup] {
        guard let h3 = endpoints.h3, CurlLibrary.supportsHTTP3 else { return [] }
        var options = ProbeOptions()
        options.caCertPath = endpoints.caFile
        options.count = max(2, count)
        return [ProbeGroup(urls: ["\(h3)/bytes/1024"], options: options), ProbeGroup(urls: ["\(h3)/bytes/1024"], options: options)]
    }
}
