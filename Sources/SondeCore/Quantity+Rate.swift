/// Rates (bits per second) beside `Quantity`'s durations and sizes: the `--link` profile's
/// `rate-down=8Mbit`. A rate is a number and one of `bit`, `kbit`, `Mbit`, `Gbit` (powers of 1000,
/// as link rates are counted), their `bps` spellings (`kbps`, `Mbps`, `Gbps`: bits, never bytes),
/// in any letter case; a bare number means bits per second.
///
/// Upper bounds belong to the caller (a link profile refuses more than 100 Gbit/s and says so).
extension Quantity {
    /// Rate units and their size in bits per second (lower-cased suffixes).
    public static let rateUnits: [(suffix: String, bitsPerSecond: Double)] = [
        ("kbit", 1e3), ("mbit", 1e6), ("gbit", 1e9), ("kbps", 1e3), ("mbps", 1e6), ("gbps", 1e9), ("bit", 1), ("bps", 1),
    ]
    /// What the docs (docs/link.md) and every error message say about rates.
    public static let rateHint = "a number of bits per second, or with a unit: 780kbit, 8Mbit, 1Gbit (powers of 1000)"

    /// Whole bits per second, or nil when `text` is not a rate: a finite, non-negative number
    /// (an exponent allowed), optionally followed (spaces allowed between) by a known unit; the
    /// result is rounded to whole bits and lies in 0…2^53.
    public static func rate(_ text: String) -> Int64? {
        guard let (value, written) = split(text) else { return nil }
        let unit = written.lowercased()
        let factor: Double
        if unit.isEmpty {
            factor = 1
        } else if let match = rateUnits.first(where: { $0.suffix == unit }) {
            factor = match.bitsPerSecond
        } else {
            return nil
        }
        let bits = (value * factor).rounded()
        // A non-zero number that rounds to 0 bit/s (1e-9kbit) is not "no rate": refuse it.
        guard bits.isFinite, bits <= 9_007_199_254_740_992, bits > 0 || value == 0 else { return nil }
        return Int64(bits)
    }
}
