/// The one parser of durations and sizes that come from outside: command-line options, config
/// and suite files, threshold bounds. Every duration in sonde goes through `duration(_:)`, every
/// size through `size(_:)`, so `5s` means the same wherever it is written.
///
/// - Durations: a number and one of `us` (or `µs`), `ms`, `s`, `m`, `h`, `d`; a bare number means
///   seconds (threshold bounds, where a bare number once meant milliseconds, refuse it instead:
///   `Threshold`). Results are in seconds, finite and not negative.
/// - Sizes: a number and one of `B`, `KiB`, `MiB`, `GiB` (powers of 1024) or `KB`, `MB`, `GB`
///   (powers of 1000); a bare number means bytes. Results are whole bytes in 0…2^53.
///
/// Upper bounds belong to each option (a soak may last 30 days, a timeout a day): the caller
/// range-checks the result and says its own bound.
public enum Quantity {
    /// Duration units and their length in seconds.
    public static let durationUnits: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("us", 0.000_001), ("µs", 0.000_001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400),
    ]
    /// Size units and their size in bytes.
    public static let sizeUnits: [(suffix: String, bytes: Double)] = [
        ("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("kb", 1000), ("mb", 1_000_000), ("gb", 1_000_000_000),
        ("b", 1),
    ]
    /// What the docs (docs/suites.md) and every error message say about durations.
    public static let durationHint = "a number with a unit: 500ms, 5s, 2m, 1h, 7d (a bare number means seconds)"
    /// What the docs (docs/suites.md) and every error message say about sizes.
    public static let sizeHint = "a number of bytes, or with a unit: 512KiB, 16MiB, 1GiB (KB, MB, GB are powers of 1000)"

    /// A duration split into its number and its unit as written (unit "" for a bare number).
    public struct Parts: Sendable, Equatable {
        public var value: Double
        public var unit: String
        /// The unit's length in seconds; nil for a bare number.
        public var unitSeconds: Double?
    }

    /// Seconds, or nil when `text` is not a duration (see the type's rules).
    public static func duration(_ text: String) -> Double? {
        guard let parts = durationParts(text) else { return nil }
        let seconds = parts.value * (parts.unitSeconds ?? 1)
        return seconds.isFinite ? seconds : nil
    }

    /// The number and unit of a duration, or nil when it is not one: a finite, non-negative
    /// number, optionally followed (spaces allowed between) by a known unit.
    public static func durationParts(_ text: String) -> Parts? {
        guard let (value, unit) = split(text) else { return nil }
        if unit.isEmpty { return Parts(value: value, unit: "", unitSeconds: nil) }
        guard let match = durationUnits.first(where: { $0.suffix == unit }) else { return nil }
        return Parts(value: value, unit: unit, unitSeconds: match.seconds)
    }

    /// Whole bytes, or nil when `text` is not a size (see the type's rules).
    public static func size(_ text: String) -> Int64? {
        guard let (value, unit) = split(text) else { return nil }
        let factor: Double
        if unit.isEmpty {
            factor = 1
        } else if let match = sizeUnits.first(where: { $0.suffix == unit.lowercased() }) {
            factor = match.bytes
        } else {
            return nil
        }
        let bytes = (value * factor).rounded()
        guard bytes.isFinite, bytes <= 9_007_199_254_740_992 else { return nil }
        return Int64(bytes)
    }

    /// "250 ms" → (250, "ms"): the leading decimal number (an exponent allowed, so that `1e9h`
    /// is a duration the caller refuses as too long, saying its bound) and what follows, trimmed.
    /// nil for a negative or non-finite number. Durations, sizes and rates (`rate(_:)`) all read
    /// their number with it.
    static func split(_ text: String) -> (Double, String)? {
        let bytes = Array(text.trimmingWhitespace().utf8)
        let end = numberEnd(in: bytes, from: 0, allowingSign: false)
        let number = bytes[..<end]
        guard end > 0, let value = Double(String(decoding: number, as: UTF8.self)), value.isFinite, value >= 0 else { return nil }
        // A number written with a non-zero digit that underflowed to 0 (1e-400) is not "no limit".
        let mantissa = number.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        if value == 0 && mantissa.contains(where: { (49...57).contains($0) }) { return nil }
        return (value, String(decoding: bytes[end...], as: UTF8.self).trimmingWhitespace())
    }

    /// Where the decimal number starting at `start` in `bytes` (UTF-8) ends: digits and `.`, an
    /// exponent (`e`/`E`, optionally signed, followed by a digit), and with `allowingSign` a
    /// leading `-`. Whether the text is a valid number is `Double`'s to say. Threshold bounds use
    /// it too, so a number is read the same way wherever sonde reads one.
    public static func numberEnd(in bytes: [UInt8], from start: Int, allowingSign: Bool) -> Int {
        func isDigit(_ index: Int) -> Bool { index < bytes.count && (48...57).contains(bytes[index]) }
        func isExponentMark(_ index: Int) -> Bool { bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") }
        func isSign(_ index: Int) -> Bool { index < bytes.count && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) }
        var end = start
        while end < bytes.count {
            let exponent = isExponentMark(end) && end > start && (isDigit(end + 1) || (isSign(end + 1) && isDigit(end + 2)))
            let exponentSign = isSign(end) && end > start && isExponentMark(end - 1)
            let leadingSign = allowingSign && end == start && bytes[end] == UInt8(ascii: "-")
            guard isDigit(end) || bytes[end] == UInt8(ascii: ".") || exponent || exponentSign || leadingSign else { break }
            end += 1
        }
        return end
    }
}
