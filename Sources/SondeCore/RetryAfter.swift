import Foundation

/// A `Retry-After` value as RFC 9110 §10.2.3 allows it: delay-seconds (`1*DIGIT`) or an HTTP-date
/// (IMF-fixdate, or the obsolete RFC 850 and asctime forms, §5.6.7). The one reader of the header:
/// resume retries, the OTLP exporter's retries and the audit's `retry-after` finding use it.
public enum RetryAfter: Equatable, Sendable {
    case seconds(Int)
    case date(Date)

    /// Delay-seconds longer than this many digits are refused, not wrapped (10 digits: ~317 years).
    public static let maxDigits = 10

    /// The value, nil when it is neither form (`1.5`, `-5`, `soon`, empty).
    public init?(parsing text: String) {
        let value = text.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.count <= Self.maxDigits, value.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(value) {
            self = .seconds(seconds)
            return
        }
        guard value.count <= 64 else { return nil }
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: value.replacingOccurrences(of: "  ", with: " ")) {
                self = .date(date)
                return
            }
        }
        return nil
    }

    /// The wait it asks for, in seconds from `now` (≥ 0: a date in the past means at once).
    public func delaySeconds(now: Date) -> Double {
        switch self {
        case .seconds(let seconds): return Double(seconds)
        case .date(let date): return max(0, date.timeIntervalSince(now))
        }
    }
}
