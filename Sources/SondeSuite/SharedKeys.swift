import SondeCore
import SondeLink

/// Keys that several kinds of check share, each a protocol so that one command-line option
/// group fills them in every spec that has them (`TLSOptions`, `HeaderOptions`, … in SondeCLI).

/// `insecure`, `cacert`: every kind. `cacert` replaces the system's trust roots, as curl's does.
public protocol TLSKeys {
    var insecure: Bool? { get set }
    var cacert: String? { get set }
}

/// `headers` (`-H`): every kind.
public protocol HeaderKeys {
    var headers: [String]? { get set }
}

/// `connect-timeout`: every kind.
public protocol ConnectTimeoutKey {
    var connectTimeout: DurationValue? { get set }
}

/// `resolve` (`host:port:address`): probe and resume.
public protocol ResolveKey {
    var resolve: [String]? { get set }
}

/// `backoff-initial`, `backoff-max`, `backoff-multiplier`, `jitter`: soak reconnects, resume retries.
public protocol BackoffKeys {
    var backoffInitial: DurationValue? { get set }
    var backoffMax: DurationValue? { get set }
    var backoffMultiplier: Double? { get set }
    var jitter: String? { get set }
}

/// `link`: every kind. The profile text as written (`LinkProfileParser`'s grammar).
public protocol LinkKey {
    var link: String? { get set }
}

// Each shared key's rule, said once for every kind that has the key.

extension TLSKeys {
    /// `cacert` names a readable regular file (`SpecRules.caFileProblem`).
    public var tlsProblem: SpecProblem? { SpecRules.caFileProblem(cacert) }
}

extension HeaderKeys {
    /// Every `headers` line is `Name: value` without control characters.
    public var headerProblem: SpecProblem? { SpecRules.headerFields(headers).failure }

    /// The header fields (call after `headerProblem` came back nil; malformed lines give none).
    public var headerFields: [HeaderField] { (try? SpecRules.headerFields(headers).get()) ?? [] }
}

extension ResolveKey {
    /// Every `resolve` entry is `host:port:address`.
    public var resolveProblem: SpecProblem? { SpecRules.resolveEntries(resolve) }
}

extension BackoffKeys {
    /// `jitter` is full, equal or none (the durations are the backoff policy's to judge).
    var jitterProblem: SpecProblem? { SpecRules.jitter(jitter).failure }
}

extension LinkKey {
    /// `link` parses as a profile (its own messages name the profile key at fault).
    public var linkProblem: SpecProblem? { SpecRules.linkProfile(link).failure }

    /// The parsed profile (call after `linkProblem` came back nil), nil without `link`.
    public var linkProfile: LinkProfile? { (try? SpecRules.linkProfile(link).get()) ?? nil }
}

extension CheckSpec {
    /// Every threshold parses and judges this kind (`CheckKind.judges`).
    public var thresholdProblem: SpecProblem? { SpecRules.thresholds(thresholds, kind: Self.Kind.self).failure }
}

extension ProbeSpec: TLSKeys, HeaderKeys, ConnectTimeoutKey, ResolveKey, LinkKey {}
extension SoakSpec: TLSKeys, HeaderKeys, ConnectTimeoutKey, BackoffKeys, LinkKey {}
extension ResumeSpec: TLSKeys, HeaderKeys, ConnectTimeoutKey, ResolveKey, BackoffKeys, LinkKey {}
