extension SuiteLoader {
    /// A suite read from a file: the `Suite` to run (every `${NAME}` expanded, relative paths
    /// resolved, defaults merged in) and, for each check, the keys whose values referenced the
    /// environment with those values as written, so that a printed suite never contains the
    /// secrets it was given (`--print-suite` writes `${API_TOKEN}` back, not the token).
    ///
    /// Invariant: every check name in `written` is a check of `suite`, every key one of its kind's
    /// `keys`, and only keys whose value held a `${NAME}` reference are there (`thresholds` as the
    /// merged list: the defaults' items, then the check's).
    public struct Loaded: Equatable, Sendable {
        public var suite: Suite
        /// The file as messages name it.
        public var file: String
        /// Check name → key → the value as written, for values that referenced the environment.
        public var written: [String: [String: WrittenValue]]

        public init(suite: Suite, file: String, written: [String: [String: WrittenValue]] = [:]) {
            self.suite = suite
            self.file = file
            self.written = written
        }

        /// The keys of check `check` whose values came from the environment (in its kind's key
        /// order; empty for an unknown check): what a report should treat as secret.
        public func keysFromEnvironment(check: String) -> [String] {
            guard let keys = written[check], let entry = suite.checks.first(where: { $0.name == check }) else { return [] }
            return entry.spec.visitedKeys.map(\.name).filter { keys[$0] != nil }
        }

        /// The value of `key` in check `check` as the file wrote it, when it referenced the
        /// environment; nil when it did not (then the spec's value is the written one).
        public func unexpandedText(check: String, key: String) -> WrittenValue? {
            written[check]?[key]
        }

        /// The entry of check `name` as `entryYAML(name:spec:)` writes it, with values that came
        /// from the environment written as the file had them (`${NAME}`); nil for an unknown check.
        public func entryYAML(check name: String) -> String? {
            guard let check = suite.checks.first(where: { $0.name == name }) else { return nil }
            return SuiteYAMLWriter.entry(name: check.name, spec: check.spec, written: written[name] ?? [:])
        }

        /// The whole suite as a file (defaults merged into each check), with values that came
        /// from the environment written as the file had them.
        public func suiteYAML() -> String {
            SuiteYAMLWriter.suite(suite, written: written)
        }
    }

}
