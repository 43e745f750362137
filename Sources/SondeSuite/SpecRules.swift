import Foundation
import SondeCore
import SondeLink

/// The checks every kind of spec shares, each said once: header lines, durations within bounds,
/// readable files, `--resolve` entries, backoff settings. Each returns the problem for `key`, or nil.
public enum SpecRules {
    /// The longest timeout of any kind (s): a day.
    public static let maxTimeoutS = 86_400.0

    /// `Name: value` lines as header fields; the first malformed line is the problem.
    public static func headerFields(_ lines: [String]?, key: String = "headers") -> Result<[HeaderField], SpecProblem> {
        var fields: [HeaderField] = []
        for line in lines ?? [] {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex, !hasControlCharacters(line) else {
                return .failure(SpecProblem(key: key, "'\(line)' is not of the form 'Name: value'"))
            }
            fields.append(HeaderField(name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                                      value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        return .success(fields)
    }

    /// nil when `value` is nil or within `range` (seconds); else the bound in words.
    public static func duration(_ value: DurationValue?, key: String, within range: ClosedRange<Double>) -> SpecProblem? {
        guard let value else { return nil }
        if value.seconds > range.upperBound {
            return SpecProblem(key: key, "must be at most \(DurationValue(seconds: range.upperBound)) (got \(value))")
        }
        if value.seconds < range.lowerBound {
            return SpecProblem(key: key, "must be at least \(DurationValue(seconds: range.lowerBound)) (got \(value))")
        }
        return nil
    }

    /// nil when `value` is nil or within `range`.
    public static func number<N: Comparable & CustomStringConvertible>(_ value: N?, key: String, within range: ClosedRange<N>) -> SpecProblem? {
        guard let value else { return nil }
        guard range.contains(value) else { return SpecProblem(key: key, "must be between \(range.lowerBound) and \(range.upperBound) (got \(value))") }
        return nil
    }

    /// Whether `text` holds a control character (CR, LF, NUL, …: what would split a request line
    /// or header). Checked scalar by scalar: "\r\n" is one `Character`, equal to neither "\r" nor "\n".
    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// The largest CA file (`cacert`) a check reads, in bytes.
    public static let maxCAFileBytes: Int64 = 16 << 20

    /// `cacert` (any kind's) names a readable regular file of at most `maxCAFileBytes`; nil
    /// without one.
    public static func caFileProblem(_ cacert: String?) -> SpecProblem? {
        readableFile(cacert, key: "cacert", maxBytes: maxCAFileBytes)
    }

    /// nil when `path` is nil or names a readable regular file of at most `maxBytes` (a FIFO, a
    /// device such as /dev/zero or a directory would block or never end).
    public static func readableFile(_ path: String?, key: String, maxBytes: Int64 = 1 << 30) -> SpecProblem? {
        guard let path else { return nil }
        var status = stat()
        guard stat(path, &status) == 0, access(path, R_OK) == 0 else {
            return SpecProblem(key: key, "\(path): no such file, or not readable")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return SpecProblem(key: key, "\(path) is not a regular file") }
        guard Int64(status.st_size) <= maxBytes else {
            return SpecProblem(key: key, "\(path) is larger than \(maxBytes >> 20) MiB, the most sonde reads here")
        }
        return nil
    }

    /// nil when `path` is nil, or names a file sonde may read and then replace: a regular file of
    /// at most `maxBytes` (not a link: sonde never writes through one), or a name not yet taken
    /// in an existing folder.
    public static func writableFile(_ path: String?, key: String, maxBytes: Int64) -> SpecProblem? {
        guard let path else { return nil }
        guard !path.isEmpty else { return SpecProblem(key: key, "give a file name") }
        var status = stat()
        if lstat(path, &status) != 0 {
            let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
            var folderStatus = stat()
            guard stat(folder.isEmpty ? "/" : folder, &folderStatus) == 0, (folderStatus.st_mode & S_IFMT) == S_IFDIR else {
                return SpecProblem(key: key, "\(path): its folder does not exist")
            }
            return nil
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            return SpecProblem(key: key, "\(path) is not a regular file (sonde does not write through links)")
        }
        guard Int64(status.st_size) <= maxBytes else {
            return SpecProblem(key: key, "\(path) is larger than \(maxBytes >> 20) MiB, the most sonde reads here")
        }
        return nil
    }

    /// nil when `url` is nil or an absolute URL of one of `schemes` without spaces or control characters.
    public static func url(_ url: String?, key: String, schemes: [String]) -> SpecProblem? {
        guard let url else { return nil }
        let lowered = url.lowercased()
        guard schemes.contains(where: { lowered.hasPrefix($0 + "://") }) else {
            return SpecProblem(key: key, "'\(url)' is not a URL of \(schemes.map { $0 + "://" }.joined(separator: ", "))")
        }
        return plainText(url, key: key)
    }

    /// nil when `text` (a URL) holds no space and no control character.
    public static func plainText(_ text: String, key: String) -> SpecProblem? {
        guard !hasControlCharacters(text), !text.contains(" ") else { return SpecProblem(key: key, "'\(text)' holds spaces or control characters") }
        return nil
    }

    /// `host:port:address` entries (curl's `--resolve`).
    public static func resolveEntries(_ entries: [String]?) -> SpecProblem? {
        for entry in entries ?? [] where entry.split(separator: ":", omittingEmptySubsequences: false).count < 3 {
            return SpecProblem(key: "resolve", "'\(entry)' is not of the form host:port:address")
        }
        return nil
    }

    /// The link profile `text` describes (`LinkProfileParser`); nil text is no link. A problem
    /// names `link`, or the profile's key at fault (`link: delay-down: 2h is longer than 60 s`).
    public static func linkProfile(_ text: String?) -> Result<LinkProfile?, SpecProblem> {
        guard let text else { return .success(nil) }
        do throws(SettingProblem) { return .success(try LinkProfileParser.parse(text)) } catch {
            return .failure(SpecProblem(key: "link", error.key == "link" ? error.message : "\(error.key) \(error.message)"))
        }
    }

    /// The jitter mode named `name` (nil: full).
    public static func jitter(_ name: String?) -> Result<BackoffPolicy.Jitter, SpecProblem> {
        guard let name else { return .success(.full) }
        guard let mode = BackoffPolicy.Jitter(rawValue: name) else { return .failure(SpecProblem(key: "jitter", "must be full, equal or none (got '\(name)')")) }
        return .success(mode)
    }

    /// Thresholds that parse (`Threshold`, with `kind`'s declared metrics) and, with `kind`, judge
    /// what a check of that kind measures (`CheckKind.judges`); the first that does not is the problem.
    public static func thresholds(_ expressions: [String]?, kind: (any CheckKind.Type)? = nil) -> Result<[Threshold], SpecProblem> {
        var parsed: [Threshold] = []
        for expression in expressions ?? [] {
            let threshold: Threshold
            do throws(ThresholdSyntaxError) { threshold = try Threshold(parsing: expression, declared: .listed(kind?.metrics ?? [])) } catch {
                return .failure(SpecProblem(key: "thresholds", error.message))
            }
            if let kind, !kind.judges(threshold) {
                return .failure(SpecProblem(key: "thresholds", "'\(expression)': \(kind.metricsHint)"))
            }
            parsed.append(threshold)
        }
        return .success(parsed)
    }

    /// Milliseconds of a bounded duration, at least 1 (a duration within a day fits any Int).
    public static func milliseconds(_ value: DurationValue) -> Int {
        max(1, Int((min(value.seconds, maxTimeoutS * 1000) * 1000).rounded()))
    }
}

extension Result {
    /// The failure, or nil.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
