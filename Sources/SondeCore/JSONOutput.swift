/// A value that writes itself as one JSON value into a `JSONOutput`, without going through
/// `Encoder`. The per-transaction journal path uses this: Foundation's `JSONEncoder` spent half of
/// a probe run's CPU time on dynamic casts and key sorting (measured with `perf`, see docs/performance.md).
///
/// Invariant: what `writeJSON` produces decodes with the type's `Decodable` conformance to an
/// equal value (checked by `JSONOutputTests` for every conforming type).
public protocol JSONWritable {
    func writeJSON(to output: inout JSONOutput)
}

/// An append-only UTF-8 JSON byte buffer. Keys are written in the order the caller gives them;
/// strings are escaped per RFC 8259 (quote, backslash and every control character); non-finite
/// doubles, which JSON cannot represent, are written as `null`.
///
/// The bytes live in a buffer of its own (`Storage`), not an `Array`: a report writes a hundred or
/// so short pieces per transaction, and `Array.append(contentsOf:)` spent more instructions on each
/// call than on the bytes (callgrind). A copy of an output shares the buffer until either appends.
public struct JSONOutput {
    /// The buffer's start, length and size, kept here rather than read from `storage` (a class,
    /// whose stored properties cost a dynamic exclusivity check per access). `storage` owns
    /// `base`; invariant: `base == storage.base`, `count <= capacity == storage.capacity`.
    private var base: UnsafeMutablePointer<UInt8>
    public private(set) var count = 0
    private var capacity: Int
    private var storage: Storage
    /// Whether the next member or element needs a leading comma, one bit per open container:
    /// bit `d` for the container at depth `d` (0 = outermost), for the first 64 levels;
    /// `deepNeedsComma` holds the levels below those (real documents never get there).
    private var needsComma: UInt64 = 0
    private var deepNeedsComma: [Bool] = []
    /// How many containers are open.
    private var depth = 0
    /// Set by `key`: the value that follows belongs to it and takes no comma.
    private var pendingValueAfterKey = false

    public init(capacity: Int = 4096) {
        storage = Storage(capacity: capacity)
        base = storage.base
        self.capacity = storage.capacity
    }

    /// The bytes written so far (a copy; `withBytes` reads them in place).
    public var bytes: [UInt8] { withBytes { Array($0) } }

    /// Calls `body` with the bytes written so far, valid only during the call.
    public func withBytes<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Empties the buffer, keeping its capacity, so one output can serve many lines.
    public mutating func reset() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(capacity: capacity)
            base = storage.base
        }
        count = 0
        needsComma = 0
        deepNeedsComma.removeAll()
        depth = 0
        pendingValueAfterKey = false
    }

    public mutating func appendRaw(_ raw: [UInt8]) {
        raw.withUnsafeBytes { append($0) }
    }

    // MARK: Containers

    public mutating func object(_ body: (inout JSONOutput) -> Void) {
        separate()
        appendByte(UInt8(ascii: "{"))
        open()
        body(&self)
        close()
        appendByte(UInt8(ascii: "}"))
    }

    @inlinable  // specialised where it is called: unspecialised, each element cost a metadata lookup (callgrind)
    public mutating func array<S: Sequence>(_ elements: S, _ write: (inout JSONOutput, S.Element) -> Void) {
        separate()
        appendByte(UInt8(ascii: "["))
        open()
        for element in elements { write(&self, element) }
        close()
        appendByte(UInt8(ascii: "]"))
    }

    /// Writes `"name":` inside an object; the value call that follows must not add a comma.
    public mutating func key(_ name: StaticString) {
        separate()
        name.withUTF8Buffer { name in
            let target = reserve(name.count + 3)
            target[0] = UInt8(ascii: "\"")
            if name.count > 0 { (target + 1).update(from: name.baseAddress!, count: name.count) }
            target[name.count + 1] = UInt8(ascii: "\"")
            target[name.count + 2] = UInt8(ascii: ":")
            count += name.count + 3
        }
        pendingValueAfterKey = true
    }

    /// Writes `"name":` for a name known only at run time (escaped); `key(_:)` for literals.
    public mutating func key(named name: String) {
        separate()
        appendQuoted(name)
        appendByte(UInt8(ascii: ":"))
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
        // Milliseconds with microsecond resolution (every duration in a report) as "int.fff",
        // without the String that `description` allocates. Exact: the decimal is the value's own
        // (x / 1000 rounds the same exact quotient a reader's parse rounds), so it reads back equal.
        let thousandths = (value * 1000).rounded()
        if abs(thousandths) < 1e15, Double(Int64(thousandths)) / 1000 == value {
            let scaled = Int64(thousandths)
            if scaled < 0 { appendByte(UInt8(ascii: "-")) }
            appendDecimal(Int64(scaled.magnitude / 1000))
            var fraction = Int(scaled.magnitude % 1000)
            var width = 3
            while fraction > 0 && fraction % 10 == 0 { fraction /= 10; width -= 1 }
            appendByte(UInt8(ascii: "."))
            appendPadded(fraction, width: width)
            return
        }
        append(value.description)
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
    }

    /// Writes `{"name":…,"value":…}`, a header field as report.json and HAR both spell it: the
    /// same bytes as `object` with the two members, in one step (each task writes some twenty).
    public mutating func nameValueObject(name: String, value: String) {
        separate()
        append(#"{"name":"# as StaticString)
        appendQuoted(name)
        append(#","value":"# as StaticString)
        appendQuoted(value)
        appendByte(UInt8(ascii: "}"))
    }

    /// Appends `value` as a quoted JSON string, escaped.
    private mutating func appendQuoted(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // Fast path: copy while scanning, into room for the whole string and its quotes; the
            // first byte that needs an escape hands the rest to the slow path.
            let target = reserve(utf8.count + 2)
            target[0] = UInt8(ascii: "\"")
            var index = 0
            if let source = utf8.baseAddress {
                while index < utf8.count {
                    let byte = source[index]
                    if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
                    target[index + 1] = byte
                    index += 1
                }
            }
            if index == utf8.count {
                target[index + 1] = UInt8(ascii: "\"")
                count += index + 2
                return
            }
            count += index + 1
            appendEscaped(UnsafeBufferPointer(rebasing: utf8[index...]))
            appendByte(UInt8(ascii: "\""))
        }
    }

    /// Appends `utf8` with JSON escapes (no quotes).
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[runStart..<index])))
            runStart = index + 1
            appendByte(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): appendByte(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): appendByte(UInt8(ascii: "\\"))
            case 0x0A: appendByte(UInt8(ascii: "n"))
            case 0x0D: appendByte(UInt8(ascii: "r"))
            case 0x09: appendByte(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                appendByte(UInt8(ascii: "u"))
                appendByte(0x30)
                appendByte(0x30)
                appendByte(hex.utf8Start[Int(byte >> 4)])
                appendByte(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count])))
    }

    /// Writes `value`, or `null` when it is absent.
    @inlinable
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

    @inlinable
    public mutating func member(_ name: StaticString, _ value: (some JSONWritable)?) {
        key(name)
        self.value(value)
    }

    @inlinable
    public mutating func member<Element: JSONWritable>(_ name: StaticString, _ elements: [Element]) {
        key(name)
        array(elements) { output, element in element.writeJSON(to: &output) }
    }

    // MARK: Internals

    /// Adds the comma between siblings; a value right after its key takes none.
    @usableFromInline
    mutating func separate() {
        if pendingValueAfterKey {
            pendingValueAfterKey = false
            return
        }
        guard depth > 0 else { return }
        let level = depth - 1
        if level >= 64 {
            if deepNeedsComma[level - 64] { appendByte(UInt8(ascii: ",")) } else { deepNeedsComma[level - 64] = true }
            return
        }
        let bit: UInt64 = 1 << UInt64(level)
        if needsComma & bit != 0 {
            appendByte(UInt8(ascii: ","))
        } else {
            needsComma |= bit
        }
    }

    /// Enters a container: its first member or element takes no comma.
    @usableFromInline
    mutating func open() {
        if depth >= 64 {
            deepNeedsComma.append(false)
        } else {
            needsComma &= ~(1 << UInt64(depth))
        }
        depth += 1
    }

    @usableFromInline
    mutating func close() {
        depth -= 1
        if depth >= 64 { deepNeedsComma.removeLast() }
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends exactly `width` bytes that `fill` writes (for fixed-width forms such as timestamps).
    mutating func appendFixed(width: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        fill(reserve(width))
        count += width
    }

    /// Appends raw bytes (the caller guarantees they are valid JSON where they land).
    public mutating func append(_ raw: UnsafeRawBufferPointer) {
        guard raw.count > 0 else { return }
        reserve(raw.count).update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: raw.count)
        count += raw.count
    }

    /// Room for `extra` more bytes at the end, unshared; the caller writes them and adds to `count`.
    @inline(__always)
    private mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(!isKnownUniquelyReferenced(&storage) || count + extra > capacity) { makeRoom(extra) }
        return base + count
    }

    /// Gives this output a buffer of its own with room for `extra` more bytes.
    private mutating func makeRoom(_ extra: Int) {
        let needed = count + extra
        if isKnownUniquelyReferenced(&storage) {
            storage.grow(toAtLeast: needed, keeping: count)
        } else {
            storage = storage.copy(count: count, minimumCapacity: needed)
        }
        base = storage.base
        capacity = storage.capacity
    }

    mutating func appendDecimal(_ value: Int64) {
        if value < 0 {
            appendByte(UInt8(ascii: "-"))
            if value == .min { return append("9223372036854775808" as StaticString) }
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
            append(UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    /// Appends `value` as exactly `width` decimal digits (zero-padded; `value` must fit).
    mutating func appendPadded(_ value: Int, width: Int) {
        var rest = value
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            let count = min(width, buffer.count)
            for index in stride(from: count - 1, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    @usableFromInline
    mutating func appendByte(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    /// Starts a value whose bytes the caller appends itself (adds the separating comma if needed).
    mutating func beginRawValue() { separate() }
}

extension JSONOutput {
    /// Owns an output's bytes (the output keeps their length). Shared by copies of an output
    /// until one of them writes.
    final class Storage {
        private(set) var base: UnsafeMutablePointer<UInt8>
        private(set) var capacity: Int

        init(capacity: Int) {
            self.capacity = max(16, capacity)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }

        /// A new buffer holding the first `count` bytes of this one.
        func copy(count: Int, minimumCapacity: Int) -> Storage {
            let copy = Storage(capacity: max(capacity, minimumCapacity))
            copy.base.update(from: base, count: count)
            return copy
        }

        /// Moves to a buffer of at least `needed` bytes (at least double), keeping the first `count`.
        func grow(toAtLeast needed: Int, keeping count: Int) {
            let grownCapacity = max(needed, capacity * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: grownCapacity)
            grown.update(from: base, count: count)
            base.deallocate()
            base = grown
            capacity = grownCapacity
        }
    }
}
