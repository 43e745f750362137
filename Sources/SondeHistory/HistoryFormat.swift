import Foundation
import SondeCore
import SondeReport

/// Numbers as the history's terminal table, JSON-free text and page show them. Values come from
/// a database another program may have written: anything non-finite or huge is shown as Swift
/// prints it, never converted with a trap.
enum HistoryFormat {
    static func milliseconds(_ value: Double) -> String { value.isFinite ? formatMs(value) : "\(value)" }

    /// A fraction as a percentage with at most two decimals: `0.5%`, `12%`.
    static func percent(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e12 else { return "\(value)" }
        let hundredths = (value * 10_000).rounded() / 100
        return (hundredths == hundredths.rounded() ? String(Int64(hundredths)) : String(hundredths)) + "%"
    }

    static func count(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        return value == value.rounded() ? String(Int64(value)) : String((value * 10).rounded() / 10)
    }

    /// `2026-11-23 22:26` (UTC) from microseconds since 1970.
    static func minute(_ microseconds: Int64) -> String {
        String(Timestamp(microsecondsSince1970: microseconds).description.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }
}
