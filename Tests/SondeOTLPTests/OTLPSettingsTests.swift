import SondeCore
@testable import SondeOTLP
import Testing

/// The OpenTelemetry exporter variables and `--otlp` resolve by the specification's rules.
@Suite struct OTLPSettingsTests {
    private func resolve(_ endpoint: String? = nil, _ environment: [String: String]) throws -> OTLPSettings? {
        try OTLPSettings.resolve(OTLPSettings.Given(endpoint: endpoint), environment: environment).get()
    }

    @Test func nothingNamedMeansNoExport() throws {
        #expect(try resolve(nil, ["OTEL_EXPORTER_OTLP_HEADERS": "a=b"]) == nil)
    }

    @Test func theBaseEndpointGetsEachSignalsPath() throws {
        let settings = try #require(try resolve("http://127.0.0.1:4318", [:]))
        #expect(settings.metrics.url == "http://127.0.0.1:4318/v1/metrics")
        #expect(settings.traces.url == "http://127.0.0.1:4318/v1/traces")
        #expect(settings.metrics.timeout == 10)
        let slash = try #require(try resolve("http://collector/otlp/", [:]))
        #expect(slash.traces.url == "http://collector/otlp/v1/traces")
    }

    @Test func signalEndpointsAreUsedAsTheyAreAndWinOverTheBase() throws {
        let settings = try #require(try resolve(nil, ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://base:4318",
                                                      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:9999/custom"]))
        #expect(settings.traces.url == "http://traces:9999/custom")
        #expect(settings.metrics.url == "http://base:4318/v1/metrics")
        // The command line's endpoint wins over every variable.
        let given = try #require(try resolve("http://cli:4318", ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:9999/custom"]))
        #expect(given.traces.url == "http://cli:4318/v1/traces")
    }

    @Test func headersAndTimeoutsMergeWithTheSignalsOwnWinning() throws {
        let settings = try #require(try resolve("http://c:4318", [
            "OTEL_EXPORTER_OTLP_HEADERS": "api-key=one%20two, tenant=a",
            "OTEL_EXPORTER_OTLP_METRICS_HEADERS": "tenant=b",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
            "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "700",
        ]))
        #expect(settings.metrics.headers == [HeaderField(name: "api-key", value: "one two"), HeaderField(name: "tenant", value: "b")])
        #expect(settings.traces.headers == [HeaderField(name: "api-key", value: "one two"), HeaderField(name: "tenant", value: "a")])
        #expect(settings.metrics.timeout == 2.5)
        #expect(settings.traces.timeout == 0.7)
    }

    @Test func badValuesAreProblemsNamingTheirVariable() {
        let cases: [([String: String], String)] = [
            (["OTEL_EXPORTER_OTLP_TIMEOUT": "-5"], "OTEL_EXPORTER_OTLP_TIMEOUT"),
            (["OTEL_EXPORTER_OTLP_TIMEOUT": "99999999999999999999"], "OTEL_EXPORTER_OTLP_TIMEOUT"),
            (["OTEL_EXPORTER_OTLP_HEADERS": "no-equals-sign"], "OTEL_EXPORTER_OTLP_HEADERS"),
            (["OTEL_EXPORTER_OTLP_HEADERS": "a=%zz"], "OTEL_EXPORTER_OTLP_HEADERS"),
            (["OTEL_EXPORTER_OTLP_PROTOCOL": "carrier-pigeon"], "OTEL_EXPORTER_OTLP_PROTOCOL"),
            (["OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json"], "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"),
        ]
        for (environment, key) in cases {
            guard case .failure(let problem) = OTLPSettings.resolve(OTLPSettings.Given(endpoint: "http://c:4318"), environment: environment) else {
                Issue.record("\(environment) was accepted")
                continue
            }
            #expect(problem.key == key, "\(environment): \(problem)")
        }
        guard case .failure(let scheme) = OTLPSettings.resolve(OTLPSettings.Given(endpoint: "ftp://c:21"), environment: [:]) else {
            Issue.record("ftp:// was accepted")
            return
        }
        #expect(scheme.key == "otlp")
    }

    @Test func traceparentHasTheW3CForm() {
        let context = OTLPTraceContext(traceID: Array(0..<16), rootSpanID: [0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3])
        #expect(context.traceparent == "00-000102030405060708090a0b0c0d0e0f-deadbeef00010203-01")
        let random = OTLPTraceContext.random()
        #expect(random.traceID.count == 16 && random.rootSpanID.count == 8)
        #expect(random.traceID != OTLPTraceContext.random().traceID)
    }

    /// gRPC: the endpoint as it is (no signal path), the default port 4317, each signal's service.
    @Test func grpcUsesTheEndpointAsItIs() throws {
        guard case .success(let settings?) = OTLPSettings.resolve(OTLPSettings.Given(endpoint: "http://collector:4317"),
                                                                  environment: ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]) else {
            Issue.record("grpc was refused")
            return
        }
        #expect(settings.traces.url == "http://collector:4317" && settings.traces.grpcService == "opentelemetry.proto.collector.trace.v1.TraceService")
        #expect(settings.metrics.grpcService == "opentelemetry.proto.collector.metrics.v1.MetricsService")
        guard case .success(let defaults?) = OTLPSettings.resolve(OTLPSettings.Given(),
                                                                  environment: ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://[::1]:4317",
                                                                                "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]) else {
            Issue.record("grpc with a traces endpoint was refused")
            return
        }
        #expect(defaults.metrics.url == "http://localhost:4317")
        #expect(GRPCEndpoint(defaults.traces.url) == GRPCEndpoint("https://[::1]:4317") && GRPCEndpoint("https://[::1]:4317")?.host == "::1")
        #expect(GRPCEndpoint("http://c")?.port == 80 && GRPCEndpoint("https://c")?.port == 443)
        for bad in ["http://c:4317/v1/traces", "http://u@c:4317", "http://c:4317?x=1", "ftp://c:4317"] {
            #expect(GRPCEndpoint(bad) == nil, "\(bad)")
        }
        #expect(settings.traces.grpcService != nil && settings.metrics.url == settings.traces.url)
    }

    /// `OTEL_EXPORTER_OTLP_COMPRESSION` (the signal's own wins), `OTEL_SERVICE_NAME` over a
    /// `service.name` in `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS` replacing
    /// the known methods; bad values are problems naming their variable.
    @Test func theSDKVariablesResolve() throws {
        let settings = try #require(try resolve("http://c:4318", [
            "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none",
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=a, team=net%20ops,sonde.run.id=forged", "OTEL_SERVICE_NAME": "b",
            "OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS": "GET,PURGE",
        ]))
        #expect(settings.metrics.compression == .gzip && settings.traces.compression == OTLPSettings.Compression.none)
        #expect(settings.resource.serviceName == "b" && settings.resource.attributes == ["team": "net ops", "sonde.run.id": "forged"])
        let attributes = settings.resource.attributes(adding: [.string("sonde.run.id", "real")])
        #expect(attributes.map(\.key) == ["service.name", "service.version", "service.instance.id", "team", "sonde.run.id"])
        #expect(attributes.last == .string("sonde.run.id", "real"))
        #expect(settings.knownMethods == ["GET", "PURGE"])
        #expect(OTLPTransactionFacts.method("PURGE", knownMethods: settings.knownMethods) == ("PURGE", nil))
        #expect(OTLPTransactionFacts.method("get", knownMethods: OTLPSettings.defaultKnownMethods) == ("_OTHER", "get"))
        let plain = try #require(try resolve("http://c:4318", [:]))
        #expect(plain.resource.serviceName == "sonde" && plain.metrics.compression == OTLPSettings.Compression.none)
        for (environment, key) in [(["OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"], "OTEL_EXPORTER_OTLP_COMPRESSION"),
                                   (["OTEL_RESOURCE_ATTRIBUTES": "novalue"], "OTEL_RESOURCE_ATTRIBUTES"),
                                   (["OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS": "GET,,POST"], "OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS"),
                                   (["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"], "OTEL_EXPORTER_OTLP_COMPRESSION")] {
            let given = OTLPSettings.Given(endpoint: environment["OTEL_EXPORTER_OTLP_PROTOCOL"] == nil ? "http://c:4318" : "http://c:4317")
            guard case .failure(let problem) = OTLPSettings.resolve(given, environment: environment) else {
                Issue.record("\(environment) was accepted")
                continue
            }
            #expect(problem.key == key, "\(environment): \(problem)")
        }
    }

    /// The gzip body is RFC 1952 (magic, deflate, the input's CRC-32 and length at its end).
    @Test func gzipBodiesAreRFC1952() throws {
        let body = Array(repeating: Array("opentelemetry ".utf8), count: 100).flatMap { $0 }
        let gzipped = try #require(OTLPGzip.compress(body))
        #expect(gzipped.prefix(3) == [0x1f, 0x8b, 0x08] && gzipped.count < body.count / 4)
        let length = gzipped.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(length == body.count)
        #expect(OTLPGzip.compress([]) == nil)
    }
}
