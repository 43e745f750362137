import Testing
import SondeCore
import SondeRun
import SondeSuite
import SondeCLI
import SondeHTTP
@testable import SondeSSE

/// `StreamSpec` and `SSEKind`: the stream check's keys (`sonde stream`, `kind: sse`) and the kind
/// as suites read and print it.
@Suite struct StreamSpecTests {
    private var keys: [SpecKey] { SSEKind.keyTable }

    /// A key the stream shares with another kind has that kind's type (`SuiteValueType.of` keeps one per name).
    @Test func sharedKeysHaveTheOtherKindsTypes() {
        let others = Dictionary(CheckKinds.sonde.all.filter { $0.name != SSEKind.name }.flatMap { CheckKinds.sonde.keyTable(of: $0) }.map { ($0.name, $0.type) },
                                uniquingKeysWith: { first, _ in first })
        let shared = keys.filter { others[$0.name] != nil }
        #expect(Set(shared.map(\.name)).isSuperset(of: ["url", "duration", "headers", "insecure", "cacert", "connect-timeout", "client", "http2"]))
        for key in shared { #expect(others[key.name] == key.type, "\(key.name)") }
    }

    @Test func defaultsAndOptions() {
        var spec = StreamSpec(url: "https://example.org/events")
        #expect(spec.problems().isEmpty)
        var options = spec.makeOptions()
        #expect(options.streams == 1 && options.durationS == 60 && options.defaultRetryMs == 3000 && options.reconnect)
        #expect(options.transport.client == .urlsession && options.transport.connectTimeoutMs == 10_000 && options.maxEventBytes == 1 << 20)
        spec.streams = 4
        spec.reconnect = false
        spec.retry = DurationValue(seconds: 0.25)
        spec.maxEventSize = SizeValue(bytes: 4096)
        spec.httpVersion = .http2
        options = spec.makeOptions()
        #expect(options.streams == 4 && !options.reconnect && options.defaultRetryMs == 250 && options.maxEventBytes == 4096)
        #expect(options.transport.httpVersion == .http2)
    }

    @Test func problemsNameTheirKeys() {
        var spec = StreamSpec(url: "ftp://example.org/")
        spec.streams = 1000
        spec.events = 0
        spec.retry = DurationValue(seconds: 601)
        spec.client = "netscape"
        spec.headers = ["no colon"]
        let keys = Set(spec.problems().compactMap(\.key))
        #expect(keys == ["url", "streams", "events", "retry", "client", "headers"], "\(spec.problems())")
    }

    @Test func cacertIsResolvedAgainstTheSuiteFolder() {
        var spec = StreamSpec(url: "https://example.org/")
        spec.cacert = "ca.pem"
        #expect(spec.resolvingPaths(against: "/suites").cacert == "/suites/ca.pem")
        spec.cacert = "/etc/ca.pem"
        #expect(spec.resolvingPaths(against: "/suites").cacert == "/etc/ca.pem")
    }

    static func parse(_ text: String) -> Result<SuiteLoader.Loaded, SuiteLoader.Failure> {
        Result { () throws(SuiteLoader.Failure) in
            try SuiteLoader.parse(text, file: "suite.yaml", folder: "/suites", kinds: CheckKinds.sonde, environment: ["PEER": "http://127.0.0.1:9"])
        }
    }

    /// `kind: sse` is registered: a suite reads it (environment references, `defaults`, paths
    /// against the suite's folder), prints it back, and the kind's runner is the stream's.
    @Test func aSuiteReadsAndPrintsAnSSECheck() throws {
        #expect(CheckKinds.sonde.named("sse").map { ObjectIdentifier($0) } == ObjectIdentifier(SSEKind.self))
        let loaded = try Self.parse("""
        defaults: {duration: 5s}
        checks:
          - {name: ticks, kind: sse, url: "${PEER}/events", streams: 2, http2: true, link: lte}
        """).get()
        let spec = try #require(loaded.suite.checks.first?.spec as? StreamSpec)
        #expect(spec.url == "http://127.0.0.1:9/events" && spec.streams == 2 && spec.duration?.seconds == 5)
        #expect(spec.httpVersion == .http2 && spec.linkProfile != nil)
        #expect(SuiteLoader.entryYAML(name: "ticks", spec: spec).hasPrefix("- name: ticks\n  kind: sse\n  url: http://127.0.0.1:9/events\n"))
        #expect(try Self.parse(SuiteLoader.suiteYAML(loaded.suite)).get().suite == loaded.suite)
        let runner = try spec.runner(settings: RunSettings())
        #expect(runner.kindName == "sse" && runner is StreamCheckRunner)
        #expect(SSEKind.defaultRunTimeout(for: spec) == 600)
    }

    @Test func aSuiteRefusesWhatAnSSECheckRefuses() {
        let cases = [
            "checks:\n  - {name: a, kind: sse, url: \"ws://x/\"}\n": "url",
            "checks:\n  - {name: a, kind: sse, url: \"http://x/\", streams: 0}\n": "streams: must be between 1 and 256",
            "checks:\n  - {name: a, kind: sse, url: \"http://x/\", urls: [y]}\n": "unknown key for a sse check",
            "checks:\n  - {name: a, kind: sse, url: \"http://x/\", link: \"rtt=fast\"}\n": "rtt",
        ]
        for (text, words) in cases {
            guard case .failure(let failure) = Self.parse(text) else { Issue.record("accepted: \(text)"); continue }
            #expect(failure.description.contains(words), "\(failure)")
        }
    }
}
