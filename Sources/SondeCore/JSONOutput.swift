/// A value that writes itself as one JSON value into a `JSONOutput`, without going through
/// `Encoder`. The per-transaction journal path uses this: Foundation's `JSONEncoder` spent half of
/// a probe run's CPU time on dynamic casts and key sorting (measured with `perf`, see README).
///
/// Invariant: what `writeJSON` produces decodes with the type's `Decodable` conformance to an
/// equal value (checked by `JSONOutputTests` for every conforming type).
public protocol JSONWritable {
    func writeJSON(to output: inout JSONOutput)
}

/// An append-only UTF-8 JSON byte buffer. Keys are written in the order the caller gives them;
/// strings are escaped per RFC 8259 (quote, backslash and every control character); non-finite
/// doubles, which JSON cannot represent, are written as `null`.
public struct JSONOutput {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a leading comma, one entry per open container.
    private var needsComma: [Bool] = []
    /// Set by `key`: the value that follows belongs to it and takes no comma.
    private var pendingValueAfterKey = false

    public init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
        needsComma.reserveCapacity(8)
    }

    /// Empties the buffer, keeping its capacity, so one output can serve many lines.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
        pendingValueAfterKey = false
    }

    public mutating func appendRaw(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }

    // MARK: Containers

    public mutating func object(_ body: (inout JSONOutput) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
        body(&self)
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func array<S: Sequence>(_ elements: S, _ write: (inout JSONOutput, S.Element) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
        for element in elements { write(&self, element) }
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes `"name":` inside an object; the value call that follows must not add a comma.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        pendingValueAfterKey = true
    }

    // MARK: Scalars

    public mutating func null() {
        separate()
        append("null")
    }

    public mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
    }

    public mutating func int<I: BinaryInteger>(_ value: I) {
        separate()
        appendDecimal(Int64(value))
    }

    public mutating func double(_ value: Double) {
        separate()
        guard value.isFinite else { return append("null") }
        if value == value.rounded(), abs(value) < 1e15 {
            appendDecimal(Int64(value))
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    public mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes `value`, or `null` when it is absent.
    public mutating func value(_ value: (some JSONWritable)?) {
        guard let value else { return null() }
        value.writeJSON(to: &self)
    }

    // MARK: Members (key + value)

    public mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    public mutating func member(_ name: StaticString, _ value: Int?) {
        key(name)
        if let value { int(value) } else { null() }
    }

    public mutating func member(_ name: StaticString, _ value: Int64) {
        key(name)
        int(value)
    }

    public mutating func member(_ name: StaticString, _ value: Double?) {
        key(name)
        if let value { double(value) } else { null() }
    }

    public mutating func member(_ name: StaticString, _ value: Bool?) {
        key(name)
        if let value { bool(value) } else { null() }
    }

    public mutating func member(_ name: StaticString, _ value: (some JSONWritable)?) {
        key(name)
        self.value(value)
    }

    public mutating func member<Element: JSONWritable>(_ name: StaticString, _ elements: [Element]) {
        key(name)
        array(elements) { output, element in element.writeJSON(to: &output) }
    }

    // MARK: Internals

    /// Adds the comma between siblings; a value right after its key takes none.
    private mutating func separate() {
        if pendingValueAfterKey {
            pendingValueAfterKey = false
            return
        }
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] {
            bytes.append(UInt8(ascii: ","))
        } else {
            needsComma[needsComma.count - 1] = true
        }
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func appendDecimal(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            if value == .min { return bytes.append(contentsOf: "9223372036854775808".utf8) }
        }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    /// Appends `value` as exactly `width` decimal digits (zero-padded; `value` must fit).
    mutating func appendPadded(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8((rest / divisor) % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    mutating func appendByte(_ byte: UInt8) { bytes.append(byte) }

    /// Starts a value whose bytes the caller appends itself (adds the separating comma if needed).
    mutating func beginRawValue() { separate() }
}
