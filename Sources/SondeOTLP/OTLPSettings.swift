import SondeCore
import SondeHTTP

/// Where and how a run's metrics and traces are exported (OTLP): from `--otlp URL`, serve's
/// `otlp:` and the standard `OTEL_EXPORTER_OTLP_*` variables, by the OpenTelemetry exporter
/// specification's rules:
///
/// - the endpoint given (`--otlp`, `otlp: {endpoint:}`) or `OTEL_EXPORTER_OTLP_ENDPOINT` is a base
///   URL: the signal's path is appended (`/v1/metrics`, `/v1/traces`);
///   `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` and `…_TRACES_ENDPOINT` are used as they are, and win over
///   the base variable (an endpoint given on the command line or in the config wins over both);
/// - `…_HEADERS` (`k=v,k2=v2`, values percent-decoded), `…_TIMEOUT` (milliseconds, default
///   10000), `…_PROTOCOL` (`http/protobuf` by default), `…_CERTIFICATE` (a CA file),
///   `…_COMPRESSION` (`gzip` or `none`, the default): each with its `_METRICS_`/`_TRACES_`
///   variant, which wins for its signal; headers merge by name;
/// - the SDK's `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (`OTLPResourceSettings`), and
///   the HTTP conventions' `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS`.
///
/// Export is on when an endpoint comes from any of these. `http/protobuf` and `grpc` are carried
/// out (gRPC on `GRPCUnaryCall`: its endpoint is used as it is, no path appended, default
/// `http://localhost:4317`); `http/json` is refused with a clear problem.
public struct OTLPSettings: Sendable, Equatable {
    /// One signal's destination.
    public struct Target: Sendable, Equatable {
        public var url: String
        public var headers: [HeaderField]
        /// The bound of one export of this signal, every attempt and retry included (seconds).
        public var timeout: Double
        /// A CA file to verify the collector with (nil: the system's).
        public var caCertPath: String?
        /// Do not verify the collector's certificate.
        public var insecure: Bool
        /// With protocol `grpc`: the service whose `Export` is called
        /// (`opentelemetry.proto.collector.trace.v1.TraceService`); nil for http/protobuf.
        public var grpcService: String?
        /// How each request body is sent (http/protobuf only: gRPC's own compression is not carried out).
        public var compression = Compression.none

        /// `url` as messages and logs show it: its password and secret parameters redacted.
        public var shownURL: String { Redactor(enabled: true).redact(url: url) }
    }

    /// A request body's encoding (`OTEL_EXPORTER_OTLP_COMPRESSION`).
    public enum Compression: String, Sendable, Equatable {
        case none
        /// `Content-Encoding: gzip`.
        case gzip
    }

    public var metrics: Target
    public var traces: Target
    /// The resource every export names (`service.name` and the variables' attributes).
    public var resource = OTLPResourceSettings()
    /// The request methods the HTTP conventions call known (RFC 9110's and PATCH, or
    /// `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS`, which replaces them): any other is sent as
    /// `_OTHER` with `http.request.method_original`.
    public var knownMethods = defaultKnownMethods
    public static let defaultKnownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// The accepted range of a timeout (seconds): 1 ms to 5 minutes.
    public static let timeoutRange = 0.001...300.0
    public static let defaultTimeout = 10.0
    /// The protocols the specification names; the first two are carried out here.
    public static let protocols = ["http/protobuf", "grpc", "http/json"]

    /// What the command line or serve's config gives; each field nil when not given.
    public struct Given: Sendable, Equatable {
        public var endpoint: String?
        public var protocolName: String?
        public var headers: [HeaderField] = []
        public var timeout: Double?
        public var caCertPath: String?
        public var insecure = false

        public init(endpoint: String? = nil, protocolName: String? = nil, headers: [HeaderField] = [], timeout: Double? = nil,
                    caCertPath: String? = nil, insecure: Bool = false) {
            self.endpoint = endpoint
            self.protocolName = protocolName
            self.headers = headers
            self.timeout = timeout
            self.caCertPath = caCertPath
            self.insecure = insecure
        }
    }

    /// The settings `given` and `environment` make; nil when neither names an endpoint (no
    /// export). A problem names the option or variable at fault.
    public static func resolve(_ given: Given, environment: [String: String]) -> Result<OTLPSettings?, SettingProblem> {
        let base = given.endpoint ?? nonEmpty(environment["OTEL_EXPORTER_OTLP_ENDPOINT"])
        let metricsOwn = nonEmpty(environment["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"])
        let tracesOwn = nonEmpty(environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"])
        guard base != nil || metricsOwn != nil || tracesOwn != nil else { return .success(nil) }
        do throws(SettingProblem) {
            let metrics = try target("METRICS", path: "v1/metrics", service: "opentelemetry.proto.collector.metrics.v1.MetricsService",
                                     base: base, own: given.endpoint == nil ? metricsOwn : nil, given: given, environment: environment)
            let traces = try target("TRACES", path: "v1/traces", service: "opentelemetry.proto.collector.trace.v1.TraceService",
                                    base: base, own: given.endpoint == nil ? tracesOwn : nil, given: given, environment: environment)
            var settings = OTLPSettings(metrics: metrics, traces: traces)
            settings.resource = try OTLPResourceSettings(environment: environment)
            if let text = nonEmpty(environment["OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS"]) {
                settings.knownMethods = try knownMethods(text)
            }
            return .success(settings)
        } catch {
            return .failure(error)
        }
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingSpaces, !text.isEmpty else { return nil }
        return text
    }

    private static func target(_ signal: String, path: String, service: String, base: String?, own: String?, given: Given,
                               environment: [String: String]) throws(SettingProblem) -> Target {
        func variable(_ name: String) -> (name: String, value: String)? {
            let specific = "OTEL_EXPORTER_OTLP_\(signal)_\(name)"
            if let value = nonEmpty(environment[specific]) { return (specific, value) }
            let general = "OTEL_EXPORTER_OTLP_\(name)"
            return nonEmpty(environment[general]).map { (general, $0) }
        }
        var grpc = false
        let protocolGiven: (name: String, value: String)? = given.protocolName.map { (name: "otlp protocol", value: $0) } ?? variable("PROTOCOL")
        if let protocolGiven {
            let (source, name) = (protocolGiven.name, protocolGiven.value)
            guard protocols.contains(name) else {
                throw SettingProblem(key: source, "'\(name)' is not an OTLP protocol (http/protobuf, grpc, http/json)")
            }
            guard name != "http/json" else {
                throw SettingProblem(key: source, "OTLP over http/json is not available: use http/protobuf (a collector's port 4318) or grpc (4317)")
            }
            grpc = name == "grpc"
        }

        let url: String
        let urlSource: String
        if let own {
            url = own
            urlSource = "OTEL_EXPORTER_OTLP_\(signal)_ENDPOINT"
        } else if let base {
            // gRPC names the service in the call's path: the endpoint is used as it is.
            url = grpc ? base : base.hasSuffix("/") ? base + path : base + "/" + path
            urlSource = given.endpoint != nil ? "otlp" : "OTEL_EXPORTER_OTLP_ENDPOINT"
        } else {
            // This signal has no endpoint of its own and there is no base: the specification's default.
            url = grpc ? "http://localhost:4317" : "http://localhost:4318/" + path
            urlSource = "OTEL_EXPORTER_OTLP_ENDPOINT"
        }
        if let problem = StreamingTransfer.problem(url: url) { throw SettingProblem(key: urlSource, problem) }
        if grpc, GRPCEndpoint(url) == nil {
            throw SettingProblem(key: urlSource, "'\(url.prefix(200))' is not a gRPC endpoint: http(s)://HOST[:PORT] with no path, query or user")
        }

        var headers: [HeaderField] = []
        for name in ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_\(signal)_HEADERS"] {
            guard let text = nonEmpty(environment[name]) else { continue }
            for field in try parseHeaders(text, variable: name) {
                headers.removeAll { $0.name.lowercased() == field.name.lowercased() }
                headers.append(field)
            }
        }
        for field in given.headers {
            headers.removeAll { $0.name.lowercased() == field.name.lowercased() }
            headers.append(field)
        }

        var timeout = defaultTimeout
        if let given = given.timeout {
            guard timeoutRange.contains(given) else { throw SettingProblem(key: "otlp timeout", "must be between 1 ms and 5 minutes") }
            timeout = given
        } else if let timeoutVariable = variable("TIMEOUT") {
            let (name, text) = (timeoutVariable.name, timeoutVariable.value)
            guard let milliseconds = Int(text), milliseconds >= 1, milliseconds <= 300_000 else {
                throw SettingProblem(key: name, "expected milliseconds from 1 to 300000 (got '\(text)')")
            }
            timeout = Double(milliseconds) / 1000
        }
        var compression = Compression.none
        if let (name, text) = variable("COMPRESSION") {
            guard let chosen = Compression(rawValue: text) else {
                throw SettingProblem(key: name, "'\(text.prefix(40))' is not an OTLP compression (gzip, none)")
            }
            guard !(grpc && chosen == .gzip) else {
                throw SettingProblem(key: name, "gzip over gRPC is not carried out: use http/protobuf (a collector's port 4318), or none")
            }
            compression = chosen
        }
        let caCert = given.caCertPath ?? variable("CERTIFICATE")?.value
        return Target(url: url, headers: headers, timeout: timeout, caCertPath: caCert, insecure: given.insecure,
                      grpcService: grpc ? service : nil, compression: compression)
    }

    /// `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS`: a comma-separated list of case-sensitive methods (tokens).
    static func knownMethods(_ text: String) throws(SettingProblem) -> Set<String> {
        var methods: Set<String> = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false).prefix(256) {
            guard let method = String(item).trimmingSpaces.nonEmptyToken else {
                throw SettingProblem(key: "OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS", "expected methods separated by commas (at '\(item.prefix(40))')")
            }
            methods.insert(method)
        }
        return methods
    }

    /// `k=v,k2=v2` as the specification writes the headers variables (W3C Baggage's form:
    /// values percent-decoded, spaces around items ignored).
    static func parseHeaders(_ text: String, variable: String) throws(SettingProblem) -> [HeaderField] {
        try parsePairs(text, variable: variable).map { HeaderField(name: $0.key, value: $0.value) }
    }

    /// The `key=value` pairs of `text` (W3C Baggage's form, as the headers and resource variables
    /// are written): keys are tokens, values percent-decoded UTF-8 without control characters;
    /// at most 256 pairs.
    static func parsePairs(_ text: String, variable: String) throws(SettingProblem) -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        for item in text.split(separator: ",").prefix(256) {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let name = String(pair[0]).trimmingSpaces.nonEmptyToken,
                  let value = percentDecoded(String(pair[1]).trimmingSpaces),
                  !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
                throw SettingProblem(key: variable, "expected name=value pairs separated by commas (at '\(item.prefix(40))')")
            }
            pairs.append((name, value))
        }
        return pairs
    }

    /// `%XX` escapes decoded; nil when one is malformed or the result is not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

private extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }

    /// Self when it is an HTTP header name (RFC 9110 token characters), else nil.
    var nonEmptyToken: String? {
        let allowed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !isEmpty, count <= 256, allSatisfy({ allowed.contains($0) }) else { return nil }
        return self
    }
}
