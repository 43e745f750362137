import Foundation
import SondeCore
import SondeWebSocket

/// The spec of a soak check (`sonde soak`, `kind: soak`): WebSocket connections held for a while
/// with keepalive pings, echoed messages and reconnects with backoff. Keys are `sonde soak`'s
/// long options (see `CheckSpec`).
public struct SoakSpec: ExtensibleSpec {
    public typealias Kind = SoakKind
    public typealias EngineOptions = SoakOptions
    /// The one URL, as `CheckSpec` lists a check's.
    public var urls: [String] { [url] }

    public var url: String
    public var duration: DurationValue?
    public var connections: Int?
    public var ramp: DurationValue?
    public var pingInterval: DurationValue?
    public var pongTimeout: DurationValue?
    public var messageRate: Double?
    public var messageSize: SizeValue?
    public var subprotocols: [String]?
    /// The kind extensions' values (`KindExtension`, listed in `CheckKinds.extensions`), their
    /// keys visited after `subprotocols`.
    public var extensions = SpecExtensions<SoakSpec>()
    public var headers: [String]?
    public var backoffInitial: DurationValue?
    public var backoffMax: DurationValue?
    public var backoffMultiplier: Double?
    public var jitter: String?
    public var maxAttempts: Int?
    public var stableAfter: DurationValue?
    public var connectTimeout: DurationValue?
    public var discoverIdleTimeout: Bool?
    public var maxIdle: DurationValue?
    public var insecure: Bool?
    public var cacert: String?
    /// The emulated link (`LinkKey`), as written.
    public var link: String?
    public var thresholds: [String]?

    public init(url: String) { self.url = url }

    /// The defaults of what is not given.
    public static let defaults = (duration: 60.0, connections: 1, ramp: 0.0, pingInterval: 25.0, pongTimeout: 10.0, messageSize: Int64(64),
                                  backoffInitial: 0.5, backoffMax: 30.0, multiplier: 2.0, stableAfter: 10.0, connectTimeout: 10.0, maxIdle: 600.0)

    public static var unfilled: SoakSpec { SoakSpec(url: "") }

    public mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
        v.visitRequired(.url, &url)
        v.visit(.duration, &duration)
        v.visit(.connections, &connections)
        v.visit(.ramp, &ramp)
        v.visit(.pingInterval, &pingInterval)
        v.visit(.pongTimeout, &pongTimeout)
        v.visit(.messageRate, &messageRate)
        v.visit(.messageSize, &messageSize)
        v.visit(.subprotocols, &subprotocols)
        extensions.visitKeys(&v)
        v.visit(.headers, &headers)
        v.visit(.backoffInitial, &backoffInitial)
        v.visit(.backoffMax, &backoffMax)
        v.visit(.backoffMultiplier, &backoffMultiplier)
        v.visit(.jitter, &jitter)
        v.visit(.maxAttempts, &maxAttempts)
        v.visit(.stableAfter, &stableAfter)
        v.visit(.connectTimeout, &connectTimeout)
        v.visit(.discoverIdleTimeout, &discoverIdleTimeout)
        v.visit(.maxIdle, &maxIdle)
        v.visit(.insecure, &insecure)
        v.visit(.cacert, &cacert)
        v.visit(.link, &link)
        v.visit(.thresholds, &thresholds)
    }

    public func problems() -> [SpecProblem] {
        var problems: [SpecProblem] = []
        if let problem = URLArgument.problem(url, key: "url", schemes: URLArgument.webSocket) {
            problems.append(problem)
        } else {
            do throws(TaskError) { _ = try WebSocketURL(url) } catch { problems.append(SpecProblem(key: "url", error.message)) }
        }
        problems += boundProblems
        problems += [
            headerProblem,
            jitterProblem,
            tlsProblem,
            linkProblem,
            thresholdProblem,
        ].compactMap { $0 }
        for subprotocol in subprotocols ?? [] where subprotocol.isEmpty || subprotocol.contains(" ") || subprotocol.contains(",")
            || SpecRules.hasControlCharacters(subprotocol) {
            problems.append(SpecProblem(key: "subprotocols", "'\(subprotocol)' is not a subprotocol token (no spaces, commas or control characters)"))
        }
        if let problem = SpecRules.plainText(url, key: "url") { problems.append(problem) }
        problems += extensions.problems(in: self)
        if discoverIdleTimeout == true, let maxIdle, !(1...86_400).contains(maxIdle.seconds) {
            problems.append(SpecProblem(key: "max-idle", "must be between 1s and 24h"))
        }
        if problems.isEmpty, let problem = config(redactor: Redactor()).problem(maxMessageSize: SoakOptions.defaultMaxFrameSize) {
            problems.append(SpecProblem(key: problem.key, problem.message))
        }
        return problems
    }

    public func resolvingPaths(against folder: String) -> SoakSpec {
        var spec = self
        spec.cacert = Self.resolve(path: cacert, against: folder)
        spec.extensions = extensions.resolvingPaths(against: folder)
        return spec
    }

    /// The soak as the report records it, before the extensions add theirs (`makeOptions`):
    /// headers and (when `redactor` says so) subprotocols redacted.
    public func config(redactor: Redactor) -> SoakConfig {
        let d = Self.defaults
        let policy = BackoffPolicy(initialMs: (backoffInitial?.seconds ?? d.backoffInitial) * 1000, maxMs: (backoffMax?.seconds ?? d.backoffMax) * 1000,
                                   multiplier: backoffMultiplier ?? d.multiplier, jitter: (try? SpecRules.jitter(jitter).get()) ?? .full)
        let maxIdle = self.maxIdle?.seconds ?? d.maxIdle
        let discover = discoverIdleTimeout == true
        return SoakConfig(
            durationS: discover ? maxIdle : (duration?.seconds ?? d.duration),
            connections: discover ? IdleTimeoutDiscovery.ladder(upTo: maxIdle).count : (connections ?? d.connections),
            rampS: ramp?.seconds ?? d.ramp, pingIntervalS: pingInterval?.seconds ?? d.pingInterval, pongTimeoutS: pongTimeout?.seconds ?? d.pongTimeout,
            messageRate: messageRate ?? 0, messageSize: Int(clamping: messageSize?.bytes ?? d.messageSize),
            subprotocols: Self.redact(subprotocols: subprotocols ?? [], redactor), headers: redactor.redact(headers: headerFields),
            backoff: policy, stableAfterS: stableAfter?.seconds ?? d.stableAfter, maxAttempts: maxAttempts,
            connectTimeoutS: connectTimeout?.seconds ?? d.connectTimeout, insecure: insecure ?? false)
    }

    /// The idle-timeout discovery's longest silence (s) when this check runs one instead of a soak.
    public var discoveryMaxIdle: Double? { discoverIdleTimeout == true ? (maxIdle?.seconds ?? Self.defaults.maxIdle) : nil }

    /// The engine's options (call after `problems()` came back empty), as the extensions change
    /// them (a subprotocol spoken inside, offered first, and what the report's config records of it).
    public func makeOptions(redactor: Redactor) throws(SpecProblem) -> SoakOptions {
        let target: WebSocketURL
        do throws(TaskError) { target = try WebSocketURL(url) } catch { throw SpecProblem(key: "url", error.message) }
        let config = config(redactor: redactor)
        var options = SoakOptions(url: target, config: config, headers: headerFields, subprotocols: subprotocols ?? [], caFile: cacert)
        try extensions.apply(to: &options, of: self, redactor: redactor)
        return options
    }

    /// The offered subprotocols as the report records them: masked when the redactor names
    /// Sec-WebSocket-Protocol (APIs that browsers reach take tokens this way).
    public static func redact(subprotocols: [String], _ redactor: Redactor) -> [String] {
        redactor.isSecret(name: "Sec-WebSocket-Protocol") ? subprotocols.map { _ in Redactor.mask } : subprotocols
    }
}
