#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A wall-clock instant with microsecond precision, encoded as ISO 8601 UTC with six fractional
/// digits (`2026-11-21T22:26:00.123456Z`), the form every report field ending in `Date` uses.
///
/// Invariant: `microsecondsSince1970` is the only stored value; formatting never loses precision.
public struct Timestamp: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microsecondsSince1970: Int64

    public init(microsecondsSince1970: Int64) {
        self.microsecondsSince1970 = microsecondsSince1970
    }

    /// The current wall-clock time (`CLOCK_REALTIME`).
    public static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(microsecondsSince1970: Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000)
    }

    /// This instant moved by `microseconds` (may be negative).
    public func adding(microseconds: Int64) -> Timestamp {
        Timestamp(microsecondsSince1970: microsecondsSince1970 + microseconds)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.microsecondsSince1970 < rhs.microsecondsSince1970
    }

    /// ISO 8601, UTC, microseconds.
    public var description: String {
        var output = JSONOutput(capacity: 27)
        appendISO8601(to: &output)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, always 6 fraction digits) without quotes.
    /// Uses the proleptic Gregorian civil-from-days algorithm (H. Hinnant), no libc call.
    func appendISO8601(to output: inout JSONOutput) {
        let (days, microsOfDay) = microsecondsSince1970.floorDivided(by: 86_400_000_000)
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let seconds = Int(microsOfDay / 1_000_000)
        output.appendFixed(width: 27) { text in
            /// Writes `value` as `width` decimal digits ending just before `end`.
            func digits(_ value: Int, _ width: Int, endingAt end: Int) {
                var rest = value
                for index in stride(from: end - 1, through: end - width, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            digits(Int(max(0, min(year, 9999))), 4, endingAt: 4)
            text[4] = UInt8(ascii: "-")
            digits(Int(month), 2, endingAt: 7)
            text[7] = UInt8(ascii: "-")
            digits(Int(day), 2, endingAt: 10)
            text[10] = UInt8(ascii: "T")
            digits(seconds / 3600, 2, endingAt: 13)
            text[13] = UInt8(ascii: ":")
            digits(seconds / 60 % 60, 2, endingAt: 16)
            text[16] = UInt8(ascii: ":")
            digits(seconds % 60, 2, endingAt: 19)
            text[19] = UInt8(ascii: ".")
            digits(Int(microsOfDay % 1_000_000), 6, endingAt: 26)
            text[26] = UInt8(ascii: "Z")
        }
    }

    public var compactUTC: String {
        let iso = description
        let digits = iso.prefix(19).filter { $0 != "-" && $0 != ":" }
        return digits + "Z"
    }

    /// Parses the ISO 8601 form written by `description` (fraction optional, `Z` required).
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              bytes.last == UInt8(ascii: "Z")
        else { return nil }
        var micros = 0
        if bytes[19] == UInt8(ascii: ".") {
            let fraction = bytes[20..<(bytes.count - 1)]
            guard !fraction.isEmpty, fraction.count <= 9 else { return nil }
            var scale = 100_000
            for byte in fraction {
                guard byte >= 48, byte <= 57 else { return nil }
                micros += Int(byte - 48) * scale
                scale /= 10
            }
        }
        self.init(utcYear: year, month: month, day: day, hour: hour, minute: minute, second: second, microsecond: micros)
    }

    /// A UTC calendar instant; nil when a field is out of range (no normalisation of "day 40").
    public init?(utcYear year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, microsecond: Int = 0) {
        guard (0...9999).contains(year), (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
              (0...59).contains(minute), (0...60).contains(second), (0..<1_000_000).contains(microsecond) else { return nil }
        // timegm would carry a day past the month's end into the next month (February 30 → March 2).
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        guard day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        self.init(microsecondsSince1970: Int64(seconds) * 1_000_000 + Int64(microsecond))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 UTC timestamp: \(text)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Timestamp: JSONWritable {
    public func writeJSON(to output: inout JSONOutput) {
        output.beginRawValue()
        output.appendByte(UInt8(ascii: "\""))
        appendISO8601(to: &output)
        output.appendByte(UInt8(ascii: "\""))
    }
}

extension Int64 {
    /// Floor division and the matching non-negative remainder (for dates before 1970), for a
    /// positive divisor; without a trap for any value, `Int64.min` included (negating it overflowed).
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

/// A monotonic clock reading in microseconds (`CLOCK_MONOTONIC`), for measuring intervals.
public func monotonicMicroseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000
}

extension Timestamp: JSONReadable {
    public init(reading reader: inout JSONReader) throws(JSONReadError) {
        let text = try reader.readString()
        guard let value = Timestamp(iso8601: text) else { throw reader.error("not an ISO 8601 UTC timestamp: \(text)") }
        self = value
    }
}
