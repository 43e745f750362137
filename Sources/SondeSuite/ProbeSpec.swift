import Foundation
import SondeCore
import SondeHTTP

/// The spec of a probe check (`sonde probe`, `kind: probe`): URLs fetched through libcurl with
/// URLSessionTaskMetrics-style timing. Keys are `sonde probe`'s long options (see `CheckSpec`);
/// the HTTP version is one of the flags `http1.1`, `http2`, `http2-prior-knowledge`, `http3`,
/// `http3-only` set to true, the address family `ipv4` or `ipv6`. The keys are declared once, in
/// `visitKeys` (`SpecKey`): decoding, encoding, bounds and the suite schema follow from them.
public struct ProbeSpec: ExtensibleSpec {
    public typealias Kind = ProbeKind
    public typealias EngineOptions = ProbeOptions

    /// The URLs to fetch, each with the name its results go by, if given (`ProbeRequest`).
    public var requests: [ProbeRequest]
    /// The URLs alone, in order (setting them drops every name).
    public var urls: [String] {
        get { requests.map(\.url) }
        set { requests = newValue.map { ProbeRequest(url: $0) } }
    }
    /// Fetches per URL (default 1).
    public var count: Int?
    /// Tasks at once (default 1).
    public var parallel: Int?
    /// nil: libcurl's default (HTTP/2 over TLS through ALPN, HTTP/1.1 in cleartext).
    public var httpVersion: HTTPVersionPreference?
    /// The request method (`-X`); default GET, or POST with a body.
    public var request: String?
    public var headers: [String]?
    public var data: String?
    public var dataFile: String?
    /// Per hop (default 30 s; 0 for none).
    public var timeout: DurationValue?
    public var connectTimeout: DurationValue?
    public var insecure: Bool?
    public var cacert: String?
    public var pinnedPubkey: String?
    /// nil: any address family.
    public var ipVersion: IPVersion?
    public var resolve: [String]?
    public var dohURL: String?
    public var proxy: String?
    public var noReuse: Bool?
    /// `--alt-svc FILE`: the Alt-Svc cache kept across runs (libcurl's format).
    public var altSvc: String?
    /// `--no-alt-svc`: never follow an origin's Alt-Svc to h3.
    public var noAltSvc: Bool?
    public var maxRedirects: Int?
    public var expectStatus: String?
    /// `urlsession` (the default), `okhttp` or `plain` (`ClientProfile`).
    public var client: String?
    /// The kind extensions' values (`KindExtension`, listed in `CheckKinds.extensions`), their
    /// keys visited after `client`.
    public var extensions = SpecExtensions<ProbeSpec>()
    /// The emulated link (`LinkKey`), as written.
    public var link: String?
    public var thresholds: [String]?

    public init(urls: [String]) { requests = urls.map { ProbeRequest(url: $0) } }

    public init(requests: [ProbeRequest]) { self.requests = requests }

    /// A silent server holds a hop this long at most unless `timeout` says otherwise.
    public static let defaultTimeout = DurationValue(seconds: 30)

    public static var unfilled: ProbeSpec { ProbeSpec(urls: []) }

    public mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
        v.visitRequired(.urls, &requests)
        v.visit(.count, &count)
        v.visit(.parallel, &parallel)
        v.visitFlags(SpecKey.httpVersionFlags, &httpVersion, conflict: "choose one of http1.1, http2, http2-prior-knowledge, http3, http3-only")
        v.visit(.request, &request)
        v.visit(.headers, &headers)
        v.visit(.data, &data)
        v.visit(.dataFile, &dataFile)
        v.visit(.timeout, &timeout)
        v.visit(.connectTimeout, &connectTimeout)
        v.visit(.insecure, &insecure)
        v.visit(.cacert, &cacert)
        v.visit(.pinnedPubkey, &pinnedPubkey)
        v.visitFlags([(.ipv4, IPVersion.v4), (.ipv6, IPVersion.v6)], &ipVersion, conflict: "choose one of ipv4 and ipv6")
        v.visit(.resolve, &resolve)
        v.visit(.dohURL, &dohURL)
        v.visit(.proxy, &proxy)
        v.visit(.noReuse, &noReuse)
        v.visit(.altSvc, &altSvc)
        v.visit(.noAltSvc, &noAltSvc)
        v.visit(.maxRedirects, &maxRedirects)
        v.visit(.expectStatus, &expectStatus)
        v.visit(.client, &client)
        extensions.visitKeys(&v)
        v.visit(.link, &link)
        v.visit(.thresholds, &thresholds)
    }

    public func problems() -> [SpecProblem] {
        var problems: [SpecProblem] = []
        if requests.isEmpty { problems.append(SpecProblem(key: "urls", "give at least one URL")) }
        problems += urls.compactMap(Self.urlProblem)
        for request in requests {
            guard let name = request.name, let problem = RequestName.problem(name) else { continue }
            problems.append(SpecProblem(key: "urls", "\(problem) (the name of \(request.url))"))
        }
        problems += boundProblems
        problems += [
            headerProblem,
            resolveProblem,
            SpecRules.readableFile(dataFile, key: "data-file", maxBytes: Self.maxBodyBytes),
            SpecRules.url(dohURL, key: "doh-url", schemes: ["https"]),
            SpecRules.url(proxy, key: "proxy", schemes: ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]),
            pinnedPubkey.flatMap { $0.hasPrefix("sha256//") ? nil : SpecRules.readableFile($0, key: "pinned-pubkey", maxBytes: 1 << 20) },
            tlsProblem,
            linkProblem,
            thresholdProblem,
        ].compactMap { $0 }
        problems += extensions.problems(in: self)
        if data != nil && dataFile != nil { problems.append(SpecProblem(key: "data-file", "choose one of data and data-file")) }
        if altSvc != nil && noAltSvc == true { problems.append(SpecProblem(key: "no-alt-svc", "choose one of alt-svc and no-alt-svc")) }
        if let altSvc, let problem = SpecRules.writableFile(altSvc, key: "alt-svc", maxBytes: 1 << 20) { problems.append(problem) }
        if let expectStatus, StatusSet(parsing: expectStatus) == nil {
            problems.append(SpecProblem(key: "expect-status", "'\(expectStatus)' is not a list of status codes or ranges like 200-299,404"))
        }
        if let client, ClientProfile(rawValue: client) == nil {
            problems.append(SpecProblem(key: "client", "must be one of \(SpecKey.client.choices.joined(separator: ", ")) (got '\(client)')"))
        }
        if let request, request.isEmpty || request.contains(" ") || SpecRules.hasControlCharacters(request) {
            problems.append(SpecProblem(key: "request", "'\(request)' is not a valid method"))
        }
        return problems
    }

    /// A URL that is not http:// or https:// (`URLArgument`, with the URL meant) or that libcurl
    /// cannot parse: the command line and a suite refuse it before anything is looked up or sent.
    /// (A command line's URL may hold spaces and quotes, sent as libcurl sends them.)
    static func urlProblem(_ url: String) -> SpecProblem? {
        URLArgument.problem(url, key: "urls", schemes: URLArgument.http)
            ?? StreamingTransfer.problem(url: url, allowingSpaces: true).map { SpecProblem(key: "urls", $0) }
    }

    /// URLs holding spaces or control characters (and no problem of `urlProblem`): a suite file
    /// refuses them too, before anything runs.
    public func suiteURLProblems() -> [SpecProblem] {
        urls.filter { Self.urlProblem($0) == nil }.compactMap { SpecRules.plainText($0, key: "urls") }
    }

    /// The largest request body read from `data-file` (bytes).
    public static let maxBodyBytes: Int64 = 256 << 20

    public func resolvingPaths(against folder: String) -> ProbeSpec {
        var spec = self
        spec.dataFile = Self.resolve(path: dataFile, against: folder)
        spec.cacert = Self.resolve(path: cacert, against: folder)
        spec.altSvc = Self.resolve(path: altSvc, against: folder)
        if let pinned = pinnedPubkey, !pinned.hasPrefix("sha256//") { spec.pinnedPubkey = Self.resolve(path: pinned, against: folder) }
        spec.extensions = extensions.resolvingPaths(against: folder)
        return spec
    }

    /// The engine's options (call after `problems()` came back empty); reads `data-file`, then
    /// lets the extensions change them (`redactor`: the run's, for what they keep of a response).
    public func makeOptions(redactor: Redactor) throws(SpecProblem) -> ProbeOptions {
        var options = ProbeOptions()
        options.count = count ?? 1
        options.parallel = parallel ?? 1
        options.httpVersion = httpVersion ?? .automatic
        switch SpecRules.headerFields(headers) {
        case .success(let fields): options.headers = fields
        case .failure(let problem): throw problem
        }
        if let data { options.body = Array(data.utf8) }
        if let dataFile {
            guard let contents = FileManager.default.contents(atPath: dataFile) else {
                throw SpecProblem(key: "data-file", "cannot read \(dataFile): no such file, or not readable")
            }
            options.body = Array(contents)
        }
        options.method = request?.uppercased() ?? (options.body == nil ? "GET" : "POST")
        let timeout = self.timeout ?? Self.defaultTimeout
        options.timeoutMs = timeout.seconds == 0 ? nil : SpecRules.milliseconds(timeout)
        options.connectTimeoutMs = connectTimeout.map(SpecRules.milliseconds)
        options.insecure = insecure ?? false
        options.caCertPath = cacert
        options.pinnedPublicKey = pinnedPubkey
        options.ipVersion = ipVersion ?? .any
        options.resolve = resolve ?? []
        options.dohURL = dohURL
        options.proxy = proxy
        options.reuseConnections = !(noReuse ?? false)
        options.altSvc = !(noAltSvc ?? false)
        options.altSvcFile = altSvc
        options.maxRedirects = maxRedirects ?? 10
        options.acceptedStatus = expectStatus.flatMap(StatusSet.init(parsing:))
        options.client = client.flatMap(ClientProfile.init(rawValue:)) ?? .urlsession
        try extensions.apply(to: &options, of: self, redactor: redactor)
        return options
    }
}
