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
    /// The spec of one of the kinds (`spec.kind`).
    public var spec: any CheckSpec

    public init(name: String, spec: any CheckSpec) {
        self.name = name
        self.spec = spec
    }

    public static func == (lhs: SuiteCheck, rhs: SuiteCheck) -> Bool {
        lhs.name == rhs.name && lhs.spec.isEqual(rhs.spec)
    }

    /// Whether `name` is a valid check name.
    public static func isValid(name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }
}
