import Foundation

/// A regular expression written in Go's syntax (RE2), as blackbox_exporter's configuration holds
/// them, run by ICU (`NSRegularExpression`): `(?P<name>…)` becomes ICU's `(?<name>…)`, and what RE2
/// refuses (backreferences, lookaround, atomic groups, possessive repeats) is refused here too, so
/// that a module sonde loads is one blackbox loads and means the same; RE2's `(?U)` (ungreedy) and
/// `\C`, which ICU lacks, are refused rather than read otherwise.
///
/// Threading: a value, compiled once; matching from several threads at once is safe (ICU's
/// `NSRegularExpression` is immutable).
public struct GoRegexp: @unchecked Sendable {
    /// The pattern as written.
    public let source: String
    let expression: NSRegularExpression
    /// Capturing group names by group number (1-based; "" for an unnamed group), as Go's `SubexpNames`.
    public let groupNames: [String]

    /// Why a pattern was refused.
    public struct Refused: Error, Equatable, Sendable {
        public var message: String
    }

    /// The longest pattern taken (bytes).
    public static let maxPatternBytes = 4096

    public init(_ source: String) throws(Refused) {
        guard source.utf8.count <= Self.maxPatternBytes else {
            throw Refused(message: "regular expression longer than \(Self.maxPatternBytes) bytes")
        }
        let (translated, names) = try Self.translate(source)
        guard let expression = try? NSRegularExpression(pattern: translated, options: []) else {
            throw Refused(message: "could not compile regular expression '\(source)'")
        }
        self.source = source
        self.expression = expression
        self.groupNames = names
    }

    /// A match: each group's range in the text (nil when the group took no part), group 0 the whole.
    public struct Match: Sendable {
        public var groups: [Range<String.Index>?]
    }

    /// The first match in `text`, or nil.
    public func firstMatch(in text: String) -> Match? {
        let whole = NSRange(text.startIndex..<text.endIndex, in: text)
        guard let result = expression.firstMatch(in: text, options: [], range: whole) else { return nil }
        var groups: [Range<String.Index>?] = []
        for index in 0..<result.numberOfRanges {
            let range = result.range(at: index)
            groups.append(range.location == NSNotFound ? nil : Range(range, in: text))
        }
        return Match(groups: groups)
    }

    /// Whether `text` has a match.
    public func matches(_ text: String) -> Bool { firstMatch(in: text) != nil }

    /// `template` with `$1`, `${1}`, `$name`, `${name}` replaced by the groups of `match` in
    /// `text` and `$$` by `$`, as Go's `Regexp.Expand`: an unknown group or a group that took no
    /// part is empty, a malformed reference leaves its `$` as written.
    public func expand(_ template: String, text: String, match: Match) -> String {
        var out = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                out += "$"
                rest = rest.dropFirst()
                continue
            }
            guard let (name, number, after) = Self.extract(rest) else {
                out += "$"
                continue
            }
            rest = after
            var group: Int?
            if let number { group = number } else if let index = groupNames.firstIndex(of: name) { group = index + 1 }
            if let group, group < match.groups.count, let range = match.groups[group] { out += text[range] }
        }
        return out + rest
    }

    /// Go's `extract`: a reference's name (letters, digits, `_`; braced or not), its number when
    /// it is one (no leading zero, below 10⁸), and what follows it; nil when malformed.
    static func extract(_ text: Substring) -> (name: String, number: Int?, rest: Substring)? {
        var rest = text
        let braced = rest.first == "{"
        if braced { rest = rest.dropFirst() }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !name.isEmpty else { return nil }
        rest = rest[name.endIndex...]
        if braced {
            guard rest.first == "}" else { return nil }
            rest = rest.dropFirst()
        }
        var number: Int? = 0
        for scalar in name.unicodeScalars {
            guard ("0"..."9").contains(scalar), let value = number, value < 100_000_000 else { number = nil; break }
            number = value * 10 + Int(scalar.value - 48)
        }
        if name.count > 1, name.first == "0" { number = nil }
        return (String(name), number, rest)
    }

    /// ICU's spelling of an RE2 pattern and its group names; throws for what RE2 refuses or ICU reads otherwise.
    static func translate(_ source: String) throws(Refused) -> (String, [String]) {
        let chars = Array(source.unicodeScalars)
        var out = String.UnicodeScalarView()
        var names: [String] = []
        var index = 0
        var inClass = false
        func refuse(_ what: String) -> Refused { Refused(message: "'\(source)': \(what) is not in Go's regular expression syntax (RE2)") }
        while index < chars.count {
            let c = chars[index]
            if c == "\\" {
                guard index + 1 < chars.count else { throw refuse("a trailing backslash") }
                let next = chars[index + 1]
                if !inClass, ("1"..."9").contains(next) { throw refuse("a backreference (\\\(next))") }
                if next == "C" { throw refuse("\\C") }
                out.append(c)
                out.append(next)
                index += 2
                continue
            }
            if inClass {
                if c == "[", index + 1 < chars.count, chars[index + 1] == ":" {
                    // A POSIX class [:alpha:] inside a bracket: copied whole.
                    if let end = (index + 2..<chars.count).first(where: { chars[$0] == "]" && chars[$0 - 1] == ":" }) {
                        out.append(contentsOf: chars[index...end])
                        index = end + 1
                        continue
                    }
                }
                if c == "]" { inClass = false }
                out.append(c)
                index += 1
                continue
            }
            switch c {
            case "[":
                inClass = true
                out.append(c)
                index += 1
                // A `]` or `^]` right after the opening bracket is a literal.
                if index < chars.count, chars[index] == "^" { out.append(chars[index]); index += 1 }
                if index < chars.count, chars[index] == "]" { out.append(contentsOf: "\\]".unicodeScalars); index += 1 }
            case "(":
                let rest = String(String.UnicodeScalarView(chars[(index + 1)...].prefix(12)))
                if rest.hasPrefix("?P<") || (rest.hasPrefix("?<") && !rest.hasPrefix("?<=") && !rest.hasPrefix("?<!")) {
                    let start = index + (rest.hasPrefix("?P<") ? 4 : 3)
                    guard let end = (start..<chars.count).first(where: { chars[$0] == ">" }) else { throw refuse("an unterminated group name") }
                    let name = String(String.UnicodeScalarView(chars[start..<end]))
                    guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }),
                          !names.contains(name) else { throw refuse("the group name '\(name)'") }
                    names.append(name)
                    out.append(contentsOf: "(?<".unicodeScalars)
                    out.append(contentsOf: name.unicodeScalars)
                    out.append(">")
                    index = end + 1
                } else if rest.hasPrefix("?=") || rest.hasPrefix("?!") || rest.hasPrefix("?<") || rest.hasPrefix("?>") {
                    throw refuse("lookaround or an atomic group")
                } else if rest.hasPrefix("?") {
                    // Flags: RE2 has i, m, s, U; ICU has no U.
                    let flags = rest.dropFirst().prefix { $0 != ")" && $0 != ":" }
                    if flags.contains("U") { throw refuse("the ungreedy flag (?U)") }
                    out.append(c)
                    index += 1
                } else {
                    names.append("")
                    out.append(c)
                    index += 1
                }
            case "*", "+", "?", "}":
                out.append(c)
                index += 1
                if index < chars.count, chars[index] == "+" { throw refuse("a possessive repeat (\(c)+)") }
            default:
                out.append(c)
                index += 1
            }
        }
        return (String(out), names)
    }
}
