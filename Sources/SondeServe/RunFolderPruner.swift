import Foundation

/// serve's `keep: {days: N}`: removes the run folders of scheduled checks (named
/// `YYYYMMDDTHHMMSSZ-serve-…`, the start in their name) that started more than N days ago. Only
/// such folders, only folders (a link is never followed nor removed), at most `limit` a pass;
/// the history database keeps their rows.
public enum RunFolderPruner {
    /// Removes what is due under `outputDirectory`; returns the names removed.
    @discardableResult
    public static func prune(outputDirectory: String, olderThanDays days: Int, now: Date = Date(), limit: Int = 1000) -> [String] {
        guard days > 0, let names = try? FileManager.default.contentsOfDirectory(atPath: outputDirectory) else { return [] }
        let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
        var removed: [String] = []
        for name in names.sorted() where removed.count < limit {
            guard let started = startDate(of: name), started < cutoff else { continue }
            let path = (outputDirectory as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(name) }
        }
        return removed
    }

    /// The start in a serve run folder's name, nil for any other name.
    static func startDate(of name: String) -> Date? {
        let parts = name.split(separator: "-", maxSplits: 2)
        guard parts.count == 3, parts[1] == "serve", parts[0].count == 16 else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: String(parts[0]))
    }
}
