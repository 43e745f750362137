import SondeLink

/// A suite: named checks declared once and run again and again (`sonde run SUITE.yaml`), one
/// after another unless `parallel` lets independent checks overlap. `SuiteLoader` reads one from
/// a file (validated whole before anything runs); `--print-suite` writes one entry.
public struct Suite: Equatable, Sendable {
    /// Checks run at once at most (1: in order).
    public var parallel: Int
    public var checks: [SuiteCheck]

    public init(parallel: Int = 1, checks: [SuiteCheck]) {
        self.parallel = parallel
        self.checks = checks
    }

    /// The most checks a suite may run at once.
    public static let maxParallel = 16
    /// The most checks a suite may declare.
    public static let maxChecks = 1000
}

/// One check of a suite: a unique name (`[a-z0-9_-]`, 1–64 characters) and its kind's spec.
public struct SuiteCheck: Equatable, Sendable {
    public var name: String
    public var spec: Spec

    public init(name: String, spec: Spec) {
        self.name = name
        self.spec = spec
    }

    /// The spec of one of the kinds.
    public enum Spec: Equatable, Sendable {
        case probe(ProbeSpec)
        case soak(SoakSpec)
        case resume(ResumeSpec)
        case audit(AuditSpec)

        public var kind: CheckKind {
            switch self {
            case .probe: return .probe
            case .soak: return .soak
            case .resume: return .resume
            case .audit: return .audit
            }
        }

        /// The URLs the check reaches (a probe's or an audit's, or the one of a soak or resume).
        public var urls: [String] {
            switch self {
            case .probe(let spec): return spec.urls
            case .soak(let spec): return [spec.url]
            case .resume(let spec): return [spec.url]
            case .audit(let spec): return spec.urls
            }
        }

        /// The check's own thresholds, as written.
        public var thresholds: [String] {
            switch self {
            case .probe(let spec): return spec.thresholds ?? []
            case .soak(let spec): return spec.thresholds ?? []
            case .resume(let spec): return spec.thresholds ?? []
            case .audit(let spec): return spec.thresholds ?? []
            }
        }

        /// The emulated link the check runs over (`link`), parsed; nil without one.
        public var linkProfile: LinkProfile? {
            switch self {
            case .probe(let spec): return spec.linkProfile
            case .soak(let spec): return spec.linkProfile
            case .resume(let spec): return spec.linkProfile
            case .audit(let spec): return spec.linkProfile
            }
        }

        public func problems() -> [SpecProblem] {
            switch self {
            case .probe(let spec): return spec.problems()
            case .soak(let spec): return spec.problems()
            case .resume(let spec): return spec.problems()
            case .audit(let spec): return spec.problems()
            }
        }
    }

    /// Whether `name` is a valid check name.
    public static func isValid(name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }
}
