import Testing
@testable import SondeRun
import SondeCLI
import SondeHTTP

/// `StreamSpec`, the stream check's keys (`sonde stream`), ahead of its registration as a suite kind.
@Suite struct StreamSpecTests {
    private var keys: [SpecKey] {
        var spec = StreamSpec.unfilled
        var collector = SpecKeyCollector()
        spec.visitKeys(&collector)
        return collector.keys
    }

    /// A key the stream shares with another kind has that kind's type (`SuiteValueType.of` keeps one per name).
    @Test func sharedKeysHaveTheOtherKindsTypes() {
        let others = Dictionary(CheckKinds.sonde.all.flatMap { $0.keyTable }.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
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
}
