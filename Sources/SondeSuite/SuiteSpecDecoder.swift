import Yams

/// Decodes one check's merged keys (its own and the defaults its kind has, expanded) as its kind's
/// `CheckSpec`, turning each `DecodingError` into a problem at the value it names (its coding path
/// walked down the file's nodes) with the key's expected type in words. A key that does not decode
/// is reported, set aside and the rest decoded again, so every bad key of a check is reported,
/// not only the first (at most one pass per key).
///
/// Messages never show a value that came from the environment: a quoted expanded value is shown
/// as written (`'${API_TOKEN}'`), see `redact(_:)`.
struct SuiteSpecDecoder {
    /// A problem and where it is.
    struct Located {
        var mark: Mark?
        var key: String?
        var message: String
    }

    let kind: any CheckKind.Type
    /// The registry: the extensions a decoded spec carries, the kind's key table.
    let kinds: CheckKinds
    /// Every key's type (`CheckKinds.valueTypes`), for messages.
    let valueTypes: [String: SuiteValueType]
    private(set) var entries: [(key: String, entry: SuiteReader.Entry)]
    let start: Mark?
    private(set) var problems: [Located] = []

    /// Keys already known to be bad: not decoded, and not reported as missing either.
    private var setAside: Set<String>

    init(kind: any CheckKind.Type, kinds: CheckKinds, valueTypes: [String: SuiteValueType], entries: [(key: String, entry: SuiteReader.Entry)], start: Mark?, setAside: Set<String> = []) {
        self.kind = kind
        self.kinds = kinds
        self.valueTypes = valueTypes
        self.entries = entries
        self.start = start
        self.setAside = setAside
    }

    /// The spec, or nil when any key did not decode (then `problems` says why, never empty).
    mutating func decode<T: CheckSpec>(_ type: T.Type) -> T? {
        while true {
            let pairs = entries.map { (Node.scalar(Node.Scalar($0.key, .implicit, .plain, $0.entry.keyMark)), $0.entry.value) }
            do {
                let spec = try YAMLDecoder().decode(T.self, from: .mapping(Node.Mapping(pairs, .implicit, .block, start)),
                                                    userInfo: kinds.decodingUserInfo)
                return problems.isEmpty ? spec : nil
            } catch let error as DecodingError {
                // A required key set aside after its own problem is not missing as well.
                if case .keyNotFound(let key, _) = error, setAside.contains(key.stringValue) { return nil }
                let located = locate(error)
                problems.append(located)
                guard let key = located.key, let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
                entries.remove(at: index)
                setAside.insert(key)
            } catch {
                problems.append(Located(mark: start, key: nil, message: "cannot be read as a \(kind.name) check: \(error)"))
                return nil
            }
        }
    }

    /// Where a decoding error is, which key, and what is wrong in words.
    func locate(_ error: DecodingError) -> Located {
        let path: [CodingKey]
        var message: String
        switch error {
        case .typeMismatch(_, let context):
            path = context.codingPath
            message = "expected \(expectation(path)) (got \(node(at: path).map(SuiteReader.describe) ?? "another type"))"
        case .valueNotFound(_, let context):
            path = context.codingPath
            message = "expected \(expectation(path)) (got nothing)"
        case .keyNotFound(let key, _):
            let type = valueTypes[key.stringValue].map { " (\($0.noun))" } ?? ""
            return Located(mark: start, key: key.stringValue, message: "missing: a \(kind.name) check needs \(key.stringValue)\(type)")
        case .dataCorrupted(let context):
            path = context.codingPath
            message = redact(context.debugDescription)
        @unknown default:
            return Located(mark: start, key: nil, message: "cannot be read as a \(kind.name) check: \(error)")
        }
        let key = path.first?.stringValue
        if case .dataCorrupted = error, message.hasPrefix("expected"), let written = node(at: path).map(SuiteReader.describe) {
            message += " (got \(redact(written)))"
        }
        let mark = node(at: path)?.mark ?? entries.first(where: { $0.key == key })?.entry.keyMark ?? start
        return Located(mark: mark, key: key, message: message)
    }

    /// The key's type in words (for an item of a list: what each item is).
    func expectation(_ path: [CodingKey]) -> String {
        guard let key = path.first?.stringValue, let type = valueTypes[key] else { return "another type" }
        if kinds.keyTable(of: kind).first(where: { $0.name == key })?.schemaShape == .requests {
            return path.count > 1 ? "a URL, or {name: NAME, url: URL}, in each item" : "a list of URLs, each a URL or {name: NAME, url: URL}"
        }
        if type == .textList && path.count > 1 { return "text in each item" }
        return type.noun
    }

    /// The node as the file wrote it at `path` (a key, then indexes or keys below it).
    func node(at path: [CodingKey]) -> Node? {
        guard let first = path.first, var node = entries.first(where: { $0.key == first.stringValue })?.entry.raw else { return nil }
        for component in path.dropFirst() {
            switch node {
            case .sequence(let items):
                guard let index = component.intValue, items.indices.contains(index) else { return node }
                node = items[index]
            case .mapping(let mapping):
                guard let value = mapping[component.stringValue] else { return node }
                node = value
            default:
                return node
            }
        }
        return node
    }

    /// `message` with every quoted value that came from the environment (`'…'`) shown as written.
    func redact(_ message: String) -> String {
        var message = message
        for (_, entry) in entries where entry.referencesEnvironment {
            for (raw, value) in Self.scalarPairs(raw: entry.raw, value: entry.value) where raw != value && !value.isEmpty {
                message = message.replacingOccurrences(of: "'\(value)'", with: "'\(raw)'")
            }
        }
        return message
    }

    /// The scalars of two nodes of the same shape, pairwise.
    static func scalarPairs(raw: Node, value: Node) -> [(String, String)] {
        switch (raw, value) {
        case (.scalar(let a), .scalar(let b)): return [(a.string, b.string)]
        case (.sequence(let a), .sequence(let b)): return zip(a, b).flatMap { scalarPairs(raw: $0, value: $1) }
        case (.mapping(let a), .mapping(let b)): return zip(a, b).flatMap { scalarPairs(raw: $0.value, value: $1.value) }
        default: return []
        }
    }
}
