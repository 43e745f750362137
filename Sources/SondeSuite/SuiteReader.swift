import SondeCore
import SondeLink
import Yams

/// One walk over a composed suite document (after `BoundedYAML`'s bounds passed), collecting every
/// problem instead of stopping at the first: the rules are `SuiteLoader`'s. Each value is expanded
/// (`${NAME}`) once, where it is read; problems about values inherited from `defaults` are said at
/// the default, once (`sortedProblems()` drops repeats). Another document made of a suite's parts
/// (serve's config, in SondeServe) reads them with it and its own keys with `package` extensions.
package struct SuiteReader {
    /// Which file is read: a suite (`sonde run`, `Document.suite`), or a document that holds a
    /// suite's keys among its own (serve's config: its top keys, a schedule in each check).
    package struct Document {
        /// The keys the document's top mapping takes (a suite's `topKeys` among them).
        package var topKeys: [String]
        /// What the top mapping is, for the message when it is not one.
        package var shape: String
        /// Whether `checks:` must be there with at least one check (else none is a document with no checks).
        package var needsChecks: Bool
        /// `parallel:` when the document does not say.
        package var defaultParallel: Int
        /// The keys each check (and `defaults`) takes beside its kind's.
        package var checkKeys: [String]
        /// Reads those keys of each check whose kind is known, before its spec (so its problems come
        /// first at a shared place): the check's name (nil when it has none or a taken one), its own
        /// entries and the defaults' (both with every key). A reference the document owns may keep what it reads.
        package var readCheckKeys: ((inout SuiteReader, _ name: String?, _ own: [String: Entry], _ defaults: [String: Entry], _ start: Mark?) -> Void)?

        package init(topKeys: [String], shape: String, needsChecks: Bool, defaultParallel: Int, checkKeys: [String],
                     readCheckKeys: ((inout SuiteReader, String?, [String: Entry], [String: Entry], Mark?) -> Void)?) {
            self.topKeys = topKeys
            self.shape = shape
            self.needsChecks = needsChecks
            self.defaultParallel = defaultParallel
            self.checkKeys = checkKeys
            self.readCheckKeys = readCheckKeys
        }

        /// A suite of `sonde run`.
        package static var suite: Document {
            Document(topKeys: SuiteReader.topKeys, shape: "a suite is a mapping with checks: (and optionally parallel: and defaults:)",
                     needsChecks: true, defaultParallel: 1, checkKeys: [], readCheckKeys: nil)
        }
    }

    package let file: String
    package let folder: String
    package let environment: [String: String]
    package let document: Document
    /// The kinds a check may be (`kind:`), and what `defaults` may hold.
    package let kinds: CheckKinds
    /// The keys `defaults` may hold: every kind's keys, each once, in the kinds' order (`CheckKinds.defaultsKeys`).
    let defaultsKeys: [String]
    /// Every key's type, for messages (`CheckKinds.valueTypes`).
    let valueTypes: [String: SuiteValueType]
    /// The environment variables the file refers to (`${NAME}`), whose values no message shows.
    var usedVariables = Set<String>()
    package var problems: [SuiteLoader.Problem] = []
    /// The file's named link profiles (`links:`), by name: a check's `link:` naming one gets its text.
    var namedLinks: [String: String] = [:]

    package init(file: String, folder: String, environment: [String: String], document: Document = .suite, kinds: CheckKinds) {
        self.file = file
        self.folder = folder
        self.environment = environment
        self.document = document
        self.kinds = kinds
        defaultsKeys = kinds.defaultsKeys
        valueTypes = kinds.valueTypes
    }

    /// The top-level keys of the document.
    var topKeys: [String] { document.topKeys }

    /// A key's value in a mapping of the file.
    ///
    /// Invariant: `raw` and `value` have the same shape and marks (`value` is `raw` with every
    /// scalar expanded); `referencesEnvironment` says whether any of its scalars held `${NAME}`;
    /// `expansionFailed` whether one could not be expanded (reported already: the value is not
    /// decoded, so that no second problem follows from the first).
    package struct Entry {
        package var keyMark: Mark?
        package var raw: Node
        package var value: Node
        package var referencesEnvironment: Bool
        package var expansionFailed = false

        package init(keyMark: Mark?, raw: Node, value: Node, referencesEnvironment: Bool, expansionFailed: Bool = false) {
            self.keyMark = keyMark
            self.raw = raw
            self.value = value
            self.referencesEnvironment = referencesEnvironment
            self.expansionFailed = expansionFailed
        }
    }

    package static let topKeys = ["parallel", "links", "defaults", "checks"]
    /// The kinds' names, for messages.
    var kindNames: String { kinds.names.joined(separator: ", ") }

    // MARK: The document

    /// The suite and what its checks wrote with `${NAME}`; nil when a problem keeps it from being built.
    package mutating func read(_ root: Node) -> SuiteLoader.Loaded? {
        guard case .mapping(let top) = root else {
            report(root.mark, key: nil, "\(document.shape), not \(Self.describe(root))")
            return nil
        }
        let entries = top.compactMap { self.entry($0, expanding: false) }
        for (key, entry) in entries where !topKeys.contains(key) {
            report(entry.keyMark, key: key, "unknown key (allowed: \(topKeys.joined(separator: ", ")))")
        }
        let byKey = Dictionary(entries, uniquingKeysWith: { first, _ in first })
        let parallel = byKey["parallel"].flatMap { readParallel(expanded($0, key: "parallel")) }
        if let links = byKey["links"] { readLinks(expanded(links, key: "links")) }
        let defaults = byKey["defaults"].map { readDefaults(expanded($0, key: "defaults")) } ?? [:]
        let defaultParallel = document.defaultParallel
        guard let checksEntry = byKey["checks"] else {
            // serve without checks is an exporter for /probe alone.
            guard document.needsChecks else { return SuiteLoader.Loaded(suite: Suite(parallel: parallel ?? defaultParallel, checks: []), file: file) }
            report(root.mark, key: "checks", "missing: a suite needs checks: with at least one check")
            return nil
        }
        let (checks, written) = readChecks(checksEntry, defaults: defaults)
        return SuiteLoader.Loaded(suite: Suite(parallel: parallel ?? defaultParallel, checks: checks), file: file, written: written)
    }

    mutating func readParallel(_ entry: Entry) -> Int? {
        let range = 1...Suite.maxParallel
        guard case .scalar(let scalar) = entry.value, let number = Int.construct(from: scalar) else {
            report(entry.value.mark, key: "parallel",
                   "expected a whole number from \(range.lowerBound) to \(range.upperBound) (got \(Self.describe(entry.raw)))")
            return nil
        }
        guard range.contains(number) else {
            report(entry.value.mark, key: "parallel", "must be between \(range.lowerBound) and \(range.upperBound) (got \(number))")
            return nil
        }
        return number
    }

    /// `links:`, a mapping of names (a check name's characters, not a preset's) to link profiles,
    /// each checked whole; `link: NAME` in a check or in `defaults` then means that profile, named NAME.
    mutating func readLinks(_ linksEntry: Entry) {
        guard case .mapping(let mapping) = linksEntry.value else {
            report(linksEntry.value.mark, key: "links", "expected a mapping of names to link profiles, e.g. tunnel: \"lte,outage=5s/60s\" (got \(Self.describe(linksEntry.raw)))")
            return
        }
        for (key, value) in mapping {
            guard let name = key.scalar?.string, SuiteCheck.isValid(name: name), LinkPresets.preset(name) == nil else {
                report(key.mark, key: "links", "\(Self.describe(key)) cannot name a link: use 1 to 64 of a-z, 0-9, _ and -, and not a preset's name (\(LinkPresets.names.joined(separator: ", ")))")
                continue
            }
            guard case .scalar(let text) = value else {
                report(value.mark, key: "links", "\(name): expected a link profile as text (got \(Self.describe(value)))")
                continue
            }
            let definition = text.string + ",name=" + name
            if case .failure(let problem) = SpecRules.linkProfile(definition) {
                report(value.mark, key: "links", "\(name): \(problem.message)")
                continue
            }
            namedLinks[name] = definition
        }
    }

    mutating func readDefaults(_ defaultsEntry: Entry) -> [String: Entry] {
        var failedKeys: Set<String> = []
        if case .mapping(let rawMapping) = defaultsEntry.raw {
            for (key, value) in rawMapping where !Self.expands(value, environment: environment) { failedKeys.insert(key.scalar?.string ?? "") }
        }
        guard case .mapping(let mapping) = defaultsEntry.value, case .mapping(let rawMapping) = defaultsEntry.raw else {
            report(defaultsEntry.value.mark, key: "defaults", "expected a mapping of keys every check inherits (got \(Self.describe(defaultsEntry.raw)))")
            return [:]
        }
        var defaults: [String: Entry] = [:]
        for (pair, rawPair) in zip(mapping, rawMapping) {
            guard let (key, inner) = entry(rawPair, expanding: false) else { continue }
            let inherited = Entry(keyMark: inner.keyMark, raw: inner.raw, value: pair.value, referencesEnvironment: Self.references(inner.raw),
                                  expansionFailed: failedKeys.contains(key))
            if key == "name" || key == "kind" {
                report(inner.keyMark, key: key, "belongs in each check, not in defaults")
            } else if !defaultsKeys.contains(key) && !document.checkKeys.contains(key) {
                report(inner.keyMark, key: key, "unknown key: no kind of check takes it (allowed in defaults: \((defaultsKeys + document.checkKeys).joined(separator: ", ")))")
            } else {
                defaults[key] = inherited
            }
        }
        return defaults
    }

    mutating func readChecks(_ entry: Entry, defaults: [String: Entry]) -> ([SuiteCheck], [String: [String: SuiteLoader.WrittenValue]]) {
        guard case .sequence(let items) = entry.raw else {
            report(entry.value.mark, key: "checks", "expected a list of checks (got \(Self.describe(entry.raw)))")
            return ([], [:])
        }
        if items.isEmpty && document.needsChecks { report(entry.value.mark, key: "checks", "needs at least one check") }
        if items.count > Suite.maxChecks {
            report(items[Suite.maxChecks].mark, key: "checks",
                   "a suite declares at most \(Suite.maxChecks) checks (this list has \(items.count))")
        }
        var checks: [SuiteCheck] = []
        var written: [String: [String: SuiteLoader.WrittenValue]] = [:]
        var names: [String: Mark?] = [:]
        for item in items.prefix(Suite.maxChecks) {
            guard let (check, values) = readCheck(item, defaults: defaults, names: &names) else { continue }
            checks.append(check)
            if !values.isEmpty { written[check.name] = values }
        }
        return (checks, written)
    }

    // MARK: One check

    mutating func readCheck(_ item: Node, defaults: [String: Entry], names: inout [String: Mark?]) -> (SuiteCheck, [String: SuiteLoader.WrittenValue])? {
        guard case .mapping(let rawMapping) = item else {
            report(item.mark, key: nil, "a check is a mapping with name:, kind: and its kind's keys (got \(Self.describe(item)))")
            return nil
        }
        let entries = rawMapping.compactMap { self.entry($0, expanding: true) }
        let own = Dictionary(entries, uniquingKeysWith: { first, _ in first })
        let name = readName(own["name"], at: item.mark, names: &names)
        guard let kind = readKind(own["kind"], at: item.mark) else { return nil }
        let allowed = kinds.keys(of: kind)
        for (key, entry) in entries where key != "name" && key != "kind" && !allowed.contains(key) && !document.checkKeys.contains(key) {
            report(entry.keyMark, key: key, "unknown key for a \(kind.name) check (allowed: name, kind, \((allowed + document.checkKeys).joined(separator: ", ")))")
        }
        if let readCheckKeys = document.readCheckKeys { readCheckKeys(&self, name, own, defaults, item.mark) }
        let decoded = decodeSpec(of: kind, own: own, defaults: defaults, start: item.mark)
        guard let name, let decoded else { return nil }
        return (SuiteCheck(name: name, spec: decoded.spec), decoded.written)
    }

    mutating func readName(_ entry: Entry?, at start: Mark?, names: inout [String: Mark?]) -> String? {
        guard let entry else {
            report(start, key: "name", "missing: every check needs a name (1 to 64 of a-z, 0-9, _ and -)")
            return nil
        }
        guard case .scalar(let scalar) = entry.value else {
            report(entry.value.mark, key: "name", "expected text (got \(Self.describe(entry.raw)))")
            return nil
        }
        let name = scalar.string
        guard SuiteCheck.isValid(name: name) else {
            report(entry.value.mark, key: "name", "'\(name)' is not a valid check name: use 1 to 64 of a-z, 0-9, _ and -")
            return nil
        }
        if let first = names[name] {
            report(entry.value.mark, key: "name", "'\(name)' is already the name of another check" + (first.map { " (line \($0.line))" } ?? ""))
            return nil
        }
        names[name] = entry.value.mark
        return name
    }

    mutating func readKind(_ entry: Entry?, at start: Mark?) -> (any CheckKind.Type)? {
        guard let entry else {
            report(start, key: "kind", "missing: every check needs a kind (allowed: \(kindNames))")
            return nil
        }
        guard case .scalar(let scalar) = entry.value, let kind = kinds.named(scalar.string) else {
            report(entry.value.mark, key: "kind", "unknown kind \(Self.describe(entry.raw)) (allowed: \(kindNames))")
            return nil
        }
        return kind
    }

    /// The check's spec of `kind` (`decode` with its spec type), held as `any CheckSpec`.
    mutating func decodeSpec<K: CheckKind>(of kind: K.Type, own: [String: Entry], defaults: [String: Entry], start: Mark?)
        -> (spec: any CheckSpec, written: [String: SuiteLoader.WrittenValue])? {
        decode(K.Spec.self, own: own, defaults: defaults, start: start).map { ($0.0, $0.1) }
    }

    /// The check's spec of kind `T` from its own keys and the defaults its kind has, with the
    /// values that referenced the environment as written; nil (problems reported) when it does
    /// not decode or its `problems()` are not empty.
    mutating func decode<T: CheckSpec>(_ type: T.Type, own: [String: Entry], defaults: [String: Entry], start: Mark?)
        -> (T, [String: SuiteLoader.WrittenValue])? {
        var merged: [(key: String, entry: Entry)] = []
        for key in kinds.keys(of: T.Kind.self) {
            guard var entry = Self.merge(key: key, own: own[key], inherited: defaults[key], kind: T.Kind.self, declared: kinds.declaredMetrics) else { continue }
            // `link: NAME` of the file's `links:` stands for that profile.
            if key == SpecKey.link.name, case .scalar(let scalar) = entry.value, let definition = namedLinks[scalar.string] {
                entry.value = .scalar(Node.Scalar(definition, scalar.tag, scalar.style, scalar.mark))
            }
            merged.append((key, entry))
        }
        let byKey = Dictionary(merged.map { ($0.key, $0.entry) }, uniquingKeysWith: { first, _ in first })
        // Values whose ${NAME} could not be expanded were reported: the rest is still checked.
        let unexpanded = Set(merged.filter { $0.entry.expansionFailed }.map(\.key))
        var decoder = SuiteSpecDecoder(kind: T.Kind.self, kinds: kinds, valueTypes: valueTypes, entries: merged.filter { !unexpanded.contains($0.key) }, start: start, setAside: unexpanded)
        guard let spec = decoder.decode(T.self) else {
            for problem in decoder.problems { report(problem.mark, key: problem.key, problem.message) }
            return nil
        }
        guard unexpanded.isEmpty else { return nil }
        let resolved = spec.resolvingPaths(against: folder)
        var specProblems = resolved.problems()
        // A suite is validated whole before any request: a URL holding spaces is refused too.
        if let probe = resolved as? ProbeSpec { specProblems += probe.suiteURLProblems() }
        for problem in specProblems {
            let entry = problem.key.flatMap { byKey[$0] }
            report(Self.mark(of: problem.message, in: entry) ?? start, key: problem.key, decoder.redact(problem.message))
        }
        guard specProblems.isEmpty else { return nil }
        var written: [String: SuiteLoader.WrittenValue] = [:]
        for (key, entry) in merged where entry.referencesEnvironment {
            written[key] = Self.writtenValue(entry.raw)
        }
        return (resolved, written)
    }

    /// A check's value for `key`: its own, or the default; for `thresholds` the default's list
    /// (those of its items that judge a check of `kind`, `CheckKind.judges`) and then its own
    /// (when one of them is not a list, that one, so that its type is reported).
    static func merge(key: String, own: Entry?, inherited: Entry?, kind: any CheckKind.Type, declared: DeclaredMetrics) -> Entry? {
        guard key == "thresholds", let inherited else { return own ?? inherited }
        guard case .sequence(let allInheritedItems) = inherited.value, case .sequence(let allInheritedRaw) = inherited.raw else { return own ?? inherited }
        // A default threshold of another kind's metric is simply not used by this check; one that
        // does not parse is kept, so that it is reported.
        let kept = zip(allInheritedItems, allInheritedRaw).filter { item, _ in
            guard let text = item.scalar?.string, let threshold = try? Threshold(parsing: text, declared: declared) else { return true }
            return kind.judges(threshold)
        }
        let inheritedItems = kept.map(\.0), inheritedRaw = kept.map(\.1)
        guard let own else {
            guard !kept.isEmpty else { return nil }
            return Entry(keyMark: inherited.keyMark,
                         raw: .sequence(Node.Sequence(inheritedRaw, allInheritedRaw.tag, .flow, inherited.raw.mark)),
                         value: .sequence(Node.Sequence(inheritedItems, allInheritedItems.tag, .flow, inherited.value.mark)),
                         referencesEnvironment: inherited.referencesEnvironment)
        }
        guard case .sequence(let ownItems) = own.value, case .sequence(let ownRaw) = own.raw else { return own }
        let mark = own.value.mark
        return Entry(keyMark: own.keyMark,
                     raw: .sequence(Node.Sequence(inheritedRaw + Array(ownRaw), ownRaw.tag, .flow, mark)),
                     value: .sequence(Node.Sequence(inheritedItems + Array(ownItems), ownItems.tag, .flow, mark)),
                     referencesEnvironment: own.referencesEnvironment || inherited.referencesEnvironment)
    }

    /// Where a spec problem points: the list item its message quotes (`'…'`), else the value of its key.
    static func mark(of message: String, in entry: Entry?) -> Mark? {
        guard let entry else { return nil }
        if case .sequence(let items) = entry.value, case .sequence(let rawItems) = entry.raw {
            for (item, raw) in zip(items, rawItems) {
                if case .scalar(let scalar) = item, message.contains("'\(scalar.string)'") { return raw.mark }
                // A probe's `{name, url}` entry: the URL (or the name) the message quotes.
                if case .mapping(let mapping) = item, case .mapping(let rawMapping) = raw {
                    for key in ["url", "name"] {
                        if let value = mapping[key]?.scalar?.string, message.contains("'\(value)'") || message.contains(value.debugDescription)
                            || message.contains("of \(value))") {
                            return rawMapping[key]?.mark ?? raw.mark
                        }
                    }
                }
            }
        }
        return entry.raw.mark
    }

    /// The value as the file wrote it (`${NAME}` and `$$` as they were).
    static func writtenValue(_ node: Node) -> SuiteLoader.WrittenValue {
        switch node {
        case .sequence(let items) where items.contains(where: { if case .mapping = $0 { return true } else { return false } }):
            return .requests(items.map { item in
                guard case .mapping(let mapping) = item else { return SuiteLoader.WrittenRequest(url: item.scalar?.string ?? "") }
                return SuiteLoader.WrittenRequest(url: mapping["url"]?.scalar?.string ?? "", name: mapping["name"]?.scalar?.string)
            })
        case .sequence(let items): return .list(items.map { $0.scalar?.string ?? "" })
        default: return .scalar(node.scalar?.string ?? "")
        }
    }

    // MARK: Values

    /// The key and value of one pair of a mapping (nil, reported, when the key is not a name),
    /// the value expanded when `expanding` (else left as written, to be expanded by the caller).
    mutating func entry(_ pair: (key: Node, value: Node), expanding: Bool) -> (String, Entry)? {
        guard case .scalar(let keyScalar) = pair.key else {
            report(pair.key.mark, key: nil, "a key is a name, not \(Self.describe(pair.key))")
            return nil
        }
        let entry = Entry(keyMark: pair.key.mark, raw: pair.value, value: pair.value, referencesEnvironment: false)
        return (keyScalar.string, expanding ? expanded(entry, key: keyScalar.string) : entry)
    }

    /// `entry` with its value expanded.
    package mutating func expanded(_ entry: Entry, key: String) -> Entry {
        let problemsBefore = problems.count
        let (value, referenced) = expand(entry.raw, key: key)
        return Entry(keyMark: entry.keyMark, raw: entry.raw, value: value, referencesEnvironment: referenced,
                     expansionFailed: problems.count > problemsBefore)
    }

    /// `node` with `${NAME}` expanded in every scalar value (mapping keys are left alone); an
    /// unset or malformed reference is reported at its scalar, which is then kept as written.
    mutating func expand(_ node: Node, key: String) -> (Node, Bool) {
        switch node {
        case .scalar(let scalar):
            for name in SuiteEnvironment.names(in: scalar.string) { usedVariables.insert(name) }
            switch SuiteEnvironment.expand(scalar.string, environment: environment) {
            case .success(let expansion):
                guard expansion.text != scalar.string else { return (node, expansion.referencesEnvironment) }
                return (.scalar(Node.Scalar(expansion.text, scalar.tag, scalar.style, scalar.mark)), expansion.referencesEnvironment)
            case .failure(let problem):
                report(scalar.mark, key: key, problem.message)
                return (node, false)
            }
        case .sequence(let sequence):
            var referenced = false
            let items = sequence.map { item -> Node in
                let (expanded, itemReferenced) = expand(item, key: key)
                referenced = referenced || itemReferenced
                return expanded
            }
            return (.sequence(Node.Sequence(items, sequence.tag, sequence.style, sequence.mark)), referenced)
        case .mapping(let mapping):
            var referenced = false
            let pairs = mapping.map { pair -> (Node, Node) in
                let (expanded, valueReferenced) = expand(pair.value, key: pair.key.scalar?.string ?? key)
                referenced = referenced || valueReferenced
                return (pair.key, expanded)
            }
            return (.mapping(Node.Mapping(pairs, mapping.tag, mapping.style, mapping.mark)), referenced)
        case .alias:
            return (node, false)
        }
    }

    /// Whether every scalar of `node` expands (the problems were reported when it was expanded).
    static func expands(_ node: Node, environment: [String: String]) -> Bool {
        switch node {
        case .scalar(let scalar): return (try? SuiteEnvironment.expand(scalar.string, environment: environment).get()) != nil
        case .sequence(let items): return items.allSatisfy { expands($0, environment: environment) }
        case .mapping(let mapping): return mapping.allSatisfy { expands($0.value, environment: environment) }
        case .alias: return true
        }
    }

    /// Whether a scalar of `node` holds a `${` reference.
    static func references(_ node: Node) -> Bool {
        switch node {
        case .scalar(let scalar): return scalar.string.contains("${")
        case .sequence(let items): return items.contains(where: references)
        case .mapping(let mapping): return mapping.contains { references($0.value) }
        case .alias: return false
        }
    }

    /// A value as messages show it: a scalar quoted as written, else its shape.
    package static func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): return "'\(scalar.string)'"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .alias: return "an alias"
        }
    }

    // MARK: Problems

    package mutating func report(_ mark: Mark?, key: String?, _ message: String) {
        problems.append(SuiteLoader.Problem(file: file, line: mark?.line ?? 0, column: mark?.column ?? 0, key: key, message: message))
    }

    /// The most problems said of one file: the rest are counted in a last line.
    static let maxProblems = 100

    /// The problems in the order of the file, each once (a default shared by several checks is
    /// reported once), at most `maxProblems`; no value from the environment in any of them (each
    /// shown as its `${NAME}`).
    package func sortedProblems() -> [SuiteLoader.Problem] {
        var seen = Set<SuiteLoader.Problem>()
        var unique: [SuiteLoader.Problem] = []
        for problem in problems where seen.insert(problem).inserted { unique.append(problem) }
        var sorted = unique.enumerated().sorted { ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset) }
            .map(\.element)
        if sorted.count > Self.maxProblems {
            let more = sorted.count - Self.maxProblems
            sorted = Array(sorted.prefix(Self.maxProblems))
            sorted.append(SuiteLoader.Problem(file: file, line: 0, column: 0, key: nil, message: "and \(more) more problems"))
        }
        // Longest values first, so that a value inside another is not replaced before it.
        let secrets = usedVariables.compactMap { name in environment[name].map { (name, $0) } }
            .filter { $0.1.count >= 3 }.sorted { $0.1.count > $1.1.count }
        guard !secrets.isEmpty else { return sorted }
        return sorted.map { problem in
            var problem = problem
            for (name, value) in secrets { problem.message = problem.message.replacingOccurrences(of: value, with: "${\(name)}") }
            return problem
        }
    }
}
