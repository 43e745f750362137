import Yams

extension SuiteLoader {
    /// One check as an entry of a suite's `checks:` list (`--print-suite`): `- name: …`, `kind: …`,
    /// then the spec's keys in its kind's `keys` order, keys not given left out. Loads back (in a
    /// suite) to an equal check. Every `$` in a value is written `$$`, so nothing is expanded on
    /// the way back.
    public static func entryYAML(name: String, spec: any CheckSpec) -> String {
        SuiteYAMLWriter.entry(name: name, spec: spec, written: [:])
    }

    /// The entry with the keys in `written` as given there (their `${NAME}`s kept, not escaped):
    /// `--print-suite` writes a secret header as `${SONDE_…}` this way.
    public static func entryYAML(name: String, spec: any CheckSpec, written: [String: WrittenValue]) -> String {
        SuiteYAMLWriter.entry(name: name, spec: spec, written: written)
    }

    /// A whole suite file: `parallel:` when it is not 1, then `checks:` with each check's entry.
    /// Loads back to an equal `Suite` (paths as they are in the specs).
    public static func suiteYAML(_ suite: Suite) -> String {
        SuiteYAMLWriter.suite(suite, written: [:])
    }
}

/// Writes suites and entries as YAML text: flow lists, plain scalars where YAML reads them back as
/// the same string, double-quoted ones (with escapes) elsewhere. Values come from the specs' own
/// `Encodable` (so durations are `5s`, sizes bytes, version flags `http2: true`).
///
/// Invariant: what it writes parses back (through `SuiteLoader`) to the same values; a key in
/// `written` is written as the file had it (its `${NAME}` left for the next load to expand).
enum SuiteYAMLWriter {
    static func suite(_ suite: Suite, written: [String: [String: SuiteLoader.WrittenValue]]) -> String {
        var text = suite.parallel == 1 ? "" : "parallel: \(suite.parallel)\n"
        text += "checks:\n"
        for check in suite.checks {
            let entry = entry(name: check.name, spec: check.spec, written: written[check.name] ?? [:])
            text += entry.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { "  \($0)\n" }.joined()
        }
        return text
    }

    static func entry<T: CheckSpec>(name: String, spec: T, written: [String: SuiteLoader.WrittenValue]) -> String {
        var lines = ["- name: \(scalar(name, flow: false))", "  kind: \(T.Kind.name)"]
        let values = encodedValues(spec)
        for key in spec.visitedKeys.map(\.name) {
            if let value = written[key] {
                lines.append("  \(key): \(text(of: value))")
            } else if let node = values[key], let rendered = text(of: node) {
                lines.append("  \(key): \(rendered)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The spec's keys and values as its `Encodable` gives them (through Yams's own representation).
    static func encodedValues<T: CheckSpec>(_ spec: T) -> [String: Node] {
        guard let yaml = try? YAMLEncoder().encode(spec), let root = try? Yams.compose(yaml: yaml), case .mapping(let mapping) = root else {
            return [:]
        }
        var values: [String: Node] = [:]
        for (key, value) in mapping {
            if let name = key.scalar?.string { values[name] = value }
        }
        return values
    }

    /// A value the spec encoded: strings as `scalar`, other scalars (numbers, booleans) as Yams wrote them.
    static func text(of node: Node) -> String? {
        switch node {
        case .scalar(let value):
            switch Resolver.default.resolveTag(of: node) {
            case .str: return scalar(dollars(value.string), flow: false)
            // Yams writes 3.0 as 3e+0, which YAML 1.1 readers (PyYAML) take for text: Swift's own form.
            case .float: return Double(value.string).map { $0.description } ?? value.string
            default: return value.string
            }
        case .sequence(let items):
            return "[" + items.map { item in
                if case .mapping(let mapping) = item {
                    // A probe's `{name, url}` entry: its keys in the order encoded, values as strings.
                    return "{" + mapping.compactMap { pair in
                        guard let key = pair.key.scalar?.string, let value = pair.value.scalar?.string else { return nil }
                        return "\(key): " + scalar(dollars(value), flow: true)
                    }.joined(separator: ", ") + "}"
                }
                return item.scalar.map { scalar(dollars($0.string), flow: true) } ?? "\"\""
            }.joined(separator: ", ") + "]"
        default:
            return nil
        }
    }

    /// A value as the file wrote it (no `$` doubling: it is already in the file's form).
    static func text(of value: SuiteLoader.WrittenValue) -> String {
        switch value {
        case .scalar(let text): return scalar(text, flow: false, writtenAsIs: true)
        case .list(let items): return "[" + items.map { scalar($0, flow: true) }.joined(separator: ", ") + "]"
        case .requests(let items):
            return "[" + items.map { item in
                item.name.map { "{name: \(scalar($0, flow: true)), url: \(scalar(item.url, flow: true))}" } ?? scalar(item.url, flow: true)
            }.joined(separator: ", ") + "]"
        }
    }

    /// `text` with every `$` doubled: the file's form of a literal `$`.
    static func dollars(_ text: String) -> String {
        text.replacingOccurrences(of: "$", with: "$$")
    }

    /// `text` as a YAML scalar that reads back as the same string: plain when that is safe,
    /// double-quoted otherwise. In a flow list (`flow`) the flow indicators `,[]{}` need quotes.
    /// `writtenAsIs`: a value as the file had it, which may stand for a number (`${COUNT}`), so it
    /// stays plain when it is a lone `${NAME}` and YAML would read it as text.
    static func scalar(_ text: String, flow: Bool, writtenAsIs: Bool = false) -> String {
        isPlainSafe(text, flow: flow, allowingBraces: writtenAsIs) ? text : doubleQuoted(text)
    }

    /// Whether `text` can be written as a plain scalar and read back as the same string.
    static func isPlainSafe(_ text: String, flow: Bool, allowingBraces: Bool) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        let indicators: Set<Unicode.Scalar> = ["-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`"]
        guard !indicators.contains(first), first != " ", last != " ", last != ":" else { return false }
        guard !text.contains(": "), !text.contains(" #") else { return false }
        for scalar in text.unicodeScalars {
            if isControl(scalar) { return false }
            // In a flow list `,[]` end a plain scalar; `:` does in some YAML 1.1 readers.
            if flow && (scalar == "," || scalar == "[" || scalar == "]" || scalar == ":") { return false }
            if (flow || !allowingBraces) && (scalar == "{" || scalar == "}") { return false }
        }
        // Plain text that YAML would read as a number, boolean, null or timestamp needs quotes.
        return Resolver.default.resolveTag(of: Node(text)) == .str
    }

    /// YAML's short escapes in double quotes.
    static let escapes: [Unicode.Scalar: String] = ["\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"]

    /// Whether `scalar` cannot appear as itself in a YAML scalar: C0 and C1 controls, DEL, the
    /// byte order mark and the line and paragraph separators.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{FEFF}" || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// `text` in double quotes, with YAML's escapes for `\`, `"` and control characters.
    static func doubleQuoted(_ text: String) -> String {
        let quoted = text.unicodeScalars.map { scalar -> String in
            if let escape = escapes[scalar] { return escape }
            guard isControl(scalar) else { return String(scalar) }
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "\"" + quoted.joined() + "\""
    }
}
