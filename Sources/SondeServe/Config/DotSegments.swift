/// Finds the dot segments (`.` and `..`, RFC 3986 §3.3) of a URL path in every spelling a client or
/// server along the way may resolve: written plainly, percent-encoded once or more (`%2e`,
/// `%252E`), behind a separator some servers take for `/` (`%2f`, `\\`, `%5c`) or followed by a
/// path parameter (`..;x`, which Tomcat and Jetty read as `..`).
///
/// serve's allow list matches a path as written; libcurl removes dot segments before sending
/// (`/public/../admin` goes out as `/admin`), and servers decode and remove them again. A path
/// with any of them is refused, whatever the patterns: such a path has no honest use as a
/// probe target, and refusing is safer than guessing which of the spellings the server honours.
enum DotSegments {
    /// How many rounds of percent-decoding are looked through (`%25252e` is three).
    static let decodingRounds = 4

    /// Whether `path` (percent-encoded, without query or fragment) holds a dot segment.
    static func present(in path: String) -> Bool {
        var bytes = Array(path.utf8)
        for round in 0...decodingRounds {
            if hasDotSegment(bytes) { return true }
            guard round < decodingRounds else { break }
            let decoded = percentDecoded(bytes)
            if decoded == bytes { break }
            bytes = decoded
        }
        return false
    }

    /// Whether a segment of `bytes`, split at `/` and `\`, is `.` or `..` once a `;` parameter is cut.
    static func hasDotSegment(_ bytes: [UInt8]) -> Bool {
        var segment: [UInt8] = []
        var inParameter = false
        func isDots(_ segment: [UInt8]) -> Bool { segment == [0x2E] || segment == [0x2E, 0x2E] }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "\\"):
                if isDots(segment) { return true }
                segment.removeAll(keepingCapacity: true)
                inParameter = false
            case UInt8(ascii: ";"):
                inParameter = true
            default:
                if !inParameter { segment.append(byte) }
            }
        }
        return isDots(segment)
    }

    /// `bytes` with every valid `%XX` replaced by its byte; an invalid `%` stays as it is.
    static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }
}
