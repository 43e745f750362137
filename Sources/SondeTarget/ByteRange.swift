/// How the target answers a `Range` header for a resource of `length` bytes (RFC 9110 §14).
public enum ByteRangeAnswer: Equatable, Sendable {
    /// Send the whole representation with 200.
    case full
    /// Send these bytes with 206 and `Content-Range: bytes first-last/length`.
    case partial(ClosedRange<Int>)
    /// Answer 416 with `Content-Range: bytes */length`.
    case unsatisfiable
}

public enum ByteRange {
    /// Interprets a `Range` header value. Only a single `bytes=` range is honoured; several
    /// ranges, other units and syntax errors are ignored (200 with the whole body), as RFC 9110 allows.
    public static func answer(rangeHeader: String?, length: Int) -> ByteRangeAnswer {
        guard let header = rangeHeader?.trimmingCharacters(in: .whitespaces), header.hasPrefix("bytes=") else { return .full }
        let spec = header.dropFirst("bytes=".count)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .full }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // Suffix range: the last N bytes.
            guard let suffix = Int(last), suffix >= 0 else { return .full }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - suffix)...(length - 1))
        }
        guard let start = Int(first), start >= 0 else { return .full }
        var end = length - 1
        if !last.isEmpty {
            guard let value = Int(last), value >= start else { return .full }
            end = min(value, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .partial(start...end)
    }
}
