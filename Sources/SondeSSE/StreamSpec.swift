import Foundation
import SondeCore
import SondeHTTP
import SondeSuite

/// The spec of a stream check (`sonde stream`, `kind: sse`): Server-Sent Events read as
/// EventSource does, `streams` at once, for `duration` or `events` each. Keys are `sonde stream`'s
/// long options (see `CheckSpec`).
public struct StreamSpec: CheckSpec {
    public typealias Kind = SSEKind
    /// The one URL, as `CheckSpec` lists a check's.
    public var urls: [String] { [url] }

    public var url: String
    public var duration: DurationValue?
    public var streams: Int?
    public var events: Int?
    public var reconnect: Bool?
    public var retry: DurationValue?
    public var stampField: String?
    public var maxEventSize: SizeValue?
    /// nil: libcurl's default (HTTP/2 over TLS through ALPN, HTTP/1.1 in cleartext).
    public var httpVersion: HTTPVersionPreference?
    /// The client whose Accept-Encoding is sent (`ClientProfile`; default `urlsession`, as a probe's: browsers and apps send one).
    public var client: String?
    public var headers: [String]?
    public var connectTimeout: DurationValue?
    public var insecure: Bool?
    public var cacert: String?
    /// The emulated link (`LinkKey`), as written.
    public var link: String?
    /// The check's own pass/fail rules on the `sse.*` metrics (`SSEKind.metrics`).
    public var thresholds: [String]?

    public init(url: String) { self.url = url }

    public static var unfilled: StreamSpec { StreamSpec(url: "") }

    public static let defaults = (duration: 60.0, streams: 1, retry: 3.0)

    /// The HTTP versions a stream may ask for.
    static let httpVersionFlags: [(key: SpecKey, value: HTTPVersionPreference)] = [
        (.http11, .http1_1), (.http2, .http2), (.http2PriorKnowledge, .http2PriorKnowledge),
    ]

    public mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
        v.visitRequired(.url, &url)
        v.visit(.streamDuration, &duration)
        v.visit(.streams, &streams)
        v.visit(.events, &events)
        v.visit(.reconnect, &reconnect)
        v.visit(.retry, &retry)
        v.visit(.stampField, &stampField)
        v.visit(.maxEventSize, &maxEventSize)
        v.visitFlags(Self.httpVersionFlags, &httpVersion, conflict: "give one HTTP version flag at most")
        v.visit(.client, &client)
        v.visit(.headers, &headers)
        v.visit(.connectTimeout, &connectTimeout)
        v.visit(.insecure, &insecure)
        v.visit(.cacert, &cacert)
        v.visit(.link, &link)
        v.visit(.thresholds, &thresholds)
    }

    public func problems() -> [SpecProblem] {
        var problems: [SpecProblem] = []
        if let problem = SpecRules.url(url, key: "url", schemes: ["http", "https"]) {
            problems.append(problem)
        } else if let problem = StreamingTransfer.problem(url: url) {
            problems.append(SpecProblem(key: "url", problem))
        }
        problems += boundProblems
        if let size = maxEventSize, !(1024...(64 << 20)).contains(size.bytes) {
            problems.append(SpecProblem(key: "max-event-size", "must be between 1KiB and 64MiB"))
        }
        if let field = stampField, field.isEmpty || field.count > 128 || SpecRules.hasControlCharacters(field) {
            problems.append(SpecProblem(key: "stamp-field", "must be 1 to 128 characters without control characters"))
        }
        if let client, ClientProfile(rawValue: client) == nil {
            problems.append(SpecProblem(key: "client", "'\(client)' is not one of \(ClientProfile.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        if let problem = headerProblem { problems.append(problem) }
        if let problem = tlsProblem { problems.append(problem) }
        if let problem = SpecRules.plainText(url, key: "url") { problems.append(problem) }
        if httpVersion?.wantsHTTP3 == true {
            problems.append(SpecProblem(key: "http3", "event streams over HTTP/3 are not measured yet: use --http1.1 or --http2"))
        }
        problems += [linkProblem, thresholdProblem].compactMap { $0 }
        return problems
    }

    /// The spec with `cacert` resolved against `folder` when relative (a suite's folder).
    public func resolvingPaths(against folder: String) -> StreamSpec {
        var spec = self
        spec.cacert = Self.resolve(path: cacert, against: folder)
        return spec
    }

    /// The engine's options (call after `problems()` came back empty).
    public func makeOptions() -> StreamOptions {
        var options = StreamOptions(url: url)
        options.headers = headerFields
        options.streams = streams ?? Self.defaults.streams
        options.durationS = duration?.seconds ?? Self.defaults.duration
        options.maxEventsPerStream = events
        options.reconnect = reconnect ?? true
        options.defaultRetryMs = Int((retry?.seconds ?? Self.defaults.retry) * 1000)
        options.stampField = stampField
        if let size = maxEventSize { options.maxEventBytes = Int(size.bytes) }
        var transport = ProbeOptions()
        transport.httpVersion = httpVersion ?? .automatic
        transport.client = client.flatMap(ClientProfile.init(rawValue:)) ?? .urlsession
        transport.insecure = insecure ?? false
        transport.caCertPath = cacert
        transport.connectTimeoutMs = connectTimeout.map(SpecRules.milliseconds) ?? 10_000
        options.transport = transport
        return options
    }
}

extension StreamSpec: TLSKeys, HeaderKeys, ConnectTimeoutKey, LinkKey {}
