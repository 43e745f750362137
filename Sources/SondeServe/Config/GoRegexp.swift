import CRE2Shim

/// A regular expression written in Go's syntax (RE2), as blackbox_exporter's configuration holds
/// them, compiled and run by RE2 itself (Debian's libre2, through `CRE2Shim`): the same syntax and
/// the same limits as Go's `regexp.Compile` (a repeat count above 1,000, also in total across
/// nested repeats, is refused: "invalid repeat count"), leftmost-first matching, UTF-8, and a
/// match in time linear in the text (no backtracking: `(a+)+b` against any text is one pass).
///
/// What Go refuses and RE2 alone would take is refused before RE2 sees it: `\C` (any byte) and
/// groups nested deeper than `maxNesting` ("expression nests too deeply"). A program larger than
/// RE2's memory bound (`maxMemory`: a thousand repeats of a Unicode class such as `\pL{1000}`,
/// which Go's smaller program still takes) is refused as "expression too large". Refusals read
/// as Go's (`error parsing regexp: invalid repeat count: `{1000}``).
///
/// Linear is not instant: one byte can cost RE2 microseconds (a pattern whose DFA keeps
/// building states, or a large program on its NFA), so the probers bound the text they match and
/// match on `RegexpLane`'s threads under the probe's deadline.
///
/// Threading: immutable once compiled; matching from several threads at once is safe (RE2's guarantee).
public final class GoRegexp: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written.
    public let source: String
    /// Capturing group names by group number (1-based; "" for an unnamed group), as Go's `SubexpNames`.
    public let groupNames: [String]
    /// RE2's size of the compiled program (instructions).
    public let programSize: Int
    /// The compiled RE2 object, freed with this value. Never mutated after `init`.
    private nonisolated(unsafe) let compiled: OpaquePointer

    /// Why a pattern was refused.
    public struct Refused: Error, Equatable, Sendable {
        public var message: String
    }

    /// The longest pattern taken (bytes).
    public static let maxPatternBytes = 4096
    /// The deepest nesting of groups (Go refuses an expression whose tree is deeper than 1,000).
    public static let maxNesting = 1000
    /// RE2's bound on one expression's program and matching caches (bytes): RE2's default.
    public static let maxMemory: Int64 = 8 << 20

    public init(_ source: String) throws(Refused) {
        guard source.utf8.count <= Self.maxPatternBytes else {
            throw Refused(message: "regular expression longer than \(Self.maxPatternBytes) bytes")
        }
        try Self.refuseWhatGoRefuses(source)
        var error = sonde_re2_error()
        let pattern = Array(source.utf8)
        let made = pattern.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { sonde_re2_compile($0.baseAddress, $0.count, Self.maxMemory, &error) }
        }
        guard let made else {
            let argument = withUnsafeBytes(of: &error.argument) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            throw Refused(message: Self.goMessage(code: Int(error.code), argument: argument))
        }
        compiled = made
        let count = Int(sonde_re2_group_count(made))
        groupNames = (0..<max(0, count)).map { index in sonde_re2_group_name(made, Int32(index + 1)).map { String(cString: $0) } ?? "" }
        programSize = Int(sonde_re2_program_size(made))
        self.source = source
    }

    deinit { sonde_re2_free(compiled) }

    public static func == (a: GoRegexp, b: GoRegexp) -> Bool { a.source == b.source }

    public var description: String { source }

    /// A match: each group's byte range in the text (nil when the group took no part), group 0 the whole.
    public struct Match: Sendable, Equatable {
        public var groups: [Range<Int>?]
    }

    /// The first (leftmost) match in `bytes` with its groups, as Go's `FindSubmatchIndex`; nil without one.
    public func firstMatch(in bytes: UnsafeRawBufferPointer) -> Match? {
        let slots = groupNames.count + 1
        var offsets = [Int64](repeating: -1, count: 2 * slots)
        let found = offsets.withUnsafeMutableBufferPointer { sonde_re2_match(compiled, bytes.baseAddress, bytes.count, Int32(slots), $0.baseAddress) }
        guard found == 1 else { return nil }
        return Match(groups: (0..<slots).map { index in
            let start = offsets[2 * index], end = offsets[2 * index + 1]
            return start < 0 || end < start || end > Int64(bytes.count) ? nil : Int(start)..<Int(end)
        })
    }

    public func firstMatch(in bytes: [UInt8]) -> Match? { bytes.withUnsafeBytes { firstMatch(in: $0) } }

    /// Whether `bytes` has a match anywhere (Go's `Match`): RE2's fastest path, no groups.
    public func matches(_ bytes: UnsafeRawBufferPointer) -> Bool {
        sonde_re2_match(compiled, bytes.baseAddress, bytes.count, 0, nil) == 1
    }

    public func matches(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { matches($0) } }

    /// Whether `text` (its UTF-8) has a match anywhere (Go's `MatchString`).
    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches(UnsafeRawBufferPointer($0)) }
    }

    /// `template` with `$1`, `${1}`, `$name`, `${name}` replaced by the groups of `match` in
    /// `bytes` and `$$` by `$`, as Go's `Regexp.Expand`: an unknown group or a group that took no
    /// part is empty, a malformed reference leaves its `$` as written.
    public func expand(_ template: String, bytes: [UInt8], match: Match) -> String {
        var out: [UInt8] = []
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar].utf8
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                out.append(UInt8(ascii: "$"))
                rest = rest.dropFirst()
                continue
            }
            guard let (name, number, after) = Self.extract(rest) else {
                out.append(UInt8(ascii: "$"))
                continue
            }
            rest = after
            var group: Int?
            if let number { group = number } else if let index = groupNames.firstIndex(of: name) { group = index + 1 }
            if let group, group < match.groups.count, let range = match.groups[group], range.upperBound <= bytes.count {
                out += bytes[range]
            }
        }
        out += rest.utf8
        return String(decoding: out, as: UTF8.self)
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

    /// Refuses what Go's parser refuses and RE2's takes: `\C` outside `\Q…\E`, and groups nested
    /// deeper than `maxNesting` (Go's "expression nests too deeply").
    static func refuseWhatGoRefuses(_ source: String) throws(Refused) {
        let bytes = Array(source.utf8)
        var index = 0, depth = 0, inClass = false, quoted = false
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "E") { quoted = false; index += 1 }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { break }
                let next = bytes[index + 1]
                if next == UInt8(ascii: "C") { throw Refused(message: goMessage(code: 2, argument: "\\C")) }
                if next == UInt8(ascii: "Q") && !inClass { quoted = true }
                index += 1
            case UInt8(ascii: "[") where !inClass:
                inClass = true
                // A `]` right after `[` or `[^` is a literal.
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "^") { index += 1 }
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "]") { index += 1 }
            case UInt8(ascii: "[") where inClass:
                // A POSIX class `[:alpha:]` inside a bracket: skipped whole.
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ":"),
                   let end = (index + 2..<bytes.count).first(where: { bytes[$0] == UInt8(ascii: "]") && bytes[$0 - 1] == UInt8(ascii: ":") }) {
                    index = end
                }
            case UInt8(ascii: "]") where inClass:
                inClass = false
            case UInt8(ascii: "(") where !inClass:
                depth += 1
                if depth >= maxNesting { throw Refused(message: "error parsing regexp: expression nests too deeply: `\(source.prefix(40))…`") }
            case UInt8(ascii: ")") where !inClass:
                depth = max(0, depth - 1)
            default:
                break
            }
            index += 1
        }
    }

    /// RE2's error as Go's regexp/syntax says it: `error parsing regexp: <what>: `<part>``.
    static func goMessage(code: Int, argument: String) -> String {
        let what: String
        switch code {
        case 2: what = "invalid escape sequence"
        case 3: what = "invalid character class"
        case 4: what = "invalid character class range"
        case 5: what = "missing closing ]"
        case 6: what = "missing closing )"
        case 7: what = "unexpected )"
        case 8: what = "trailing backslash at end of expression"
        case 9: what = "missing argument to repetition operator"
        case 10: what = "invalid repeat count"
        case 11: what = "invalid nested repetition operator"
        case 12: what = "invalid or unsupported Perl syntax"
        case 13: what = "invalid UTF-8"
        case 14: what = "invalid named capture"
        case 15: return "error parsing regexp: expression too large (RE2's program for it exceeds \(maxMemory >> 20) MiB)"
        default: what = "internal error (RE2 code \(code))"
        }
        return "error parsing regexp: \(what)" + (argument.isEmpty ? "" : ": `\(argument)`")
    }
}
