import SondeCore

/// A recorded link in mahimahi's trace format: one line per delivery opportunity, the time in
/// whole milliseconds since the trace began; at each opportunity up to `bytesPerOpportunity`
/// bytes may leave the queue. The trace repeats with a period of its last time (as mahimahi's
/// `mm-link` does), so the last time must be above 0.
///
/// Invariants (checked by `init(path:text:)`): at least one line, every time a non-negative integer
/// ≤ `maxTimeMs`, times never decrease, the last above 0.
public struct DeliveryTrace: Sendable, Equatable {
    /// The file it was read from (what the report names).
    public var path: String
    /// The opportunities' times within one period, in milliseconds, non-decreasing.
    public var timesMs: [Int64]
    /// The period (the last time), in milliseconds.
    public var periodMs: Int64 { timesMs.last ?? 1 }

    /// What each opportunity carries, in bytes (mahimahi's MTU-sized opportunity).
    public static let bytesPerOpportunity: Int64 = 1500
    /// The largest trace file read.
    public static let maxFileBytes = 16 * 1024 * 1024
    /// The most lines a trace may have.
    public static let maxLines = 1_000_000
    /// The largest time on a line: 10^9 ms, about 11.6 days.
    public static let maxTimeMs: Int64 = 1_000_000_000

    /// Reads the trace at `path` (a regular file, not through a link, at most `maxFileBytes`).
    /// - Parameter key: the profile key that named it (`trace-down`), for messages.
    public static func read(path: String, key: String) throws(SettingProblem) -> DeliveryTrace {
        let bytes: [UInt8]
        do {
            bytes = try NoFollowFile.read(path: path, maxBytes: maxFileBytes)
        } catch {
            throw SettingProblem(key: key, "\(error.message) (a trace is at most \(maxFileBytes / 1024 / 1024) MiB)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SettingProblem(key: key, "\(path) is not UTF-8 text")
        }
        return try DeliveryTrace(path: path, text: text, key: key)
    }

    /// Parses trace text (one time in ms per line; a final newline is allowed, empty lines are not).
    public init(path: String, text: String, key: String) throws(SettingProblem) {
        // Lines by bytes: "\r\n" is one Character in Swift, so a split on Characters would keep it whole.
        var lines = Array(text.utf8).split(separator: 10, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard !lines.isEmpty else { throw SettingProblem(key: key, "\(path) holds no delivery opportunity (one time in ms per line)") }
        guard lines.count <= Self.maxLines else {
            throw SettingProblem(key: key, "\(path) has \(lines.count) lines; a trace has at most \(Self.maxLines)")
        }
        var times: [Int64] = []
        times.reserveCapacity(lines.count)
        for (index, rawLine) in lines.enumerated() {
            let line = rawLine.last == 13 ? rawLine.dropLast() : rawLine
            guard !line.isEmpty, line.count <= 10, line.allSatisfy({ (48...57).contains($0) }),
                  let value = Int64(String(decoding: line, as: UTF8.self)), value <= Self.maxTimeMs else {
                let shown = String(decoding: line.prefix(40), as: UTF8.self)
                throw SettingProblem(key: key, "\(path) line \(index + 1): \"\(shown)\" is not a whole number of milliseconds from 0 to \(Self.maxTimeMs)")
            }
            if let previous = times.last, value < previous {
                throw SettingProblem(key: key, "\(path) line \(index + 1): \(value) ms comes after \(previous) ms; times must never decrease")
            }
            times.append(value)
        }
        guard let last = times.last, last > 0 else {
            throw SettingProblem(key: key, "\(path): the last time is the trace's period and must be above 0 ms")
        }
        self.path = path
        self.timesMs = times
    }
}
