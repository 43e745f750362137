#if canImport(Glibc)
import Glibc
#endif

/// A value that reads itself from a `JSONReader`: the counterpart of `JSONWritable`, used where
/// `JSONDecoder` is too slow (re-rendering a 100,000-task journal: `JSONDecoder` spent ~200 µs
/// per task line in generic metadata lookups, measured with `perf`; see docs/performance.md).
///
/// Invariant: `T(reading:)` accepts what `writeJSON` writes and what `JSONEncoder` writes for the
/// same type (keys in any order, unknown keys skipped, absent optionals nil); it throws on
/// anything that is not such a value. Checked by `JSONReaderTests`.
public protocol JSONReadable {
    init(reading reader: inout JSONReader) throws(JSONReadError)
}

/// Why a JSON text could not be read: what was expected, and the byte offset.
public struct JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var problem: String
    public var description: String { "JSON at byte \(offset): \(problem)" }
}

/// A strict pull reader over UTF-8 JSON (RFC 8259): no tree is built; the caller asks for the
/// value it expects next. Strings are unescaped (including `\u` surrogate pairs); numbers are
/// parsed as Double or Int. Nesting is bounded by the caller's own structure (no recursion here
/// except `skipValue`, which stops at depth 64).
public struct JSONReader {
    private let bytes: [UInt8]
    private var index: Int

    public init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
        index = 0
    }

    /// Reads one complete document of type `T`: nothing but whitespace may follow it.
    public static func read<T: JSONReadable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws(JSONReadError) -> T {
        var reader = JSONReader(bytes)
        let value = try T(reading: &reader)
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else { throw reader.error("unexpected text after the value") }
        return value
    }

    // MARK: Structure

    /// Calls `member` with each key of an object; `member` must read (or skip) the value.
    public mutating func readObject(_ member: (inout JSONReader, JSONKey) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try beginObject()
        var first = true
        while let key = try nextKey(first: &first) { try member(&self, key) }
    }

    /// The pull form of `readObject` (which is built on it) for `JSONFieldReader`: `beginObject` reads the `{`, then each
    /// `nextKey` call reads the next member's key and its `:` (the caller reads or skips the value)
    /// or, at the end, the `}` and returns nil. `first` is true until the first key is read.
    mutating func beginObject() throws(JSONReadError) {
        try expect(UInt8(ascii: "{"))
    }

    mutating func nextKey(first: inout Bool) throws(JSONReadError) -> JSONKey? {
        skipWhitespace()
        guard let next = peek() else { throw error("unterminated object") }
        if next == UInt8(ascii: "}") { index += 1; return nil }
        if !first {
            guard next == UInt8(ascii: ",") else { throw error("expected , or } in an object") }
            index += 1
            skipWhitespace()
        }
        first = false
        let key = try readKey()
        try expect(UInt8(ascii: ":"))
        return key
    }

    /// Where the reader stands (a byte offset), to come back to a value read ahead of its turn.
    var offset: Int {
        get { index }
        set { index = newValue }
    }

    /// Reads an array, calling `element` once per element (which must read it).
    public mutating func readArray(_ element: (inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try expect(UInt8(ascii: "["))
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { index += 1; return }
        while true {
            try element(&self)
            skipWhitespace()
            guard let next = next() else { throw error("unterminated array") }
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw error("expected , or ] in an array") }
        }
    }

    public mutating func readArray<T: JSONReadable>(of type: T.Type) throws(JSONReadError) -> [T] {
        var result: [T] = []
        try readArray { (reader: inout JSONReader) throws(JSONReadError) in result.append(try T(reading: &reader)) }
        return result
    }

    /// An array of strings.
    public mutating func readStrings() throws(JSONReadError) -> [String] {
        var result: [String] = []
        try readArray { (reader: inout JSONReader) throws(JSONReadError) in result.append(try reader.readString()) }
        return result
    }

    /// True (and consumed) when the next value is `null`.
    public mutating func readNull() -> Bool {
        skipWhitespace()
        guard bytes[index...].starts(with: Self.nullBytes) else { return false }
        index += 4
        return true
    }

    public mutating func readOptional<T: JSONReadable>(_ type: T.Type) throws(JSONReadError) -> T? {
        if readNull() { return nil }
        return try T(reading: &self)
    }

    // MARK: Scalars

    public mutating func readString() throws(JSONReadError) -> String {
        try expect(UInt8(ascii: "\""))
        // Fast path: no escapes, the String is made straight from the source bytes.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
        index -= 1
        return String(decoding: try readStringBytes(), as: UTF8.self)
    }

    public mutating func readOptionalString() throws(JSONReadError) -> String? {
        readNull() ? nil : try readString()
    }

    public mutating func readBool() throws(JSONReadError) -> Bool {
        skipWhitespace()
        if bytes[index...].starts(with: Self.trueBytes) { index += 4; return true }
        if bytes[index...].starts(with: Self.falseBytes) { index += 5; return false }
        throw error("expected true or false")
    }

    public mutating func readOptionalBool() throws(JSONReadError) -> Bool? {
        readNull() ? nil : try readBool()
    }

    public mutating func readDouble() throws(JSONReadError) -> Double {
        let text = try numberText()
        // JSON has no infinity: 1e999 is out of range, not +inf.
        guard let value = Double(text), value.isFinite else { throw error("not a finite number: \(text)") }
        return value
    }

    public mutating func readOptionalDouble() throws(JSONReadError) -> Double? {
        readNull() ? nil : try readDouble()
    }

    public mutating func readInt() throws(JSONReadError) -> Int {
        let text = try numberText()
        if let value = Int(text) { return value }
        // JSONEncoder may write an integral Double as 1e+20 or 3.0; accept exact integers only.
        guard let value = Double(text), value == value.rounded(), abs(value) < 9.2e18 else {
            throw error("not an integer: \(text)")
        }
        return Int(value)
    }

    public mutating func readOptionalInt() throws(JSONReadError) -> Int? {
        readNull() ? nil : try readInt()
    }

    public mutating func readInt64() throws(JSONReadError) -> Int64 { Int64(try readInt()) }

    /// Skips the next value and returns where it lies: offsets into the bytes the reader was made
    /// from (0-based), whitespace around it excluded.
    public mutating func readRawValue() throws(JSONReadError) -> Range<Int> {
        skipWhitespace()
        let start = index
        try skipValue()
        return start..<index
    }

    /// The bytes in `range` (a range `readRawValue` returned).
    func bytes(in range: Range<Int>) -> [UInt8] { Array(bytes[range]) }

    /// True when nothing but whitespace is left.
    public mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// Skips any one value (for unknown keys), at most 64 levels deep.
    public mutating func skipValue(depth: Int = 0) throws(JSONReadError) {
        guard depth < 64 else { throw error("nesting deeper than 64") }
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: "{"):
            try readObject { (reader: inout JSONReader, _: JSONKey) throws(JSONReadError) in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            try readArray { (reader: inout JSONReader) throws(JSONReadError) in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): _ = try readStringBytes()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): if !readNull() { throw error("expected null") }
        default: _ = try numberText()
        }
    }

    // MARK: Internals

    /// An object key: the source bytes when it has no escapes (every key sonde writes), else unescaped.
    private mutating func readKey() throws(JSONReadError) -> JSONKey {
        try expect(UInt8(ascii: "\""))
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return JSONKey(bytes: bytes[index..<end])
        }
        index -= 1
        return JSONKey(bytes: try readStringBytes()[...])
    }

    private static let nullBytes = Array("null".utf8)
    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    func error(_ problem: String) -> JSONReadError { JSONReadError(offset: index, problem: problem) }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func expect(_ byte: UInt8) throws(JSONReadError) {
        skipWhitespace()
        guard next() == byte else {
            index = max(0, index - 1)
            throw error("expected \(Character(Unicode.Scalar(byte)))")
        }
    }

    /// The raw text of a number, checked against RFC 8259's grammar.
    private mutating func numberText() throws(JSONReadError) -> String {
        skipWhitespace()
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while let byte = peek(), (48...57).contains(byte) { index += 1 }
        guard index > integerStart, !(bytes[integerStart] == 48 && index - integerStart > 1) else {
            index = start
            throw error("expected a number")
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while let byte = peek(), (48...57).contains(byte) { index += 1 }
            guard index > fractionStart else { throw error("expected digits after the decimal point") }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while let byte = peek(), (48...57).contains(byte) { index += 1 }
            guard index > exponentStart else { throw error("expected digits in the exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A string's unescaped UTF-8 bytes.
    mutating func readStringBytes() throws(JSONReadError) -> [UInt8] {
        try expect(UInt8(ascii: "\""))
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return Array(bytes[start..<index])
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("control character in a string") }
            index += 1
        }
        var result = Array(bytes[start..<index])
        while true {
            guard let byte = next() else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                return result
            case UInt8(ascii: "\\"):
                guard let escaped = next() else { throw error("unterminated escape") }
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escaped)
                case UInt8(ascii: "b"): result.append(0x08)
                case UInt8(ascii: "f"): result.append(0x0C)
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "r"): result.append(0x0D)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u") else { throw error("unpaired surrogate") }
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid code point") }
                    result.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw error("invalid escape \\\(Character(Unicode.Scalar(escaped)))")
                }
            default:
                guard byte >= 0x20 else { throw error("control character in a string") }
                result.append(byte)
            }
        }
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next() else { throw error("short \\u escape") }
            let digit: UInt32
            switch byte {
            case 48...57: digit = UInt32(byte - 48)
            case 65...70: digit = UInt32(byte - 55)
            case 97...102: digit = UInt32(byte - 87)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
        }
        return value
    }
}

/// An object key as read, compared against string literals without building a String:
/// `switch key { case "url": … }` matches through `~=` (length first, then bytes).
public struct JSONKey: Sendable, CustomStringConvertible {
    let bytes: ArraySlice<UInt8>

    public var description: String { String(decoding: bytes, as: UTF8.self) }

    public static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        guard pattern.utf8CodeUnitCount == key.bytes.count else { return false }
        if key.bytes.isEmpty { return true }
        return pattern.withUTF8Buffer { literal in
            key.bytes.withUnsafeBufferPointer { memcmp(literal.baseAddress!, $0.baseAddress!, literal.count) == 0 }
        }
    }

    public static func == (key: JSONKey, pattern: StaticString) -> Bool { pattern ~= key }
}
