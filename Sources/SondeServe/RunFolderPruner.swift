import Foundation
import SondeCore

/// serve's `keep: {days: N}`: removes the run folders of scheduled checks (named
/// `YYYYMMDDTHHMMSSZ-serve-…`, the start in their name) that started more than N days ago. Only
/// such folders, only folders (a link is never followed nor removed), at most `limit` a pass;
/// the history database keeps their rows.
///
/// Cost: one directory listing and sort a pass, and a fixed-width parse per name up to the first
/// name that started at or after the cutoff (names sort by their start). It once made a
/// `DateFormatter` per name after every run: with 50 checks every 10 s, the runs ended per minute
/// fell from 300 to 20–50 within 10 minutes as the folders accumulated (docs/measurements.md).
/// `ScheduledRunner` prunes at most once a minute (`IntervalGate`).
public enum RunFolderPruner {
    /// Removes what is due under `outputDirectory`; returns the names removed.
    @discardableResult
    public static func prune(outputDirectory: String, olderThanDays days: Int, now: Date = Date(), limit: Int = 1000) -> [String] {
        guard days > 0, days <= 36_500, let names = try? FileManager.default.contentsOfDirectory(atPath: outputDirectory) else { return [] }
        let cutoff = now.timeIntervalSince1970 - Double(days) * 86_400
        var removed: [String] = []
        for name in names.sorted() where removed.count < limit {
            // A start prefix orders as its time: from the first at or after the cutoff on, none is due.
            guard let started = startSeconds(of: name) else { continue }
            guard Double(started) < cutoff else { break }
            guard name.utf8.dropFirst(16).starts(with: "-serve-".utf8) else { continue }
            let path = (outputDirectory as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(name) }
        }
        return removed
    }

    /// The start in a serve run folder's name, nil for any other name.
    static func startDate(of name: String) -> Date? {
        guard name.utf8.dropFirst(16).starts(with: "-serve-".utf8), let seconds = startSeconds(of: name) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// The seconds since 1970 (UTC) of a name's `YYYYMMDDTHHMMSSZ` prefix (any run folder's), nil
    /// when it has none or it names no valid time (month 1–12, day within the month, hour < 24,
    /// minute and second < 60, year 1970–9999).
    static func startSeconds(of name: String) -> Int64? {
        let bytes = Array(name.utf8.prefix(16))
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
              let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15), year >= 1970, second < 60,
              let start = Timestamp(utcYear: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return start.microsecondsSince1970 / 1_000_000
    }
}
