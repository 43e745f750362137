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

extension ProbeSpec: TLSKeys, HeaderKeys, ConnectTimeoutKey, ResolveKey {}
extension SoakSpec: TLSKeys, HeaderKeys, ConnectTimeoutKey, BackoffKeys {}
extension ResumeSpec: TLSKeys, HeaderKeys, ConnectTimeoutKey, ResolveKey, BackoffKeys {}
