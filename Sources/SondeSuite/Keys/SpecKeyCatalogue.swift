/// The keys a kind's `visitKeys` lists, in order (flags one by one).
struct SpecKeyCollector: SpecKeyVisitor {
    private(set) var keys: [SpecKey] = []
    /// The keys visited as required (`visitRequired`).
    private(set) var required: [SpecKey] = []

    mutating func visit<T: SpecValue>(_ key: SpecKey, _ value: inout T?) { keys.append(key) }
    mutating func visitRequired<T: SpecValue>(_ key: SpecKey, _ value: inout T) {
        keys.append(key)
        required.append(key)
    }
    mutating func visitFlags<T: Equatable & Sendable>(_ flags: [(key: SpecKey, value: T)], _ choice: inout T?, conflict: String) {
        keys += flags.map(\.key)
    }
}

/// Whether any visited key has a value (a required key counts as given).
struct SpecGivenCheck: SpecKeyVisitor {
    private(set) var isGiven = false

    mutating func visit<T: SpecValue>(_ key: SpecKey, _ value: inout T?) { isGiven = isGiven || value != nil }
    mutating func visitRequired<T: SpecValue>(_ key: SpecKey, _ value: inout T) { isGiven = true }
    mutating func visitFlags<T: Equatable & Sendable>(_ flags: [(key: SpecKey, value: T)], _ choice: inout T?, conflict: String) {
        isGiven = isGiven || choice != nil
    }
}

/// Each given value outside its key's `SpecKey.Bound`, as a problem in the command line's and the
/// suite's words (`SpecRules.number`, `SpecRules.duration`).
struct SpecBoundCheck: SpecKeyVisitor {
    private(set) var problems: [SpecProblem] = []

    mutating func visit<T: SpecValue>(_ key: SpecKey, _ value: inout T?) {
        guard let bound = key.bound, let value else { return }
        let problem: SpecProblem?
        switch bound {
        case .integer(let range): problem = SpecRules.number(value as? Int, key: key.name, within: range)
        case .atLeast(let minimum): problem = SpecRules.number(value as? Int, key: key.name, within: minimum...Int.max)
        case .number(let range):
            let number = value as? Double
            problem = number.map { !$0.isFinite } == true ? SpecProblem(key: key.name, "must be a finite number")
                : SpecRules.number(number, key: key.name, within: range)
        case .duration(let range): problem = SpecRules.duration(value as? DurationValue, key: key.name, within: range)
        }
        if let problem { problems.append(problem) }
    }

    mutating func visitRequired<T: SpecValue>(_ key: SpecKey, _ value: inout T) {}
    mutating func visitFlags<T: Equatable & Sendable>(_ flags: [(key: SpecKey, value: T)], _ choice: inout T?, conflict: String) {}
}

extension CheckSpec {
    /// Every key of this kind's own, in `visitKeys` order (without its extensions' keys:
    /// `CheckKinds.keyTable(of:)` has them all).
    public static var keyTable: [SpecKey] {
        var spec = unfilled
        var collector = SpecKeyCollector()
        spec.visitKeys(&collector)
        return collector.keys
    }

    /// Every key name of this kind's own, in the order `--print-suite` writes them.
    public static var keys: [String] { keyTable.map(\.name) }

    /// Every key of this spec, its extensions' (`ExtensibleSpec`) included, in `visitKeys` order.
    public var visitedKeys: [SpecKey] {
        var spec = self
        var collector = SpecKeyCollector()
        spec.visitKeys(&collector)
        return collector.keys
    }

    /// The keys every spec of this kind gives (`visitRequired`), in order.
    public static var requiredKeys: [String] {
        var spec = unfilled
        var collector = SpecKeyCollector()
        spec.visitKeys(&collector)
        return collector.required.map(\.name)
    }

    /// Keys whose values are file paths: a relative one in a suite file is read from the suite file's folder.
    public static var pathKeys: [String] { keyTable.filter(\.isPath).map(\.name) }

    /// The given values outside their keys' bounds: part of every kind's `problems()`.
    public var boundProblems: [SpecProblem] {
        var spec = self
        var check = SpecBoundCheck()
        spec.visitKeys(&check)
        return check.problems
    }
}

/// Reads or replaces the value of one text-list key of a spec, whatever its kind (`--print-suite`
/// replaces the `headers` of any kind that has them). A kind without the key is left as it is.
struct SpecTextListAccess: SpecKeyVisitor {
    let key: SpecKey
    /// The key's value as found (nil: not given, or no such key).
    private(set) var found: [String]?
    /// When set, the value the key gets (`.some(nil)`: none).
    var replacement: [String]??

    init(_ key: SpecKey, replacement: [String]?? = nil) {
        self.key = key
        self.replacement = replacement
    }

    mutating func visit<T: SpecValue>(_ key: SpecKey, _ value: inout T?) {
        guard key.name == self.key.name, T.self == [String].self else { return }
        found = value as? [String]
        if let replacement { value = replacement.flatMap { $0 as? T } }
    }

    mutating func visitRequired<T: SpecValue>(_ key: SpecKey, _ value: inout T) {}
    mutating func visitFlags<T: Equatable & Sendable>(_ flags: [(key: SpecKey, value: T)], _ choice: inout T?, conflict: String) {}
}

extension CheckSpec {
    /// The value of the text-list key `key` (`headers`); nil when not given or this kind has no such key.
    public func textList(_ key: SpecKey) -> [String]? {
        var spec = self
        var access = SpecTextListAccess(key)
        spec.visitKeys(&access)
        return access.found
    }

    /// Sets the text-list key `key` to `value` (nil: not given); nothing when this kind has no such key.
    public mutating func setTextList(_ key: SpecKey, _ value: [String]?) {
        var access = SpecTextListAccess(key, replacement: .some(value))
        visitKeys(&access)
    }
}
