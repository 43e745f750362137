import SondeOTLP
import SondeSuite

/// The configuration of `sonde serve` (`ServeConfigLoader` reads it from a YAML file, validated
/// whole): where it listens, what `/probe` may reach and with which blackbox_exporter modules, the
/// checks it runs on a schedule, and where their history goes.
///
/// ```yaml
/// listen: 127.0.0.1:9166
/// vantage: fra-1
/// allow: ["https://api.example.com/*"]
/// modules: {http_2xx: {prober: http, timeout: 5s}}
/// parallel: 4
/// checks:
///   - {name: api, kind: probe, urls: [https://api.example.com/v1/health], count: 3, every: 5m}
/// history: Reports/history.sqlite
/// keep: {days: 30}
/// otlp: {endpoint: http://127.0.0.1:4318, headers: {x-token: secret}, timeout: 5s}
/// ```
public struct ServeConfig: Equatable, Sendable {
    /// nil: `--listen`, else `ListenAddress.default`.
    public var listen: ListenAddress?
    /// The `vantage` label of every series on `/metrics` (nil: none).
    public var vantage: String?
    /// What `/probe` may reach; empty: nothing.
    public var allow: AllowList
    /// blackbox_exporter's modules by name.
    public var modules: [String: BlackboxModule]
    /// Scheduled checks at once at most (1...Suite.maxParallel, default `defaultParallel`).
    public var parallel: Int
    public var checks: [ScheduledCheck]
    /// The history database (path resolved against the config's folder); nil: `<output-dir>/history.sqlite`.
    public var history: String?
    /// Run folders of scheduled checks older than this many days are removed; nil: kept.
    public var keepDays: Int?
    /// TLS and authentication of serve's endpoints (`web-config:`); nil: plain HTTP, no authentication.
    public var web: WebConfig?
    /// Where each scheduled run is exported (`otlp:`, with the `OTEL_EXPORTER_OTLP_*` variables); nil: nowhere.
    public var otlp: OTLPSettings?
    /// The checks as loaded (with the values that came from the environment, for redaction).
    public var loaded: SuiteLoader.Loaded

    public static let defaultParallel = 4
    public static let maxKeepDays = 3650

    public init(listen: ListenAddress? = nil, vantage: String? = nil, allow: AllowList = AllowList(patterns: []),
                modules: [String: BlackboxModule] = [:], parallel: Int = ServeConfig.defaultParallel, checks: [ScheduledCheck] = [],
                history: String? = nil, keepDays: Int? = nil, web: WebConfig? = nil, otlp: OTLPSettings? = nil, loaded: SuiteLoader.Loaded) {
        self.web = web
        self.otlp = otlp
        self.listen = listen
        self.vantage = vantage
        self.allow = allow
        self.modules = modules
        self.parallel = parallel
        self.checks = checks
        self.history = history
        self.keepDays = keepDays
        self.loaded = loaded
    }
}

/// A check of `sonde serve` and its schedule.
public struct ScheduledCheck: Equatable, Sendable {
    public var check: SuiteCheck
    /// Seconds from one run's start to the next's (`every:`), `ScheduledCheck.everyRange`.
    public var every: Double
    /// The most a run may take (`run-timeout:`, seconds): then it is ended and its report written.
    public var runTimeout: Double

    public init(check: SuiteCheck, every: Double, runTimeout: Double) {
        self.check = check
        self.every = every
        self.runTimeout = runTimeout
    }

    /// `every:` from a second to a week.
    public static let everyRange = 1.0...604_800.0
    /// `run-timeout:` from a second to a day (`CheckKinds.runTimeoutRange`).
    public static let runTimeoutRange = CheckKinds.runTimeoutRange
    /// The keys a scheduled check takes beside its kind's.
    public static let keys = ["every", "run-timeout"]
}

/// Where `sonde serve` listens: `host:port` (`[v6]:port`); port 0 picks a free one.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Loopback, as every service of sonde's listens unless told otherwise.
    public static let `default` = ListenAddress(host: "127.0.0.1", port: 9166)

    /// `127.0.0.1:9166`, `[::1]:9166`, `0.0.0.0:9166`; nil when malformed or the port is out of 0...65535.
    public init?(parsing text: String) {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            if host.contains(":") { return nil }
        }
        guard !host.isEmpty, host.utf8.count <= 253, !SpecRules.hasControlCharacters(String(host)), !host.contains(" "),
              port.utf8.count <= 5, port.allSatisfy(\.isASCII), let number = Int(port), (0...65_535).contains(number) else { return nil }
        self.host = String(host)
        self.port = number
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
