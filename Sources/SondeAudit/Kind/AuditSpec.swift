import Foundation
import SondeCore
import SondeSuite

/// The spec of an audit check (`sonde audit`, `kind: audit`): URLs checked for mobile clients
/// (TLS and certificate against Apple's ATS rules, HTTP as URLSession meets it; docs/audit.md).
/// Keys are `sonde audit`'s long options (see `CheckSpec`).
public struct AuditSpec: CheckSpec {
    public typealias Kind = AuditKind

    public var urls: [String]
    public var cacert: String?
    /// Finding ids as written; an item may hold several, comma-separated.
    public var only: [String]?
    public var skip: [String]?
    /// `fail` (default) or `warn`.
    public var failOn: String?
    /// `ios>=15,android>=13` (`ClientTargetSet`); nil: the vendor-supported versions.
    public var clients: String?
    public var connectTimeout: DurationValue?
    /// Each request's and handshake's bound (`timeout`, the key `probe` has: one transfer's limit).
    public var timeout: DurationValue?
    public var budget: DurationValue?
    /// `ipv6.app-review`: the most handed-out URLs followed (`app-review-urls`).
    public var appReviewURLs: Int?
    /// `ipv6.app-review`: other sites' hosts followed too (`cdn-hosts`); an item may hold several, comma-separated.
    public var cdnHosts: [String]?
    /// The emulated link (`LinkKey`), as written.
    public var link: String?
    /// `host:port:address` entries (`ResolveKey`) every request and handshake of the audit uses.
    public var resolve: [String]?
    public var thresholds: [String]?

    public init(urls: [String]) { self.urls = urls }

    /// The defaults of what is not given: each handshake's connect bound, each request's and
    /// handshake's bound, each URL's budget (s; without `budget`, at least `budgetPerTimeout`
    /// times `timeout`, so that a longer timeout is not cut by the budget).
    public static let defaults = (connectTimeout: 2.0, timeout: 3.0, budget: 8.0)
    /// The default budget holds this many requests at the whole `timeout` (the GET twice and the revalidation).
    public static let budgetPerTimeout = 3.0
    /// The longest connect bound an audit takes (s): a handshake is one of ~100.
    public static let maxConnectTimeout = 60.0
    /// An audit's `timeout` range (s): each of ~100 handshakes needs one, so never none.
    public static let timeoutRange = 0.1...600.0

    public static var unfilled: AuditSpec { AuditSpec(urls: []) }

    public mutating func visitKeys<V: SpecKeyVisitor>(_ v: inout V) {
        v.visitRequired(.auditURLs, &urls)
        v.visit(.cacert, &cacert)
        v.visit(.only, &only)
        v.visit(.skip, &skip)
        v.visit(.failOn, &failOn)
        v.visit(.clients, &clients)
        v.visit(.connectTimeout, &connectTimeout)
        v.visit(.timeout, &timeout)
        v.visit(.budget, &budget)
        v.visit(.appReviewURLs, &appReviewURLs)
        v.visit(.cdnHosts, &cdnHosts)
        v.visit(.resolve, &resolve)
        v.visit(.link, &link)
        v.visit(.thresholds, &thresholds)
    }

    public func problems() -> [SpecProblem] {
        var problems: [SpecProblem] = []
        if urls.isEmpty { problems.append(SpecProblem(key: "urls", "give at least one http or https URL")) }
        for url in urls {
            if let problem = URLArgument.problem(url, key: "urls", schemes: URLArgument.http) {
                problems.append(problem)
            } else {
                do throws(AuditURLError) { _ = try Auditor.parse(url) } catch { problems.append(SpecProblem(key: "urls", error.description)) }
            }
            if let problem = SpecRules.plainText(url, key: "urls") { problems.append(problem) }
        }
        if let failOn, failOn != "fail" && failOn != "warn" { problems.append(SpecProblem(key: "fail-on", "takes fail or warn, not \(failOn)")) }
        if let clients, case .failure(let error) = ClientTargetSet.parse(clients) { problems.append(SpecProblem(key: "clients", error.description)) }
        if let seconds = connectTimeout?.seconds, seconds > Self.maxConnectTimeout {
            problems.append(SpecProblem(key: "connect-timeout", "must be at most \(Int(Self.maxConnectTimeout))s for an audit (each of ~100 handshakes)"))
        }
        if let seconds = timeout?.seconds, !Self.timeoutRange.contains(seconds) {
            problems.append(SpecProblem(key: "timeout", "must be 0.1s…600s for an audit (each request and handshake needs a bound)"))
        }
        if let seconds = timeout?.seconds, let budget = budget?.seconds, seconds > budget {
            problems.append(SpecProblem(key: "timeout", "must not exceed the budget (\(budget)s): no request could run to its timeout"))
        }
        for host in Self.ids(cdnHosts)?.sorted() ?? [] where !Self.isHostPattern(host) {
            problems.append(SpecProblem(key: "cdn-hosts", "takes host names or *.suffix, not \(host)"))
        }
        let known = Set(AuditOptions.findingIDs)
        for (key, list) in [("only", only), ("skip", skip)] {
            for id in Self.ids(list) ?? [] where !known.contains(id) {
                problems.append(SpecProblem(key: key, "names no finding \(id) (known: \(AuditOptions.findingIDs.joined(separator: ", ")))"))
            }
        }
        if let problem = SpecRules.caFileProblem(cacert) { problems.append(problem) }
        problems += boundProblems
        problems += [resolveProblem, linkProblem, thresholdProblem].compactMap { $0 }
        return problems
    }

    public func resolvingPaths(against folder: String) -> AuditSpec {
        var spec = self
        spec.cacert = Self.resolve(path: cacert, against: folder)
        return spec
    }

    /// The ids of `only`/`skip` items, comma-separated ones split; nil without the key.
    static func ids(_ list: [String]?) -> Set<String>? {
        list.map { Set($0.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }) }
    }

    /// The `clients` target set (valid: `problems()` came back empty), the default without one.
    var clientTargets: ClientTargetSet {
        guard let clients, case .success(let set) = ClientTargetSet.parse(clients) else { return .vendorSupported }
        return set
    }

    /// A host name (letters, digits, `-`, `.`, at most 253 characters) or `*.` and one.
    static func isHostPattern(_ text: String) -> Bool {
        let name = text.hasPrefix("*.") ? String(text.dropFirst(2)) : text
        guard !name.isEmpty, name.count <= 253, !name.hasPrefix("."), !name.hasSuffix("."), !name.contains("..") else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".") }
    }

    /// The severity that fails the audit.
    public var failSeverity: AuditFinding.Severity { failOn == "warn" ? .warn : .fail }

    /// The auditor's options of this spec (valid: `problems()` came back empty).
    public var auditOptions: AuditOptions {
        let timeoutS = timeout?.seconds ?? Self.defaults.timeout
        let budgetS = budget?.seconds ?? max(Self.defaults.budget, Self.budgetPerTimeout * timeoutS)
        return AuditOptions(caFile: cacert,
                            connectTimeoutMs: Int(((connectTimeout?.seconds ?? Self.defaults.connectTimeout) * 1000).rounded(.up)),
                            probeTimeoutMs: Int((timeoutS * 1000).rounded(.up)),
                            budgetMs: Int((budgetS * 1000).rounded(.up)),
                            only: Self.ids(only), skip: Self.ids(skip) ?? [], resolve: resolve ?? [], clientTargets: clientTargets,
                            handedOutLimit: appReviewURLs ?? AuditOptions.defaultHandedOutLimit,
                            cdnHosts: (Self.ids(cdnHosts) ?? []).sorted())
    }
}

extension AuditSpec: ConnectTimeoutKey, LinkKey, ResolveKey {}
