import Foundation
import SondeSuite
import Yams

/// One key of a section of a blackbox_exporter module (`http:`, `tcp:`, `tls_config:` …), declared
/// once: its name, what its value takes and what it does (the key reference in docs/serve.md,
/// `BlackboxModuleKeys.markdown`), and how its value sets the section (`apply`). A key without
/// `apply` is one blackbox_exporter 0.23 knows and sonde does not implement: a module using it
/// loads, and `/probe` refuses it (`BlackboxModule.unsupported`).
struct BlackboxKey<Section>: Sendable {
    /// Reads `value` (at dotted key `here`) into the section; problems are reported on the reader,
    /// an option sonde does not implement found deeper is added to `notImplemented`.
    typealias Apply = @Sendable (_ reader: inout SuiteReader, _ section: inout Section, _ value: Node, _ here: String,
                                 _ notImplemented: inout [String]) -> Void

    let name: String
    /// What the value takes, as the reference says it (`true or false`, `0 to 255`).
    let takes: String
    /// What the key does.
    let doc: String
    /// nil: not implemented.
    let apply: Apply?

    init(_ name: String, takes: String, _ doc: String, apply: @escaping Apply) {
        self.name = name
        self.takes = takes
        self.doc = doc
        self.apply = apply
    }

    private init(name: String, takes: String, doc: String, apply: Apply?) {
        self.name = name
        self.takes = takes
        self.doc = doc
        self.apply = apply
    }

    /// A key blackbox_exporter 0.23 knows and sonde does not implement.
    static func notImplemented(_ name: String) -> BlackboxKey {
        BlackboxKey(name: name, takes: "", doc: "not implemented: a module using it loads, and `/probe` refuses it", apply: nil)
    }

    /// `true` or `false` into `path`.
    static func flag(_ name: String, _ path: WritableKeyPath<Section, Bool> & Sendable, _ doc: String) -> BlackboxKey {
        BlackboxKey(name, takes: "true or false", doc) { reader, section, value, here, _ in
            if let flag = reader.boolean(value, key: here) { section[keyPath: path] = flag }
        }
    }

    /// `ip4` or `ip6` into `path`.
    static func ipProtocol(_ path: WritableKeyPath<Section, String> & Sendable) -> BlackboxKey {
        BlackboxKey("preferred_ip_protocol", takes: "ip4 or ip6", "the address family resolved first (default ip6)") { reader, section, value, here, _ in
            if let name = reader.ipProtocol(value, key: here) { section[keyPath: path] = name }
        }
    }

    /// `ip_protocol_fallback` into `path`.
    static func ipProtocolFallback(_ path: WritableKeyPath<Section, Bool> & Sendable) -> BlackboxKey {
        flag("ip_protocol_fallback", path, "the other family when the preferred one has no address (default true)")
    }

    /// A whole number within `range` into `path`.
    static func integer(_ name: String, _ path: WritableKeyPath<Section, Int> & Sendable, within range: ClosedRange<Int>, _ doc: String) -> BlackboxKey {
        BlackboxKey(name, takes: "\(range.lowerBound) to \(range.upperBound)", doc) { reader, section, value, here, _ in
            if let number = reader.integer(value, key: here, within: range) { section[keyPath: path] = number }
        }
    }

    /// A list of Go regular expressions (at most `BlackboxModule.maxRegexps`), each compiled, into `path`.
    static func regexps(_ name: String, _ path: WritableKeyPath<Section, [GoRegexp]> & Sendable, _ doc: String) -> BlackboxKey {
        BlackboxKey(name, takes: "a list of regular expressions (Go's syntax, at most \(BlackboxModule.maxRegexps))", doc) { reader, section, value, here, _ in
            section[keyPath: path] = reader.regexps(value, key: here)
        }
    }
}

/// The keys of one section of a module, in the order messages list them: those sonde implements,
/// then those it does not.
struct BlackboxKeySection<Section>: Sendable {
    /// The section as the reference names it (`http.tls_config`).
    let title: String
    /// What the section is, for the message when it is not a mapping ("expected … (got a list)").
    let expected: String
    let keys: [BlackboxKey<Section>]

    var names: [String] { keys.map(\.name) }

    func key(_ name: String) -> BlackboxKey<Section>? { keys.first { $0.name == name } }

    /// "unknown key 'X' (allowed: …)", with the nearest name when one is close.
    func unknownKeyMessage(_ keyNode: Node) -> String {
        let given = keyNode.scalar?.string ?? ""
        let message = "unknown key \(SuiteReader.describe(keyNode)) (allowed: \(names.joined(separator: ", ")))"
        guard let near = KeyNames.nearest(to: given, in: names) else { return message }
        return message + ": did you mean \(near)?"
    }
}

/// The nearest of some names to a mistyped one, for "did you mean".
enum KeyNames {
    /// The name within a third of its length (at least 1, at most 3) of `given`'s edit distance, the
    /// closest first; nil when none is. `given` longer than 64 characters is never near.
    static func nearest(to given: String, in names: [String]) -> String? {
        guard !given.isEmpty, given.count <= 64 else { return nil }
        var best: (name: String, distance: Int)?
        for name in names {
            let limit = min(3, max(1, name.count / 3))
            let distance = editDistance(Array(given.lowercased()), Array(name))
            if distance <= limit, distance < (best?.distance ?? Int.max) { best = (name, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance (insert, delete, replace: 1 each); O(a·b) with a, b ≤ 64 or so.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

extension SuiteReader {
    /// Reads a mapping `node` (at dotted key `key`) of a module into `section` by its key table:
    /// each known key applied, an unknown one reported (with the nearest name), one sonde does not
    /// implement added to `notImplemented` as `prefix` + its name. False (reported) when `node` is
    /// no mapping.
    @discardableResult
    mutating func read<Section>(_ node: Node, key: String, keys table: BlackboxKeySection<Section>, into section: inout Section,
                                notImplemented: inout [String], prefix: String) -> Bool {
        guard let fields = fields(of: node, key: key, expected: table.expected) else { return false }
        for (keyNode, field, value, here) in fields {
            guard let declared = table.key(field) else {
                report(keyNode.mark, key: key, table.unknownKeyMessage(keyNode))
                continue
            }
            guard let apply = declared.apply else {
                notImplemented.append(prefix + field)
                continue
            }
            apply(&self, &section, value, here, &notImplemented)
        }
        return true
    }
}
